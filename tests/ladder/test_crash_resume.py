"""``kill -9`` the ladder runner mid-run, run it again: nothing lost, nothing counted twice,
nothing left running.

The runner is the installed ``arena`` script in a subprocess.  Its processes are found
again by a marker in their environment (the pool workers inherit it) and the bots by
their HOME and socket, which lie in this test's replay folder.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from contextlib import closing, suppress
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main

pytestmark = pytest.mark.slow  # every test here starts processes or servers

ARENA = Path(sys.executable).parent / "arena"

REPEAT = 1  # 6 matches: enough to kill the runner mid-run and count each once
PAIRS = 3  # three bots
UNITS = PAIRS * REPEAT
MATCHES = UNITS * 2  # duplicate: both seatings

CONFIG = f"""\
name = "crash"
game = "gin-rummy/standard"
[schedule]
repeat = {REPEAT}
[match]
games = 1
hands_only = true
[run]
concurrency = 2
sandbox = "{{sandbox}}"
replays = "replays"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
[[bots]]
name = "greedy2"
plugin = "greedy"
"""


def read(db: Path, query: str, *args: object) -> list[tuple[Any, ...]]:
    """A read-only look, as a reporting tool would take it while the runner writes."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as connection:
        return connection.execute(query, args).fetchall()


def count(db: Path, query: str, *args: object) -> int:
    value = read(db, query, *args)[0][0]
    assert isinstance(value, int)
    return value


def ours(marker: str, folder: Path) -> list[str]:
    """Our live processes: the runner's (marker) and the bots' (HOME, socket in ``folder``)."""
    found = []
    needles = (marker.encode(), str(folder).encode())
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if any(needle in environ for needle in needles):
            state, parent = stat.rsplit(")", 1)[1].split()[:2]
            command = cmdline.replace(b"\0", b" ").decode(errors="replace")[:160]
            found.append(f"pid {entry} (parent {parent}, state {state}): {command}")
    return found


def wait_for_none(marker: str, folder: Path, seconds: float) -> list[str]:
    deadline = time.monotonic() + seconds
    while (left := ours(marker, folder)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def kill_leftovers(left: list[str]) -> None:
    for line in left:
        pid = int(line.split()[1])
        for kill in (os.killpg, os.kill):
            with suppress(OSError):
                kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(
    ("sandbox", "kill_after", "delay"),
    [("none", 1, 0.0), ("auto", MATCHES // 3, 0.4)],
    ids=["none-early", "auto-later"],
)
def test_kill_and_resume(tmp_path: Path, sandbox: str, kill_after: int, delay: float) -> None:
    config = tmp_path / "crash.toml"
    config.write_text(CONFIG.format(sandbox=sandbox), encoding="utf-8")
    db = tmp_path / "crash.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    marker = f"ARENA_TEST_RUN={uuid.uuid4().hex}"
    env = {**os.environ, "ARENA_TEST_RUN": marker.partition("=")[2]}
    command = [str(ARENA), "ladder", "run", str(db), "--quiet", "--no-leaderboard"]

    with open(tmp_path / "first.log", "w") as log:
        runner = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 120
            finished = 0
            while finished < kill_after:
                assert runner.poll() is None, "the runner ended before it could be killed"
                assert time.monotonic() < deadline, "no match finished in time"
                time.sleep(0.05)
                finished = count(db, "SELECT COUNT(*) FROM matches WHERE status = 'finished'")
            time.sleep(delay)
        finally:
            os.kill(runner.pid, signal.SIGKILL)
            runner.wait()
    at_kill = dict(read(db, "SELECT status, COUNT(*) FROM matches GROUP BY status"))
    assert at_kill.get("finished", 0) < MATCHES, f"killed too late: {at_kill}"

    # The pool workers and the bots die with the runner.
    left = wait_for_none(marker, tmp_path, 10)
    kill_leftovers(left)
    assert not left, "left running after kill -9 of the runner:\n" + "\n".join(left)

    resumed = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=180, check=False
    )
    assert resumed.returncode == 0, resumed.stderr
    interrupted = at_kill.get("running", 0)
    if interrupted:
        noun = "interrupted match" if interrupted == 1 else "interrupted matches"
        assert f"{interrupted} {noun} re-run" in resumed.stderr

    # Every scheduled match finished exactly once.
    assert dict(read(db, "SELECT status, COUNT(*) FROM matches GROUP BY status")) == {
        "finished": MATCHES
    }
    assert count(db, "SELECT COUNT(*) FROM matches WHERE result IS NULL") == 0
    per_match = read(
        db, "SELECT match_id, COUNT(*), MIN(seat), MAX(seat) FROM match_seats GROUP BY match_id"
    )
    assert len(per_match) == MATCHES
    assert all(row[1:] == (2, 0, 1) for row in per_match), per_match
    reruns = count(db, "SELECT COUNT(*) FROM matches WHERE attempts > 1")
    assert reruns == interrupted

    # Every unit rated exactly once, and each rating change starts where the last ended.
    assert count(db, "SELECT COUNT(*) FROM units WHERE rated = 1") == UNITS
    assert count(db, "SELECT COUNT(*) FROM rating_history") == UNITS * 2
    assert (
        count(db, "SELECT COUNT(DISTINCT unit_id || ':' || bot_id) FROM rating_history")
        == UNITS * 2
    )
    for bot_id, mu, sigma in read(db, "SELECT id, mu, sigma FROM bots"):
        changes = read(
            db,
            "SELECT mu_before, sigma_before, mu_after, sigma_after FROM rating_history "
            "WHERE bot_id = ? ORDER BY id",
            bot_id,
        )
        assert len(changes) == 2 * REPEAT
        for earlier, later in pairwise(changes):
            assert later[:2] == earlier[2:]
        assert changes[-1][2:] == (mu, sigma)

    # The bots' counts are their finished seats.
    for name, matches, games, seats, seat_games in read(
        db,
        "SELECT b.name, b.matches, b.games, COUNT(s.match_id), SUM(s.games) FROM bots b "
        "JOIN match_seats s ON s.bot_id = b.id GROUP BY b.id",
    ):
        assert matches == seats == 2 * REPEAT * 2, name  # two pairs, both seatings
        assert games == seat_games == matches, name  # one game a match

    left = wait_for_none(marker, tmp_path, 10)
    kill_leftovers(left)
    assert not left, "left running after the resumed run:\n" + "\n".join(left)

    # The bots' working directories are gone, those of the interrupted attempts too
    # (their logs stay).
    bot_dirs = [path for path in (tmp_path / "replays" / "crash").glob("*/*") if path.is_dir()]
    assert not bot_dirs, bot_dirs
