"""A backup taken while a real ``arena ladder run`` plays, restored, and resumed: the
restored ladder runs to completion from the backup's moment, with nothing lost and
nothing counted twice."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.ladder.backup import read_manifest

from .processes import ARENA, count, read

pytestmark = pytest.mark.slow  # starts a ladder runner, its workers and bots

REPEAT = 4
UNITS = 3 * REPEAT  # three bots: three pairs, each REPEAT times
MATCHES = UNITS * 2  # duplicate: both seatings

CONFIG = f"""\
name = "load"
game = "gin-rummy/standard"
[schedule]
repeat = {REPEAT}
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
name = "greedy2"
plugin = "greedy"
"""


def finished(db: Path) -> int:
    return count(db, "SELECT COUNT(*) FROM matches WHERE status = 'finished'")


def results(db: Path) -> dict[int, str]:
    return dict(read(db, "SELECT id, result FROM matches WHERE status = 'finished'"))


def check_whole(db: Path) -> None:
    """Every match finished once, every unit rated once, every count from its seats."""
    assert dict(read(db, "SELECT status, COUNT(*) FROM matches GROUP BY status")) == {
        "finished": MATCHES
    }
    assert count(db, "SELECT COUNT(*) FROM match_seats") == MATCHES * 2
    assert count(db, "SELECT COUNT(*) FROM units WHERE rated = 1") == UNITS
    assert count(db, "SELECT COUNT(*) FROM rating_history") == UNITS * 2
    assert count(db, "SELECT COUNT(DISTINCT unit_id || ':' || bot_id) FROM rating_history") == (
        UNITS * 2
    )
    played = dict(read(db, "SELECT bot_id, COUNT(*) FROM match_seats GROUP BY bot_id"))
    assert dict(read(db, "SELECT id, matches FROM bots")) == played


def test_backup_mid_run_restore_and_resume(tmp_path: Path) -> None:
    config = tmp_path / "load.toml"
    config.write_text(CONFIG, encoding="utf-8")
    db = tmp_path / "load.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    command = [str(ARENA), "ladder", "run", str(db), "--quiet", "--no-leaderboard"]
    backups = tmp_path / "backups"
    with open(tmp_path / "run.log", "w") as log:
        runner = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 180
            while finished(db) < 3:
                assert runner.poll() is None, (tmp_path / "run.log").read_text()
                assert time.monotonic() < deadline, "no match finished in time"
                time.sleep(0.05)
            taken = subprocess.run(
                [str(ARENA), "ladder", "backup", str(db), str(backups / "one"), "--replays"],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert taken.returncode == 0, taken.stderr
            assert runner.wait(timeout=300) == 0, (tmp_path / "run.log").read_text()
        finally:
            if runner.poll() is None:
                runner.kill()
                runner.wait()
    check_whole(db)  # the original ran on undisturbed

    copy = backups / "one" / "load.sqlite"
    at_backup = results(copy)
    assert 3 <= len(at_backup) < MATCHES, "the backup was not taken mid-run"
    manifest = read_manifest(backups / "one")
    assert len([f for f in manifest.files if f.path.startswith("replays/")]) == len(at_backup)

    restored = tmp_path / "restored" / "load.sqlite"
    restored.parent.mkdir()
    assert main(["ladder", "restore", str(backups / "one"), str(restored)]) == 0
    assert results(restored) == at_backup
    resumed = subprocess.run(
        [str(ARENA), "ladder", "run", str(restored), "--quiet", "--no-leaderboard"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    check_whole(restored)
    after = results(restored)
    assert {match: after[match] for match in at_backup} == at_backup  # not played again
    # The resumed matches wrote into the restored ladder's own folder, not the original's.
    (folder,) = {Path(path).parent for (path,) in read(restored, "SELECT replay FROM matches")}
    assert folder.name == "load-2" and len(list(folder.glob("m*-a*.jsonl"))) >= MATCHES
    assert json.loads(read(restored, "SELECT config FROM ladder")[0][0])["replays"] == str(folder)

    # A second backup beside the first stores only what changed since.
    again = subprocess.run(
        [str(ARENA), "ladder", "backup", str(restored), str(backups / "two"), "--replays"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert f"{len(at_backup)} unchanged file(s) linked" in again.stdout


def test_rerate_while_the_ladder_runs(tmp_path: Path) -> None:
    """Re-rated with OpenSkill mid-run: the runner rates the rest with OpenSkill on top
    of the new ratings, so a second re-rate with OpenSkill at the end changes nothing."""
    config = tmp_path / "load.toml"
    config.write_text(CONFIG, encoding="utf-8")
    db = tmp_path / "load.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    command = [str(ARENA), "ladder", "run", str(db), "--quiet", "--no-leaderboard"]
    with open(tmp_path / "run.log", "w") as log:
        runner = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 180
            while count(db, "SELECT COUNT(*) FROM units WHERE rated = 1") < 2:
                assert runner.poll() is None, (tmp_path / "run.log").read_text()
                assert time.monotonic() < deadline, "no unit rated in time"
                time.sleep(0.05)
            switched = subprocess.run(
                [str(ARENA), "ladder", "rerate", str(db), "--system", "openskill"],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert switched.returncode == 0, switched.stderr
            assert "ratings by openskill (was trueskill)" in switched.stdout
            assert runner.wait(timeout=300) == 0, (tmp_path / "run.log").read_text()
        finally:
            if runner.poll() is None:
                runner.kill()
                runner.wait()
    rated_at_switch = int(switched.stdout.split(" rating update")[0].rsplit(" ", 1)[-1])
    assert rated_at_switch < UNITS, "re-rated after the run had ended"
    check_whole(db)
    ratings = read(db, "SELECT name, mu, sigma FROM bots ORDER BY name")
    history = read(db, "SELECT unit_id, bot_id, rank, mu_after, sigma_after FROM rating_history")
    again = subprocess.run(
        [str(ARENA), "ladder", "rerate", str(db)], capture_output=True, text=True, check=False
    )
    assert again.returncode == 0, again.stderr
    assert f"ratings by openskill: {UNITS} rating updates" in again.stdout
    assert read(db, "SELECT name, mu, sigma FROM bots ORDER BY name") == ratings
    assert read(db, "SELECT unit_id, bot_id, rank, mu_after, sigma_after FROM rating_history") == (
        history
    )
