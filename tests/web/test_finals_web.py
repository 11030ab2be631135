"""The finals' page and its JSON twin over made-up results: before a finals (both say
there is none), a running one without its secret or any seed, a finished one with both; an earlier finals
by ``?finals=ID``."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient
from pytest import CaptureFixture

from arena.cli.main import main
from arena.web import create_app, open_ladders
from tests.ladder.test_finals import _finals, _ladder, _play_round


def test_before_the_first_finals_both_say_so(tmp_path: Path, capsys: CaptureFixture[str]) -> None:
    db = _ladder(tmp_path, ["a", "b"])
    with TestClient(create_app(open_ladders([db]))) as client:
        answer = client.get("/api/finals")
        assert answer.status_code == 200
        empty = answer.json()
        assert empty["finals"] is None
        assert empty["standings"] == empty["gaps"] == empty["matches"] == empty["held"] == []
        page = client.get("/finals")
        assert page.status_code == 200 and "This ladder has held no finals yet" in page.text
        assert str(tmp_path) not in page.text
        assert client.get("/ladders/season/finals").status_code == 200
        missing = client.get("/api/finals?finals=1")
        assert missing.status_code == 404
        assert missing.json() == {"detail": "ladder season has held no finals 1"}
        assert client.get("/finals?finals=1").status_code == 404
        assert client.get("/api/finals?finals=0").status_code == 422
    capsys.readouterr()
    assert main(["ladder", "standings", str(db), "--finals", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == empty
    assert main(["ladder", "standings", str(db), "--finals"]) == 0
    assert "has held no finals yet" in capsys.readouterr().out


def test_a_running_finals_shows_no_secret_and_no_seed_until_it_ends(tmp_path: Path) -> None:
    store, finals, finals_id = _finals(tmp_path, ["a", "b"], max_games=100)
    win: tuple[int, ...] = (0, 1)
    _play_round(finals, finals_id, 1, {("a", "b"): [win, win, win, win]})
    db = Path(store.path)
    with TestClient(create_app(open_ladders([db]))) as client:
        running = client.get("/api/finals").json()
        assert running["finals"]["status"] == "running"
        assert running["finals"]["secret"] is None
        assert running["finals"]["replays"] == "finals-1"
        assert [match["seed"] for match in running["matches"]] == [None, None]
        assert [match["label"] for match in running["matches"]] == ["finals-1/round-1/a|b"] * 2
        assert [(row["place"], row["name"], row["game_wins"]) for row in running["standings"]] == [
            (1, "a", 4),
            (1, "b", 0),  # 4-0 is not yet p < 0.05
        ]
        assert "sign test" in running["test"]
        page = client.get("/finals")
        assert page.status_code == 200
        assert running["finals"]["commitment"] in page.text
        assert "revealed when the finals end" in page.text
        assert "provisional" in page.text
        row = finals.get(finals_id)
        assert row is not None
        assert finals.secret(finals_id).hex() not in page.text

        _play_round(finals, finals_id, 2, {("a", "b"): [win, win, win, win]})
        row = finals.get(finals_id)
        assert row is not None
        standings = finals.standings(row)
        finals.finish(finals_id, {s.name: s.place for s in standings.standings})
        ended = client.get("/api/ladders/season/finals").json()
        secret = finals.secret(finals_id).hex()
        assert ended["finals"]["secret"] == secret
        assert [(row["place"], row["name"]) for row in ended["standings"]] == [(1, "a"), (2, "b")]
        assert ended["gaps"][0]["separated"] and ended["gaps"][0]["p_value"] == 2 / 256
        assert all(isinstance(match["seed"], int) for match in ended["matches"])
        page = client.get("/ladders/season/finals")
        assert secret in page.text and "its SHA-256 is the commitment" in page.text
        assert client.get("/api/finals?finals=1").json() == ended
        assert client.get("/api/finals?finals=2").status_code == 404
    store.close()
