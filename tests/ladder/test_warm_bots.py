"""``[run] reuse_bots``: a worker keeps its bots between matches, never a faulty one,
never a stranger's."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arena.hosting.errors import HostingError
from arena.hosting.host import strangers_level
from arena.testing.broken_bots import write_manifest

from .test_config import BASE, arena, one_line_error, write

# A ladder keeps its replays (and warm bots their logs) in a folder of its own under
# the config's `replays`, named after its database.
WARM = '[match]\ngames = 1\nhands_only = true\n[run]\nconcurrency = 1\nsandbox = "limits"\n'


def _ladder(tmp_path: Path, text: str) -> Path:
    database = tmp_path / "t.sqlite"
    created = arena("ladder", "create", str(write(tmp_path, text)), "--db", str(database))
    assert created.returncode == 0, created.stderr
    return database


def _logs(replays: Path, pattern: str) -> list[Path]:
    return sorted(replays.glob(pattern))


@pytest.mark.slow
def test_a_worker_starts_each_bot_once(tmp_path: Path) -> None:
    replays = tmp_path / "replays"
    text = BASE + '[[bots]]\nname = "third"\nplugin = "random"\n'
    database = _ladder(tmp_path, text + WARM + f'reuse_bots = true\nreplays = "{replays}"\n')
    ran = arena("ladder", "run", str(database), "--quiet")
    assert ran.returncode == 0, ran.stderr
    assert "6 matches played" in ran.stderr  # 3 pairings, each twice (seats swapped)
    # One worker, three bots: three processes started, each log holding every match's.
    (folder,) = _logs(replays / "t", "warm-w*")
    assert len(_logs(folder, "*.stderr.log")) == 3
    with sqlite3.connect(database) as db:
        results = [
            json.loads(row[0])
            for row in db.execute("SELECT result FROM matches WHERE result IS NOT NULL")
        ]
    assert len(results) == 6
    assert all(seat["status"] == "ok" for result in results for seat in result["bots"])
    assert not _logs(replays / "t", "m*-a*/*.stderr.log")  # no bot started for one match only


@pytest.mark.slow
def test_a_faulty_bot_is_not_kept(tmp_path: Path) -> None:
    replays = tmp_path / "replays"
    manifest = write_manifest(tmp_path, "illegal")
    text = BASE + f'[[bots]]\nname = "illegal"\nmanifest = "{manifest}"\n'
    database = _ladder(tmp_path, text + WARM + f'reuse_bots = true\nreplays = "{replays}"\n')
    ran = arena("ladder", "run", str(database), "--quiet")
    assert ran.returncode == 0, ran.stderr
    (folder,) = _logs(replays / "t", "warm-w*")
    with sqlite3.connect(database) as db:
        results = [
            json.loads(row[0])
            for row in db.execute("SELECT result FROM matches WHERE result IS NOT NULL")
        ]
    played = [
        seat for result in results if result for seat in result["bots"] if seat["name"] == "illegal"
    ]
    assert played and all(seat["faults"] for seat in played)
    # Started afresh for each match it played (until it was suspended); greedy once.
    assert len(_logs(folder, "broken-illegal*.stderr.log")) == len(played)
    assert len(_logs(folder, "greedy*.stderr.log")) == 1


def test_strangers_bots_are_not_kept_unless_the_ladder_says_so(tmp_path: Path) -> None:
    database = _ladder(tmp_path, BASE + "[run]\nuntrusted = true\nreuse_bots = true\n")
    line = one_line_error(arena("ladder", "run", str(database), "--quiet"))
    assert "untrusted = true" in line and "reuse_bots = false" in line
    assert "persistent_strangers = true" in line  # the setting that would allow it


@pytest.mark.slow
def test_persistent_strangers_keeps_strangers_bots_warm(tmp_path: Path) -> None:
    try:
        level = strangers_level("auto")
    except HostingError as error:
        pytest.skip(f"no level fit for strangers here: {error}")
    replays = tmp_path / "replays"
    run = WARM.replace('sandbox = "limits"', f'sandbox = "{level.value}"')
    database = _ladder(
        tmp_path,
        BASE
        + run
        + f'untrusted = true\nreuse_bots = true\npersistent_strangers = true\nreplays = "{replays}"\n',
    )
    ran = arena("ladder", "run", str(database), "--quiet")
    assert ran.returncode == 0, ran.stderr
    assert "2 matches played" in ran.stderr
    # One worker, two bots: each started once, for both matches, at the strangers' level.
    (folder,) = _logs(replays / "t", "warm-w*")
    assert len(_logs(folder, "*.stderr.log")) == 2
    assert not _logs(replays / "t", "m*-a*/*.stderr.log")
    with sqlite3.connect(database) as db:
        results = [json.loads(row[0]) for row in db.execute("SELECT result FROM matches")]
    assert {seat["sandbox"] for result in results for seat in result["bots"]} == {level.value}
