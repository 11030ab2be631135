"""``arena ladder run --forever``: it waits for bots without polling, plays a bot added by
another process at once, stops on SIGTERM by letting its matches finish (or, past
``--grace``, putting them back in the queue), and only one runner holds a ladder.

The runner is the installed ``arena`` script in a subprocess, as an operator runs it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.testing.broken_bots import write_manifest
from tests.polling import wait_until

from .processes import ARENA, count, kill_leftovers, read, wait_for_none

pytestmark = pytest.mark.slow  # every test here starts processes

ONE_BOT = """\
name = "forever"
game = "gin-rummy/standard"
[match]
games = 1
hands_only = true
[run]
concurrency = 2
sandbox = "none"
replays = "replays"
[[bots]]
name = "greedy"
"""

SLOW = """\
name = "slow"
game = "gin-rummy/standard"
[schedule]
kind = "continuous"
duplicate = false
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
name = "broken-slow"
manifest = "{manifest}"
"""


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ARENA), *args], capture_output=True, text=True, timeout=120, check=False
    )


def create(tmp_path: Path, config: str) -> Path:
    (tmp_path / "ladder.toml").write_text(config, encoding="utf-8")
    db = tmp_path / "ladder.sqlite"
    made = arena("ladder", "create", str(tmp_path / "ladder.toml"), "--db", str(db))
    assert made.returncode == 0, made.stderr
    return db


class Runner:
    """``arena ladder run DB --forever`` in a subprocess, its processes marked."""

    def __init__(self, db: Path, *extra: str) -> None:
        self.marker = uuid.uuid4().hex
        self.log = db.with_suffix(".log")
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [str(ARENA), "ladder", "run", str(db), "--forever", "--quiet", *extra],
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "ARENA_TEST_RUN": self.marker},
            )

    def output(self) -> str:
        return self.log.read_text()

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self, timeout: float = 60) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def runners() -> Iterator[list[Runner]]:
    made: list[Runner] = []
    yield made
    for runner in made:
        runner.close()


def heartbeat_state(db: Path) -> str | None:
    rows = read(db, "SELECT state FROM runner")
    return str(rows[0][0]) if rows else None


def test_an_idle_runner_plays_a_bot_added_later_and_stops_on_sigterm(
    tmp_path: Path, runners: list[Runner]
) -> None:
    db = create(tmp_path, ONE_BOT)
    runner = Runner(db)
    runners.append(runner)
    wait_until("the runner to go idle", lambda: heartbeat_state(db) == "idle")

    # Idle, it sleeps: no busy polling (under 1% of a core on this machine; the bound
    # here leaves room for a loaded test host).
    before, started = runner.cpu_seconds(), time.monotonic()
    time.sleep(3)
    share = (runner.cpu_seconds() - before) / (time.monotonic() - started)
    assert share < 0.05, f"an idle runner used {share:.1%} of a core"

    added = arena("ladder", "add", str(db), "random")
    assert added.returncode == 0, added.stderr
    wait_until(
        "the new bot's matches",
        lambda: count(db, "SELECT COUNT(*) FROM matches WHERE status = 'finished'") == 2,
    )
    wait_until("the runner to go idle again", lambda: heartbeat_state(db) == "idle")
    assert runner.stop() == 0, runner.output()
    assert heartbeat_state(db) == "stopped"
    assert dict(read(db, "SELECT status, COUNT(*) FROM matches GROUP BY status")) == {"finished": 2}


def test_a_second_runner_is_refused_naming_the_first(tmp_path: Path, runners: list[Runner]) -> None:
    db = create(tmp_path, ONE_BOT)
    runner = Runner(db)
    runners.append(runner)
    wait_until("the runner to go idle", lambda: heartbeat_state(db) == "idle")
    second = arena("ladder", "run", str(db), "--quiet")
    assert second.returncode == 2
    assert second.stderr.count("\n") == 1, second.stderr
    assert f"already run by process {runner.process.pid}" in second.stderr
    assert runner.process.poll() is None
    assert runner.stop() == 0
    # Once it stopped, the ladder is free again.
    again = arena("ladder", "run", str(db), "--quiet", "--no-leaderboard")
    assert again.returncode == 0, again.stderr


def test_forever_takes_no_match_count(tmp_path: Path) -> None:
    db = create(tmp_path, ONE_BOT)
    refused = arena("ladder", "run", str(db), "--forever", "--matches", "3")
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith("--forever plays until stopped: it takes no --matches")


def slow_ladder(tmp_path: Path) -> Path:
    manifest = write_manifest(tmp_path, "slow", "--delay-ms", "40")
    return create(tmp_path, SLOW.format(manifest=manifest))


def running(db: Path) -> int:
    return count(db, "SELECT COUNT(*) FROM matches WHERE status = 'running'")


def test_sigterm_lets_the_match_in_flight_finish(tmp_path: Path, runners: list[Runner]) -> None:
    db = slow_ladder(tmp_path)
    runner = Runner(db, "--grace", "120")
    runners.append(runner)
    wait_until("a match to start", lambda: running(db) == 1)
    assert runner.stop(timeout=150) == 0, runner.output()
    statuses = dict(read(db, "SELECT status, COUNT(*) FROM matches GROUP BY status"))
    assert statuses == {"finished": 1}, statuses  # the one in flight, and no other taken
    left = wait_for_none(runner.marker, tmp_path, 10)
    kill_leftovers(left)
    assert not left, "left running after SIGTERM:\n" + "\n".join(left)


def test_past_its_grace_a_match_is_put_back_and_played_once_after_a_restart(
    tmp_path: Path, runners: list[Runner]
) -> None:
    db = slow_ladder(tmp_path)
    runner = Runner(db, "--grace", "0.5")
    runners.append(runner)
    wait_until("a match to start", lambda: running(db) == 1)
    stopped_at = time.monotonic()
    assert runner.stop() == 0, runner.output()
    assert time.monotonic() - stopped_at < 30  # it did not wait for the match to end
    assert "put back in the queue" in runner.output()
    # Nothing half-written: the match is queued again, its stopped attempt not counted.
    assert read(db, "SELECT status, attempts FROM matches") == [("scheduled", 0)]
    assert count(db, "SELECT COUNT(*) FROM match_seats") == 0
    left = wait_for_none(runner.marker, tmp_path, 10)
    kill_leftovers(left)
    assert not left, "left running after the grace:\n" + "\n".join(left)

    resumed = arena("ladder", "run", str(db), "--quiet", "--no-leaderboard", "--matches", "1")
    assert resumed.returncode == 0, resumed.stderr
    assert read(db, "SELECT id, status, attempts FROM matches") == [(1, "finished", 1)]
    assert count(db, "SELECT COUNT(*) FROM match_seats WHERE match_id = 1") == 2
    assert count(db, "SELECT COUNT(*) FROM rating_history") == 2
