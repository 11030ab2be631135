"""Matches watched while they are played: ``/api/matches/live`` and a match's events over
Server-Sent Events, read from a real ``arena serve`` while a real runner plays.

The ladder's bot thinks 30 ms a decision, so a match lasts seconds and can be joined,
left and resumed in the middle.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from arena.cli.main import main
from arena.testing.broken_bots import write_manifest
from tests.polling import wait_until

from .conftest import ARENA, serving

pytestmark = pytest.mark.slow  # every test here starts processes and servers

SLOW = """\
name = "live"
game = "gin-rummy/standard"
[schedule]
kind = "continuous"
duplicate = true
[match]
games = 1
hands_only = false
[run]
concurrency = 1
sandbox = "none"
replays = "replays"
[web]
live_cards = "{cards}"
[[bots]]
name = "greedy"
[[bots]]
name = "broken-slow"
manifest = "{manifest}"
"""


@dataclass
class Event:
    id: int | None
    kind: str
    data: Any


class Stream:
    """An SSE stream read line by line over a plain HTTP connection."""

    def __init__(self, url: str, last_event_id: str | None = None) -> None:
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.netloc, timeout=60)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self.connection.request("GET", parts.path, headers=headers)
        self.response = self.connection.getresponse()

    def events(self) -> Iterator[Event]:
        event_id: int | None = None
        kind, data = "message", ""
        while True:
            raw = self.response.readline()
            if not raw:
                return
            line = raw.decode().rstrip("\n")
            if line == "":
                if data:
                    yield Event(event_id, kind, json.loads(data))
                event_id, kind, data = None, "message", ""
            elif line.startswith("id: "):
                event_id = int(line[4:])
            elif line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data += line[6:]

    def close(self) -> None:
        self.connection.close()


def get(url: str) -> tuple[int, Message, bytes]:
    """Status, headers (looked up in any case) and body."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def get_when(url: str, status: int) -> tuple[int, Message, bytes] | None:
    """The answer if it has ``status``, else None (to wait for)."""
    answer = get(url)
    return answer if answer[0] == status else None


def open_stream(url: str) -> Stream | None:
    """The stream if it opened (200), else None, the refused one closed."""
    stream = Stream(url)
    if stream.response.status == 200:
        return stream
    stream.close()
    return None


@dataclass
class Competition:
    db: Path
    url: str
    runner: subprocess.Popen[bytes]


@pytest.fixture
def competition(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Competition]:
    settings = {"cards": "hidden", "delay_ms": "30", **getattr(request, "param", {})}
    cards = settings["cards"]
    manifest = write_manifest(tmp_path, "slow", "--delay-ms", settings["delay_ms"])
    (tmp_path / "ladder.toml").write_text(SLOW.format(cards=cards, manifest=manifest))
    db = tmp_path / "ladder.sqlite"
    assert main(["ladder", "create", str(tmp_path / "ladder.toml"), "--db", str(db)]) == 0
    runner = subprocess.Popen(
        [str(ARENA), "ladder", "run", str(db), "--forever", "--quiet", "--grace", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with serving(db) as url:
            yield Competition(db, url, runner)
    finally:
        runner.send_signal(signal.SIGTERM)
        try:
            runner.wait(60)
        except subprocess.TimeoutExpired:
            runner.kill()
            runner.wait()


def live_matches(url: str) -> list[dict[str, Any]]:
    status, _, body = get(url + "/api/matches/live")
    assert status == 200
    matches: list[dict[str, Any]] = json.loads(body)["matches"]
    return matches


def first_live(competition: Competition) -> dict[str, Any]:
    found = wait_until(
        "a match in play with records",
        lambda: [m for m in live_matches(competition.url) if m["records"] >= 3],
    )
    return dict(found[0])


def test_a_match_in_play_is_listed_and_streamed_with_card_backs_then_resumed(
    competition: Competition,
) -> None:
    match = first_live(competition)
    assert match["seats"] in (["greedy", "broken-slow"], ["broken-slow", "greedy"])
    assert match["game"] == 0 and match["hand"] >= 0
    assert match["events"] == f"/api/matches/{match['id']}/events"
    status, _, body = get(competition.url + f"/api/matches/{match['id']}")
    assert status == 200
    detail = json.loads(body)
    assert detail["status"] == "running"  # its page names its seats before it ends
    assert [seat["name"] for seat in detail["seats"]] == match["seats"]

    stream = Stream(competition.url + match["events"])
    assert stream.response.status == 200
    assert stream.response.getheader("content-type", "").startswith("text/event-stream")
    seen: list[Event] = []
    for event in stream.events():
        seen.append(event)
        if len(seen) == 12:
            break
    stream.close()  # a spectator leaves mid-match
    assert [event.id for event in seen] == list(range(1, 13))
    assert seen[0].data["record"]["type"] == "match"
    assert "seed" not in seen[0].data["record"]  # committed to, not told
    in_play = [
        step
        for event in seen
        for step in event.data["steps"]
        if step["state"] is not None and step["state"]["end"] is None
    ]
    assert in_play, "no step of a hand in play among the first records"
    for step in in_play:
        assert all(set(hand) == {"??"} for hand in step["state"]["hands"]), step
        assert step["private"] == ""

    # Resumed after record 12: the next record is 13, and the rest follows to the end.
    resumed = Stream(competition.url + match["events"], last_event_id="12")
    ids: list[int] = []
    end: Event | None = None
    live_records = []
    for event in resumed.events():
        if event.kind == "end":
            end = event
            break
        assert event.id is not None
        ids.append(event.id)
        live_records.append(event.data["record"])
    resumed.close()
    assert ids[0] == 13 and ids == list(range(13, 13 + len(ids)))
    assert end is not None and end.data == {"status": "finished"}
    # The twin match of its duplicate unit plays the same deals: no seed, no decks.
    assert {"type": "reveal", "withheld": True} in live_records
    assert not any("seed" in record or "decks" in record for record in live_records)

    # Once its unit is played, the whole record is sent with the seed revealed, then the
    # stream ends (before, it is withheld).
    whole = wait_until(
        "the unit played and its replay open",
        lambda: open_stream(competition.url + match["events"]),
    )
    records = [event.data["record"] for event in whole.events() if event.kind == "record"]
    whole.close()
    assert records[-1]["type"] == "match_end"
    assert any(record["type"] == "reveal" for record in records)
    assert len(records) == ids[-1]


@pytest.mark.parametrize("competition", [{"cards": "shown"}], indirect=True)
def test_a_ladder_that_shows_cards_shows_them_in_play(competition: Competition) -> None:
    match = first_live(competition)
    stream = Stream(competition.url + match["events"])
    for event in stream.events():
        states = [step["state"] for step in event.data["steps"] if step["state"] is not None]
        if states and states[-1]["end"] is None:
            hands = states[-1]["hands"]
            assert all(len(card) == 2 and card != "??" for hand in hands for card in hand)
            break
    stream.close()


def test_bad_requests_for_events_get_one_line_answers(competition: Competition) -> None:
    match = first_live(competition)
    status, _, body = get(competition.url + "/api/matches/999999/events")
    assert status == 404 and "no match 999999" in json.loads(body)["detail"]
    bad = Stream(competition.url + match["events"], last_event_id="twelve")
    assert bad.response.status == 400
    detail = json.loads(bad.response.read())["detail"]
    assert detail == "Last-Event-ID must be a record number, got 'twelve'"
    bad.close()
    # A match of the unit still to play keeps the seed of its deals hidden.
    status, _, body = get(competition.url + f"/api/matches/{match['id']}")
    assert status == 200 and json.loads(body)["seed"] is None


def test_one_client_gets_a_few_streams_and_a_closed_one_frees_its_slot(
    competition: Competition,
) -> None:
    match = first_live(competition)
    url = competition.url + match["events"]
    streams = [Stream(url) for _ in range(4)]
    assert all(stream.response.status == 200 for stream in streams)
    refused = Stream(url)
    assert refused.response.status == 429
    refused.close()
    streams.pop().close()
    wait_until("a freed slot", lambda: open_stream(url), 30).close()
    for stream in streams:
        stream.close()


def test_the_health_check_follows_the_runner(competition: Competition) -> None:
    status, headers, body = wait_until(
        "a healthy runner", lambda: get_when(competition.url + "/healthz", 200)
    )
    health = json.loads(body)
    assert health["status"] == "ok"
    (ladder,) = health["ladders"]
    assert ladder["database"] == "ok" and ladder["runner"] in ("playing", "idle")
    assert ladder["runner_pid"] == competition.runner.pid
    assert headers["Cache-Control"] == "no-store"
    competition.runner.send_signal(signal.SIGTERM)
    competition.runner.wait(60)
    status, _, body = get(competition.url + "/healthz")
    assert status == 503
    assert json.loads(body)["ladders"][0]["runner"] == "stopped"


def test_a_runner_killed_outright_goes_stale(tmp_path: Path) -> None:
    (tmp_path / "ladder.toml").write_text(
        'name = "h"\ngame = "gin-rummy/standard"\n[run]\nsandbox = "none"\n'
    )
    db = tmp_path / "ladder.sqlite"
    assert main(["ladder", "create", str(tmp_path / "ladder.toml"), "--db", str(db)]) == 0
    with serving(db) as url:
        status, _, body = get(url + "/healthz")
        assert status == 503 and json.loads(body)["ladders"][0]["runner"] == "none"
        runner = subprocess.Popen([str(ARENA), "ladder", "run", str(db), "--forever", "--quiet"])
        try:
            wait_until("a healthy runner", lambda: get(url + "/healthz")[0] == 200)
        finally:
            os.kill(runner.pid, signal.SIGKILL)
            runner.wait()
        # Its last beat stands until it is three beats old.
        status, _, body = wait_until(
            "a stale heartbeat", lambda: get_when(url + "/healthz", 503), 60
        )
        assert json.loads(body)["ladders"][0]["runner"] == "stale"
