"""The match page's re-ask: each action step names its decision (``G.H.S``), and the
position route beside the replay's serves that decision as a position file (validated
input, read-only, no file paths in its answers) that ``arena ask`` puts to a bot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from arena.replays.files import read_replay
from arena.replays.positions import Coordinates, Position
from arena.replays.records import ActionRecord
from arena.web import create_app, open_ladders

from .helpers import arena

pytestmark = pytest.mark.slow  # the ladder plays with bot processes

LADDER = """\
name = "reask"
game = "gin-rummy/standard"
seed = 3
[schedule]
duplicate = true
[match]
games = 2
hands_only = true
[run]
concurrency = 1
sandbox = "none"
replays = "replays"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from arena.cli.main import main

    folder = tmp_path_factory.mktemp("reask-ladder")
    (folder / "ladder.toml").write_text(LADDER)
    db = folder / "ladder.sqlite"
    assert main(["ladder", "create", str(folder / "ladder.toml"), "--db", str(db)]) == 0
    assert main(["ladder", "run", str(db), "--quiet", "--no-leaderboard"]) == 0
    return db


@pytest.fixture(scope="module")
def client(ladder: Path) -> Iterator[TestClient]:
    with TestClient(create_app(open_ladders([ladder]))) as test_client:
        yield test_client


def _replay_path(ladder: Path, match_id: int) -> Path:
    import sqlite3

    with sqlite3.connect(f"file:{ladder}?mode=ro", uri=True) as db:
        (text,) = db.execute("SELECT replay FROM matches WHERE id = ?", (match_id,)).fetchone()
    path = Path(text)
    return path if path.is_absolute() else ladder.parent / "replays" / path


def test_each_decision_downloads_as_its_position(
    client: TestClient, ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match_id = client.get("/api/matches").json()["matches"][0]["id"]
    steps = client.get(f"/api/matches/{match_id}/replay").json()["steps"]
    actions = [step for step in steps if step["kind"] == "action"]
    assert actions and all(step["decision"] for step in actions)
    assert all(not step["decision"] for step in steps if step["kind"] != "action")
    records = [
        r
        for r in read_replay(_replay_path(ladder, match_id)).records
        if isinstance(r, ActionRecord)
    ]
    assert len(records) == len(actions)
    for step, record in list(zip(actions, records, strict=True))[::5]:
        seat, at = step["seat"], step["decision"]
        response = client.get(f"/api/matches/{match_id}/position", params={"seat": seat, "at": at})
        assert response.status_code == 200, response.text
        assert response.headers["content-disposition"] == (
            f'attachment; filename="match{match_id}-seat{seat}-{at}.json"'
        )
        position = Position.from_json(response.json())
        assert (position.seat, position.at) == (seat, Coordinates.parse(at))
        assert position.recorded.action == record.action and record.seat == seat
    # The last one downloaded, asked of the bot that played it: the recorded answer.
    file = tmp_path / "position.json"
    file.write_bytes(response.content)
    status, out, err = arena(capsys, "ask", position.players[seat], str(file), "--sandbox", "none")
    assert status == 0, err
    assert out.splitlines()[0].endswith(": same")


def test_the_position_route_takes_only_a_seat_and_a_decision(
    client: TestClient, ladder: Path
) -> None:
    match_id = client.get("/api/matches").json()["matches"][0]["id"]
    route = f"/api/matches/{match_id}/position"
    for params in (
        {"seat": "0", "at": "../../etc/passwd"},
        {"seat": "0", "at": "1.1"},
        {"seat": "-1", "at": "1.1.1"},
        {"seat": "x", "at": "1.1.1"},
        {"seat": "0", "at": "0.1.1"},
        {"seat": "0"},
    ):
        assert client.get(route, params=params).status_code == 422, params
    for params, words in (
        ({"seat": "7", "at": "1.1.1"}, "seats 0-1"),
        ({"seat": "0", "at": "9.1.1"}, "no decision 9.1.1"),
    ):
        response = client.get(route, params=params)
        assert response.status_code == 404
        assert words in response.text
        assert str(ladder.parent) not in response.text  # no path leaves the server
    assert (
        client.get("/api/matches/99999/position", params={"seat": 0, "at": "1.1.1"}).status_code
        == 404
    )
    assert client.post(route, params={"seat": 0, "at": "1.1.1"}).status_code == 405


def test_the_viewer_offers_the_command_and_the_file_at_each_decision(ladder: Path) -> None:
    """In the browser: at an action step the viewer shows the position file's link and
    the commands that ask the decision again; at a deal, nothing of the kind."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="[chromium] no playwright")
    from tests.web.browsers import ARGS, CHROMIUM
    from tests.web.conftest import serving

    if not Path(CHROMIUM).exists():
        pytest.skip(f"[chromium] no Chromium at {CHROMIUM}")
    with serving(ladder) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            match_id = _first_match(url)
            steps = _get(url, f"/api/matches/{match_id}/replay")["steps"]
            page.goto(f"{url}/matches/{match_id}")
            page.wait_for_selector("#viewer[data-ready='true']")
            assert steps[0]["kind"] == "deal" and page.locator("#reask a").count() == 0
            first = next(i for i, step in enumerate(steps) if step["kind"] == "action")
            for _ in range(first):
                page.keyboard.press("ArrowRight")
            step = steps[first]
            seat, at = step["seat"], step["decision"]
            link = page.locator("#reask a")
            assert link.get_attribute("download") == f"match{match_id}-seat{seat}-{at}.json"
            href = link.get_attribute("href")
            assert href == f"/api/matches/{match_id}/position?seat={seat}&at={at}"
            assert _get(url, href)["at"] == dict(
                zip(("game", "hand", "step"), map(int, at.split(".")), strict=True)
            )
            codes = page.locator("#reask code").all_inner_texts()
            name = _get(url, f"/api/matches/{match_id}/replay")["players"][seat]["name"]
            assert codes == [
                f"arena ask {name} match{match_id}-seat{seat}-{at}.json",
                f"arena replay REPLAY.jsonl --seat {seat} --at {at} --ask {name}",
            ]
            assert not errors, errors
        finally:
            browser.close()


def _get(url: str, path: str) -> Any:
    import json
    import urllib.request

    with urllib.request.urlopen(url + path) as response:
        return json.load(response)


def _first_match(url: str) -> int:
    match_id: int = _get(url, "/api/matches")["matches"][0]["id"]
    return match_id
