"""A ladder on a real Dask cluster: ``dask scheduler`` and ``dask worker`` processes on
127.0.0.1, the runner as ``arena ladder run --dask``, and faults dealt by ``kill -9``.

The workers get their own folders and the manifest bot reaches them as an archive (its
log, sent back to the runner, says it ran from the worker's cache).  One worker is
killed mid-run: its match runs again on the other and counts once, and its bots die
with it.  Then the scheduler is killed: the runner stops, puts the matches in flight
back, and a run on a new cluster finishes the ladder.  The results equal the local
process pool's on the same config.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="[dask] the Dask tests need the dask extra")

from arena.cli.main import main
from tests.ladder.dask_helpers import (
    FIRST_BOT,
    ladder_config,
    read,
    results,
    statuses,
    write_bot,
)
from tests.polling import wait_until

BIN = Path(sys.executable).parent
MATCHES = 3 * 2  # three pairs, both seatings

pytestmark = [
    pytest.mark.slow,  # every test here starts processes
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """Scheduler and worker processes, each marked in its environment to be found again."""

    def __init__(self, folder: Path, marker: str) -> None:
        self.folder = folder
        self.marker = marker
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, argv: list[str]) -> None:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 (kept open for the child)
        env = {**os.environ, "ARENA_TEST_DASK": f"{self.marker}-{name}"}
        self.processes[name] = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        log.close()

    def scheduler(self) -> None:
        self.start(
            "scheduler",
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(self.port),
             "--no-dashboard"],
        )  # fmt: skip

    def worker(self, name: str, threads: int = 1) -> None:
        local = self.folder / name
        local.mkdir()
        self.start(
            name,
            [str(BIN / "dask"), "worker", self.address, "--host", "127.0.0.1", "--nthreads", str(threads),
             "--no-nanny", "--no-dashboard", "--local-directory", str(local),
             "--death-timeout", "30"],
        )  # fmt: skip

    def kill(self, name: str) -> None:
        process = self.processes[name]
        with suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
        process.wait()

    def left(self, name: str) -> list[str]:
        """Live processes of ``name``: marked by it, or with their files in its folder
        (the bots: their HOME lies in the worker's local directory)."""
        needles = (
            f"ARENA_TEST_DASK={self.marker}-{name}".encode(),
            str(self.folder / name).encode(),
        )
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z" and any(n in environ or n in cmdline for n in needles):
                command = cmdline.replace(b"\0", b" ").decode(errors="replace")[:150]
                found.append(f"pid {entry}: {command}")
        return found

    def close(self) -> None:
        for name, process in self.processes.items():
            if process.poll() is None:
                self.kill(name)
        for name in self.processes:
            for line in self.left(name):
                with suppress(OSError):
                    os.kill(int(line.split()[1].rstrip(":")), signal.SIGKILL)


@pytest.fixture
def clusters(tmp_path: Path) -> Iterator[list[Cluster]]:
    made: list[Cluster] = []
    yield made
    for cluster in made:
        cluster.close()


def finished(db: Path) -> int:
    return statuses(db).get("finished", 0)


def workers_up(cluster: Cluster, count: int) -> bool:
    """True once ``count`` workers have registered (read from their logs)."""
    registered = 0
    for name in cluster.processes:
        if name.startswith("worker"):
            text = (cluster.folder / f"{name}.log").read_bytes()
            registered += b"Registered to" in text
    return registered >= count


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder the bots' own uids can read (pytest's are root-only when run as root):
    the local executor runs the manifest bot from where it is, outside bwrap."""
    folder = Path(tempfile.mkdtemp(prefix="arena-test-bots-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_workers_lost_scheduler_lost_resume(
    tmp_path: Path, clusters: list[Cluster], open_folder: Path
) -> None:
    manifest = write_bot(open_folder / "first", "first", FIRST_BOT)

    first = Cluster(tmp_path / "first", "a")
    first.folder.mkdir()
    clusters.append(first)
    first.scheduler()
    first.worker("worker1")
    first.worker("worker2")
    # The local process pool's results, while the cluster starts.
    local_db = tmp_path / "local.sqlite"
    config = ladder_config(tmp_path, manifest, name="local", repeat=1)
    assert main(["ladder", "create", str(config), "--db", str(local_db)]) == 0
    assert main(["ladder", "run", str(local_db), "--quiet", "--no-leaderboard"]) == 0

    db = tmp_path / "dask.sqlite"
    config = ladder_config(tmp_path, manifest, name="dask", repeat=1)
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0

    wait_until("two workers", lambda: workers_up(first, 2))
    command = [str(BIN / "arena"), "ladder", "run", str(db), "--dask", first.address,
               "--quiet", "--no-leaderboard"]  # fmt: skip
    runner = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until("a match", lambda: finished(db) >= 1)
        first.kill("worker1")  # mid-run: both workers have a match (capacity is threads + 1)
        wait_until("worker1's bots to die", lambda: not first.left("worker1"), seconds=10)
        after_worker = finished(db)
        wait_until("the ladder to go on", lambda: finished(db) >= after_worker + 1)
        first.kill("scheduler")
        _, errors = runner.communicate(timeout=60)
    finally:
        if runner.poll() is None:
            runner.kill()
    assert runner.returncode == 1, errors
    assert f"lost the Dask scheduler at {first.address}" in errors
    assert "run `arena ladder run` again to resume" in errors
    interrupted = statuses(db)
    assert "running" not in interrupted, interrupted  # put back in the queue, not left running
    assert interrupted.get("finished", 0) < MATCHES, "the scheduler was lost too late to test"
    first.kill("worker2")
    wait_until("worker2's bots to die", lambda: not first.left("worker2"), seconds=10)
    first.close()

    second = Cluster(tmp_path / "second", "b")
    second.folder.mkdir()
    clusters.append(second)
    second.scheduler()
    second.worker("worker3", threads=2)
    wait_until("a worker", lambda: workers_up(second, 1))
    command[5] = second.address
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert resumed.returncode == 0, resumed.stderr

    # Every match recorded exactly once, each with one row per seat.
    assert statuses(db) == {"finished": MATCHES}
    assert read(db, "SELECT COUNT(*) FROM match_seats") == [(2 * MATCHES,)]
    # The same deals gave the same results as the local process pool.
    assert results(db) == results(local_db)
    # The manifest bot ran from an unpacked archive in the worker's cache, and its logs
    # came back to the runner's replay folder.
    logs = sorted((tmp_path / "replays-dask" / "dask").glob("m*-a*/first.stderr.log"))
    assert logs
    for log in logs:
        text = log.read_text()
        assert "/arena-bots/" in text and str(manifest.parent) not in text, text
    replays = {path.name for path in (tmp_path / "replays-dask" / "dask").glob("*.jsonl")}
    recorded = {Path(str(row[0])).name for row in read(db, "SELECT replay FROM matches")}
    assert recorded <= replays and len(recorded) == MATCHES
