"""``arena compete DB`` as an operator runs it: a fresh ladder, a bot uploaded over HTTP
and seen playing, the web child killed and brought back while the runner plays on,
SIGTERM mid-match and a restart with nothing lost or doubled, and the refusals."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main
from tests.polling import wait_until
from tests.submissions.conftest import Server, add_author, needs_bwrap, tar_gz

pytestmark = pytest.mark.slow  # every test here starts a competition

LADDER = """\
name = "season"
game = "gin-rummy/standard"
[schedule]
kind = "continuous"
duplicate = true
[match]
games = 1
hands_only = true
[run]
concurrency = 1
replays = "replays"
[[bots]]
name = "greedy"
"""

BOT_TOML = 'name = "first-legal"\ncommand = ["{python}", "bot.py"]\n'
BOT_PY = """
import time
from arena.sdk import Bot, Decision, serve


class FirstLegal(Bot):
    name = "first-legal"
    games = ("gin-rummy/*",)

    def decide(self, decision: Decision) -> int:
        time.sleep(0.01)  # a match lasts long enough to be caught in the middle
        return 0


if __name__ == "__main__":
    serve(FirstLegal())
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rows(db: Path, query: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as connection:
        return connection.execute(query).fetchall()


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers
    except OSError:
        return 0, None


@dataclass
class Compete:
    db: Path
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text()

    def child_pid(self, name: str) -> int:
        """The pid of the child the supervisor last said it started."""
        started = [line for line in self.output().splitlines() if f": {name} started (pid " in line]
        assert started, self.output()
        return int(started[-1].rsplit("(pid ", 1)[1].rstrip(")"))

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(120)


@contextlib.contextmanager
def compete(db: Path, *options: str) -> Iterator[Compete]:
    port = _free_port()
    log = db.parent / f"compete-{port}.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli.main", "compete", str(db), "--port", str(port),
             "--grace", "60", *options],
            stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
    running = Compete(db, f"http://127.0.0.1:{port}", process, log)
    try:
        wait_until("the web app", lambda: get(running.url + "/healthz")[0] in (200, 503), 60)
        yield running
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(120)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def ladder(tmp_path: Path) -> Path:
    (tmp_path / "season.toml").write_text(LADDER)
    db = tmp_path / "season.sqlite"
    assert main(["ladder", "create", str(tmp_path / "season.toml"), "--db", str(db)]) == 0
    return db


def finished(db: Path) -> int:
    return int(rows(db, "SELECT COUNT(*) FROM matches WHERE status = 'finished'")[0][0])


def test_a_competition_from_a_fresh_ladder_to_a_restart(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    needs_bwrap()
    token = add_author(ladder, "alice", capsys)
    with compete(ladder) as running:
        server = Server(running.url, running.process, running.log)
        # One bot: the runner waits; the site and its health answer.
        assert wait_until("an idle runner", lambda: get(running.url + "/healthz")[0] == 200)
        status, headers = get(running.url + "/my")  # redirected to /signin, not stored
        assert status == 200 and headers["Cache-Control"] == "no-store"

        status, reply = server.upload(token, tar_gz({"bot.toml": BOT_TOML, "bot.py": BOT_PY}))
        assert status == 202, reply
        checked = server.wait(token, reply["id"])
        assert checked["status"] == "accepted", checked
        accepted_at = time.monotonic()
        # Its first match: one match's time plus 10 s after it was accepted (a Gin hand
        # between these bots takes about a second here; the bound leaves room for CI).
        wait_until("the new bot's first match", lambda: finished(ladder) >= 1, 60)
        first_match_after = time.monotonic() - accepted_at
        assert first_match_after < 60

        # The web child killed outright: the supervisor brings it back, the runner plays on.
        runner = running.child_pid("runner")
        web = running.child_pid("web")
        os.kill(web, signal.SIGKILL)
        wait_until("a new web child", lambda: running.child_pid("web") != web, 30)
        wait_until("the site again", lambda: get(running.url + "/healthz")[0] == 200, 30)
        assert running.child_pid("runner") == runner
        assert "web (pid" in running.output() and "restarting in 1 s" in running.output()
        before = finished(ladder)
        wait_until("the runner to play on", lambda: finished(ladder) > before, 60)

        # SIGTERM in the middle of a match: it finishes within the grace, nothing else starts.
        wait_until(
            "a match in play",
            lambda: rows(ladder, "SELECT COUNT(*) FROM matches WHERE status = 'running'")[0][0],
        )
        assert running.stop() == 0, running.output()
    statuses = dict(rows(ladder, "SELECT status, COUNT(*) FROM matches GROUP BY status"))
    assert "running" not in statuses, statuses
    played = finished(ladder)
    seats = rows(ladder, "SELECT COUNT(*) FROM match_seats")[0][0]
    assert seats == 2 * played

    # A restart takes up where it stopped: nothing lost, nothing counted twice.
    with compete(ladder) as running:
        wait_until("more matches", lambda: finished(ladder) > played, 60)
        assert running.stop() == 0
    per_match = rows(ladder, "SELECT match_id, COUNT(*) FROM match_seats GROUP BY match_id")
    assert all(count == 2 for _, count in per_match)
    assert len(per_match) == finished(ladder)
    units = rows(ladder, "SELECT COUNT(*) FROM units WHERE rated = 1")[0][0]
    assert rows(ladder, "SELECT COUNT(*) FROM rating_history")[0][0] == 2 * units


def test_one_competition_per_ladder_and_a_file_that_is_no_ladder(
    ladder: Path, tmp_path: Path
) -> None:
    with compete(ladder) as running:
        second = subprocess.run(
            [sys.executable, "-m", "arena.cli.main", "compete", str(ladder), "--port",
             str(_free_port())],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert second.returncode == 2
        assert second.stderr.count("\n") == 1, second.stderr
        holder = running.process.pid
        assert f"already run by process {holder}" in second.stderr or (
            f"already run by process {running.child_pid('runner')}" in second.stderr
        )
    bogus = tmp_path / "notes.sqlite"
    bogus.write_text("not a database")
    refused = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "compete", str(bogus)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and str(bogus) in refused.stderr
    assert json.loads(json.dumps(refused.stderr))  # one plain line
