"""A finals played by real bots (greedy, random and the sample plugin's strong; one-hand
games), the installed ``arena`` in subprocesses: beside a running ladder, to its end
with the secret revealed and every replay verified, its standings on the command line
and the web; and killed with SIGKILL mid-way, then resumed to the same kind of end with
every match played once.  The refusals without processes are in ``test_finals.py``."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from arena.cli.main import main
from arena.ladder.finals import unit_label
from arena.protocol.commitment import RevealCheck
from arena.referee.seeds import derived_seed
from arena.replays.files import read_replay
from arena.replays.records import RevealRecord
from arena.replays.verify import check_seed
from arena.web import create_app, open_ladders

from .processes import ARENA, count, kill_leftovers, read, wait_for_none

pytestmark = [
    pytest.mark.slow,  # every test here starts processes
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]

CONFIG = """\
name = "season"
game = "gin-rummy/standard"
[schedule]
repeat = 2
[match]
games = 1
hands_only = true
[run]
concurrency = 2
sandbox = "none"
replays = "replays"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
[[bots]]
name = "strong"
"""
BOTS = 3
PAIRS = 3
MAX_GAMES = 8  # 2 head-to-head games a pair a round (two one-game matches): 4 rounds at most
FINALS = ["ladder", "finals"]
ARGS = ["--top", str(BOTS), "--games", "1", "--max-games", str(MAX_GAMES)]


def _ladder(tmp_path: Path) -> Path:
    config = tmp_path / "season.toml"
    config.write_text(CONFIG, encoding="utf-8")
    db = tmp_path / "season.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    return db


def _finals_command(db: Path) -> list[str]:
    return [str(ARENA), *FINALS, str(db), *ARGS]


def _check_the_end(db: Path, output: str, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """What every finished finals must show: the commitment published before the first
    match and the secret after the last, hashing to it; every match finished once, each
    replay verified by ``arena replay --verify``, its seed derived from the secret."""
    commitment = re.search(r"^commitment: sha256 ([0-9a-f]{64})", output, re.M)
    secret = re.search(r"^finals 1 finished; secret: ([0-9a-f]{64})$", output, re.M)
    assert commitment and secret, output
    first_match = re.search(r"^  match \d+:", output, re.M)
    assert first_match and commitment.start() < first_match.start()
    assert hashlib.sha256(bytes.fromhex(secret[1])).hexdigest() == commitment[1]
    stored = read(db, "SELECT status, commitment, lower(hex(secret)), rounds FROM finals")
    assert stored[0][:3] == ("finished", commitment[1], secret[1])
    rounds = stored[0][3]
    assert 3 <= rounds <= MAX_GAMES // 2  # 6-0 head to head is the least that separates

    matches = read(
        db,
        "SELECT m.id, m.status, m.attempts, m.replay, u.label, u.seed, m.seats, u.round "
        "FROM finals_matches m JOIN finals_units u ON u.id = m.unit_id ORDER BY m.id",
    )
    assert len(matches) == rounds * PAIRS * 2
    assert {row[1] for row in matches} == {"finished"}
    assert count(db, "SELECT COUNT(*) FROM finals_seats") == 2 * len(matches)
    assert count(db, "SELECT COUNT(*) FROM finals_games") == 2 * len(matches)  # one game each
    key = bytes.fromhex(secret[1])
    folder = db.parent / "replays" / "season" / "finals-1"
    for match_id, _, attempts, replay, label, seed, seats, number in matches:
        assert label == unit_label(1, number, tuple(sorted(json.loads(seats))))
        assert seed == derived_seed(key, label)
        assert Path(replay) == folder / f"m{match_id}-a{attempts}.jsonl"
        capsys.readouterr()
        assert main(["replay", replay, "--verify"]) == 0, replay
        assert "verified, the engine agrees with every record" in capsys.readouterr().out
        records = read_replay(Path(replay)).records
        assert check_seed(records).status is RevealCheck.VERIFIED  # its own reveal, at its end
        assert isinstance(records[-2], RevealRecord) and records[-2].seed == seed
    return {"commitment": commitment[1], "secret": secret[1]}


def _places(db: Path) -> dict[str, int]:
    """Each finalist's place as the finals published it when they ended."""
    return dict(
        read(db, "SELECT b.name, f.place FROM finals_bots f JOIN bots b ON b.id = f.bot_id")
    )


def test_a_finals_beside_a_running_ladder_ends_revealed_and_verified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _ladder(tmp_path)
    with open(tmp_path / "ladder.log", "w") as log:
        ladder = subprocess.Popen(
            [str(ARENA), "ladder", "run", str(db), "--quiet", "--no-leaderboard"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            finals = subprocess.run(
                _finals_command(db), capture_output=True, text=True, timeout=300, check=False
            )
        finally:
            assert ladder.wait(timeout=300) == 0, (tmp_path / "ladder.log").read_text()
    assert finals.returncode == 0, finals.stderr
    seed = _check_the_end(db, finals.stdout, capsys)

    # The ladder played its own schedule and ratings, untouched by the finals.
    assert dict(read(db, "SELECT status, COUNT(*) FROM matches GROUP BY status")) == {
        "finished": PAIRS * 2 * 2
    }
    assert count(db, "SELECT COUNT(*) FROM rating_history") == PAIRS * 2 * 2
    for name, matches, seats in read(
        db,
        "SELECT b.name, b.matches, (SELECT COUNT(*) FROM match_seats s WHERE s.bot_id = b.id) "
        "FROM bots b",
    ):
        assert matches == seats == 2 * 2 * 2, name

    # The standings, on the command line...
    capsys.readouterr()
    assert main(["ladder", "standings", str(db), "--finals", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    order = [(row["place"], row["name"]) for row in report["standings"]]
    assert dict((name, place) for place, name in order) == _places(db)
    assert order[0][0] == 1 and len(order) == BOTS
    assert [place for place, _ in order] == sorted(place for place, _ in order)
    assert main(["ladder", "standings", str(db), "--finals"]) == 0
    text = capsys.readouterr().out
    rows = re.findall(r"^\s*(\d+) (\S+)\s+\d+", text, re.M)
    assert [(int(place), name) for place, name in rows] == order
    assert f"secret: {seed['secret']} (its SHA-256 matches the commitment)" in text
    assert main(["ladder", "standings", str(db)]) == 0  # without --finals: the leaderboard
    board = capsys.readouterr().out
    assert main(["ladder", "leaderboard", str(db)]) == 0
    assert capsys.readouterr().out == board

    # ... and on the web.
    with TestClient(create_app(open_ladders([db]))) as client:
        served = client.get("/api/finals").json()
        assert [(row["place"], row["name"]) for row in served["standings"]] == order
        assert served["finals"]["secret"] == seed["secret"]
        assert served["finals"]["commitment"] == seed["commitment"]
        assert served["finals"]["replays"] == "finals-1"  # no server path
        assert all(match["seed"] is not None for match in served["matches"])
        assert client.get("/api/ladders/season/finals").json() == served
        page = client.get("/finals")
        assert page.status_code == 200 and seed["secret"] in page.text
        assert client.get("/ladders/season/finals").status_code == 200

    # The same command again: the finished finals' standings, nothing played.
    again = subprocess.run(
        _finals_command(db), capture_output=True, text=True, timeout=60, check=False
    )
    assert again.returncode == 0, again.stderr
    assert "finals 1 finished already (--new holds another)" in again.stdout
    assert count(db, "SELECT COUNT(*) FROM finals") == 1
    assert count(db, "SELECT COUNT(*) FROM finals_matches") == len(
        read(db, "SELECT id FROM finals_matches WHERE status = 'finished'")
    )


def test_a_finals_killed_mid_way_resumes_with_every_match_played_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _ladder(tmp_path)
    marker = uuid.uuid4().hex
    env = {**os.environ, "ARENA_TEST_RUN": marker}
    with open(tmp_path / "first.log", "w") as log:
        first = subprocess.Popen(_finals_command(db), stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 120
            while (
                count(db, "SELECT COUNT(*) FROM finals_matches WHERE status = 'finished'")
                if count(db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'finals_matches'")
                else 0
            ) < 2:
                assert first.poll() is None, (tmp_path / "first.log").read_text()
                assert time.monotonic() < deadline, "no finals match finished in time"
                time.sleep(0.05)
            # A second finals while this one runs: refused, naming the process.
            second = subprocess.run(
                _finals_command(db), capture_output=True, text=True, timeout=60, check=False
            )
            assert second.returncode == 2
            assert second.stdout == ""
            assert second.stderr.strip().splitlines() == [
                f"arena: error: a finals of ladder {db} is already running in process "
                f"{first.pid}: one at a time"
            ]
        finally:
            os.kill(first.pid, signal.SIGKILL)
            first.wait()
    at_kill = dict(read(db, "SELECT status, COUNT(*) FROM finals_matches GROUP BY status"))
    assert read(db, "SELECT status FROM finals") == [("running",)], "killed too late"
    left = wait_for_none(f"ARENA_TEST_RUN={marker}", tmp_path, 10)
    kill_leftovers(left)
    assert not left, "left running after kill -9 of the finals:\n" + "\n".join(left)

    resumed = subprocess.run(
        _finals_command(db), capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "resumed" in resumed.stdout
    interrupted = at_kill.get("running", 0)
    if interrupted:
        assert (
            f"{interrupted} match{'es' if interrupted != 1 else ''} left running" in resumed.stdout
        )
    # Nothing counted twice: one row of seats and game ranks per match, each played once
    # unless it was running at the kill.
    _check_the_end(db, (tmp_path / "first.log").read_text() + resumed.stdout, capsys)
    assert count(db, "SELECT COUNT(*) FROM finals_matches WHERE attempts > 1") == interrupted
    assert count(db, "SELECT COUNT(*) FROM finals_matches WHERE attempts = 0") == 0
    assert count(db, "SELECT COUNT(*) FROM matches") == 0  # the ladder's own: none played
    left = wait_for_none(f"ARENA_TEST_RUN={marker}", tmp_path, 10)
    kill_leftovers(left)
    assert not left, "left running after the resumed finals:\n" + "\n".join(left)


RUMMY = """\
name = "table"
game = "rummy/standard"
seats = 3
[match]
games = 1
hands_only = true
[run]
concurrency = 2
sandbox = "none"
replays = "replays"
[[bots]]
name = "a"
plugin = "greedy-rummy"
[[bots]]
name = "b"
plugin = "random"
[[bots]]
name = "c"
plugin = "strong-rummy"
[[bots]]
name = "d"
plugin = "random"
"""


def test_a_multi_seat_finals_plays_every_line_up_in_every_rotation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(RUMMY, encoding="utf-8")
    db = tmp_path / "table.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    # 4 bots, 3 seats: a pair shares 2 line-ups, each played in 3 rotations: 6 games a
    # round, so --max-games 6 is exactly one round.
    finals = subprocess.run(
        [str(ARENA), *FINALS, str(db), "--top", "4", "--max-games", "6"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert finals.returncode == 0, finals.stderr
    (secret,) = re.findall(r"^finals 1 finished; secret: ([0-9a-f]{64})$", finals.stdout, re.M)
    units = read(db, "SELECT id, label, seed, round FROM finals_units ORDER BY id")
    assert [(label, number) for _, label, _, number in units] == [
        (f"finals-1/round-1/{group}", 1) for group in ("a|b|c", "a|b|d", "a|c|d", "b|c|d")
    ]
    for unit_id, label, seed, _ in units:
        assert seed == derived_seed(bytes.fromhex(secret), label)
        group = label.rsplit("/", 1)[1].split("|")
        seatings = [json.loads(seats) for (seats,) in read(
            db, "SELECT seats FROM finals_matches WHERE unit_id = ? ORDER BY id", unit_id
        )]  # fmt: skip
        assert seatings == [group[i:] + group[:i] for i in range(3)]
    matches = read(db, "SELECT replay, status FROM finals_matches")
    assert len(matches) == 12 and {status for _, status in matches} == {"finished"}
    for replay, _ in matches:
        assert main(["replay", replay, "--verify"]) == 0, replay
    capsys.readouterr()
    assert main(["ladder", "standings", str(db), "--finals", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["round_games"] == 6
    assert all(gap["wins"] + gap["losses"] + gap["ties"] == 6 for gap in report["gaps"])
    assert len(report["standings"]) == 4 and report["standings"][0]["place"] == 1


def test_a_backup_carries_the_finals_replays_to_the_restored_ladder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _ladder(tmp_path)
    assert main(["ladder", "run", str(db), "--quiet", "--no-leaderboard"]) == 0
    assert main([*FINALS, str(db), "--top", "2", "--games", "1", "--max-games", "2"]) == 0
    capsys.readouterr()
    assert main(["ladder", "export", str(db), "--format", "jsonl", "--what", "finals"]) == 0
    exported = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    finished = count(db, "SELECT COUNT(*) FROM finals_matches WHERE status = 'finished'")
    assert len(exported) == 2 * finished > 0  # a row per seat of each finished match
    assert {row["finals"] for row in exported} == {1}
    assert main(["ladder", "backup", str(db), str(tmp_path / "backup"), "--replays"]) == 0
    restored = tmp_path / "restored" / "season.sqlite"
    assert main(["ladder", "restore", str(tmp_path / "backup"), str(restored)]) == 0
    replays = [row[0] for row in read(restored, "SELECT replay FROM finals_matches")]
    (folder,) = (row[0] for row in read(restored, "SELECT replays FROM finals"))
    assert replays and all(Path(replay).is_file() for replay in replays)
    assert all(Path(replay).is_relative_to(folder) for replay in replays)
    assert not Path(folder).is_relative_to(db.parent / "replays" / "season")
    capsys.readouterr()
    assert main(["replay", replays[0], "--verify"]) == 0
