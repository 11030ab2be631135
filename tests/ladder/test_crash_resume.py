"""``kill -9`` the ladder runner mid-run, run it again: nothing lost, nothing counted twice,
nothing left running.

The runner is the installed ``arena`` script in a subprocess.  Its processes are found
again by a marker in their environment (the pool workers inherit it) and the bots by
their HOME and socket, which lie in this test's replay folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from itertools import pairwise
from pathlib import Path

import pytest

from arena.cli.main import main

from .processes import ARENA, count, kill_leftovers, read, wait_for_none

pytestmark = pytest.mark.slow  # every test here starts processes or servers

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
