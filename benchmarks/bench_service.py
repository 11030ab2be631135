"""The competition service measured: an idle runner's CPU, how soon a new bot plays, and
how many results the runner records while 20 clients read the web API.

Run:  python benchmarks/bench_service.py [--quick] [--rounds R] [--matches N]

Everything is the installed ``arena`` command in subprocesses, as an operator runs it:

1. **Idle runner.** ``arena ladder run DB --forever`` on a ladder with one bot (nothing
   to play): its CPU time over ``--idle`` seconds, as a share of one core.
2. **A new bot's first match.** ``arena ladder add DB random`` to that idle runner: the
   seconds until the new bot's first match is recorded, beside that match's own
   duration (started to finished, from the database). The difference is what the
   arena adds: waking, scheduling, starting the bots.
3. **Capacity.** ``arena ladder run DB --matches N`` on a greedy-vs-random ladder
   (one hand a match, bots as processes, replays written), timed alone and while 20
   threads read ``/api/leaderboard``, ``/api/matches`` and ``/api/matches/live`` from
   ``arena serve`` on the same database as fast as it answers. Rounds alternate
   (alone, loaded), and the table shows every round's matches a second and the ratio
   loaded / alone, with the median ratio. Also: database and replay bytes a match.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tables import print_table

ARENA = Path(sys.executable).parent / "arena"

LADDER = """\
name = "{name}"
game = "gin-rummy/standard"
[schedule]
kind = "continuous"
duplicate = false
[match]
games = 1
hands_only = true
[run]
concurrency = 1
sandbox = "none"
replays = "replays"
[[bots]]
name = "greedy"
{more}"""


def create(folder: Path, name: str, more: str = "") -> Path:
    folder.mkdir(parents=True)
    (folder / "ladder.toml").write_text(LADDER.format(name=name, more=more))
    db = folder / "ladder.sqlite"
    subprocess.run(
        [str(ARENA), "ladder", "create", str(folder / "ladder.toml"), "--db", str(db)],
        check=True, capture_output=True,
    )  # fmt: skip
    return db


def scalar(db: Path, query: str) -> object:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as connection:
        return connection.execute(query).fetchone()[0]


def wait_for(predicate: object, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise TimeoutError("the runner did not get there")
        time.sleep(0.02)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_and_wake(folder: Path, idle_seconds: float) -> tuple[float, float, float]:
    db = create(folder, "idle")
    runner = subprocess.Popen(
        [str(ARENA), "ladder", "run", str(db), "--forever", "--quiet"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for(lambda: scalar(db, "SELECT COUNT(*) FROM runner WHERE state = 'idle'") == 1)
        time.sleep(1)  # past its start
        before, started = cpu_seconds(runner.pid), time.monotonic()
        time.sleep(idle_seconds)
        share = (cpu_seconds(runner.pid) - before) / (time.monotonic() - started)
        added = time.monotonic()
        subprocess.run(
            [str(ARENA), "ladder", "add", str(db), "random"], check=True, capture_output=True
        )
        wait_for(lambda: scalar(db, "SELECT COUNT(*) FROM matches WHERE status = 'finished'"))
        latency = time.monotonic() - added
        duration = scalar(
            db,
            "SELECT (julianday(finished) - julianday(started)) * 86400 FROM matches "
            "WHERE status = 'finished' ORDER BY id LIMIT 1",
        )
        return share, latency, float(duration)  # type: ignore[arg-type]
    finally:
        runner.send_signal(signal.SIGTERM)
        runner.wait(60)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def readers(url: str, count: int, stop: threading.Event) -> list[int]:
    answered = [0] * count
    paths = ["/api/leaderboard", "/api/matches?limit=20", "/api/matches/live"]

    def read(index: int) -> None:
        while not stop.is_set():
            path = paths[index % len(paths)]
            try:
                with urllib.request.urlopen(url + path, timeout=30) as response:
                    response.read()
                answered[index] += 1
            except OSError:
                time.sleep(0.05)

    threads = [threading.Thread(target=read, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    return answered


def timed_run(db: Path, matches: int) -> float:
    started = time.perf_counter()
    subprocess.run(
        [str(ARENA), "ladder", "run", str(db), "--matches", str(matches), "--quiet",
         "--no-leaderboard"],
        check=True, capture_output=True,
    )  # fmt: skip
    return matches / (time.perf_counter() - started)


def capacity(folder: Path, rounds: int, matches: int, clients: int) -> list[list[str]]:
    db = create(folder, "capacity", '[[bots]]\nname = "random"\n')
    port = free_port()
    server = subprocess.Popen(
        [str(ARENA), "serve", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    rows = []
    ratios = []
    try:
        wait_for(lambda: _answers(url), 60)
        timed_run(db, 2)  # warm: the fork server, the page cache
        for number in range(1, rounds + 1):
            alone = timed_run(db, matches)
            stop = threading.Event()
            answered = readers(url, clients, stop)
            try:
                loaded = timed_run(db, matches)
            finally:
                stop.set()
            ratio = loaded / alone
            ratios.append(ratio)
            rows.append(
                [str(number), f"{alone:.2f}", f"{loaded:.2f}", f"{ratio:.2f}",
                 f"{sum(answered) / (matches / loaded):.0f}"]
            )  # fmt: skip
        rows.append(["median", "", "", f"{statistics.median(ratios):.2f}", ""])
    finally:
        server.terminate()
        server.wait(30)
    played = int(scalar(db, "SELECT COUNT(*) FROM matches WHERE status = 'finished'"))  # type: ignore[call-overload]
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    replays = sum(path.stat().st_size for path in (folder / "replays").rglob("*.jsonl"))
    logs = sum(path.stat().st_size for path in (folder / "replays").rglob("*.log"))
    rows.append(["bytes a match", f"database {db.stat().st_size / played:.0f}",
                 f"replay {replays / played:.0f}", f"bot logs {logs / played:.0f}", ""])  # fmt: skip
    return rows


def recording(folder: Path, records: int, clients: int, rounds: int) -> list[list[str]]:
    """What one SQLite file takes: ``LadderStore.record`` (the runner's whole write for a
    finished match: result, seats, counts, the unit's rating update) in a loop, alone and
    while ``clients`` threads read the API, on a ladder that grows by ``records`` a round."""
    from arena.referee.results import MatchResult
    from arena.storage import LadderStore

    db = create(folder, "recording", '[[bots]]\nname = "random"\n')
    subprocess.run(
        [str(ARENA), "ladder", "run", str(db), "--matches", "1", "--quiet", "--no-leaderboard"],
        check=True, capture_output=True,
    )  # fmt: skip
    with closing(sqlite3.connect(db)) as connection:
        text = connection.execute(
            "SELECT result FROM matches WHERE status = 'finished'"
        ).fetchone()[0]
    result = MatchResult.from_json(json.loads(text))
    port = free_port()
    server = subprocess.Popen(
        [str(ARENA), "serve", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    store = LadderStore.open(db)
    rows, ratios = [], []
    unit = 0

    def record_many() -> float:
        nonlocal unit
        started = time.perf_counter()
        for _ in range(records):
            unit += 1
            store.add_unit(f"bench:{unit}", unit, [[seat.name for seat in result.seats]])
            match = store.take_next()
            assert match is not None
            store.record(match.id, result, None, 3)
        return records / (time.perf_counter() - started)

    try:
        wait_for(lambda: _answers(url), 60)
        for number in range(1, rounds + 1):
            alone = record_many()
            stop = threading.Event()
            readers(url, clients, stop)
            try:
                loaded = record_many()
            finally:
                stop.set()
            ratios.append(loaded / alone)
            rows.append([str(number), f"{alone:.0f}", f"{loaded:.0f}", f"{loaded / alone:.2f}"])
        rows.append(["median", "", "", f"{statistics.median(ratios):.2f}"])
        played = int(scalar(db, "SELECT COUNT(*) FROM matches WHERE status = 'finished'"))  # type: ignore[call-overload]
        rows.append(["matches in the ladder at the end", str(played), "", ""])
    finally:
        store.close()
        server.terminate()
        server.wait(30)
    return rows


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/api/leaderboard", timeout=5):
            return True
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tiny run: does it work?")
    parser.add_argument("--rounds", type=int, default=5, help="capacity rounds (default 5)")
    parser.add_argument("--matches", type=int, default=40, help="matches a timed run (default 40)")
    parser.add_argument("--clients", type=int, default=20, help="API readers (default 20)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds to watch an idle runner")
    parser.add_argument(
        "--records", type=int, default=2000, help="results recorded a timed run (default 2000)"
    )
    options = parser.parse_args()
    if options.quick:
        options.rounds, options.matches, options.idle, options.records = 1, 4, 1.0, 50
    with tempfile.TemporaryDirectory() as scratch:
        share, latency, duration = idle_and_wake(Path(scratch) / "idle", options.idle)
        print(f"\nIdle runner and a new bot ({options.idle:g} s watched)\n")
        print_table(
            ["measure", "value"],
            [
                ["idle runner: share of one core", f"{share:.2%}"],
                ["bot added -> its first match recorded (s)", f"{latency:.2f}"],
                ["that match's own duration (s)", f"{duration:.2f}"],
                ["what the arena added (s)", f"{latency - duration:.2f}"],
            ],
        )
        rows = capacity(
            Path(scratch) / "capacity", options.rounds, options.matches, options.clients
        )
        print(
            f"\nCapacity: matches a second recorded, alone and with {options.clients} API readers\n"
        )
        print_table(["round", "alone", "with readers", "ratio", "API answers a match"], rows)
        rows = recording(
            Path(scratch) / "recording", options.records, options.clients, options.rounds
        )
        print(
            f"\nOne SQLite file: results recorded a second (LadderStore.record, {options.records} "
            f"a run), alone and with {options.clients} API readers\n"
        )
        print_table(["round", "alone", "with readers", "ratio"], rows)


if __name__ == "__main__":
    main()
