"""The referee's own work per decision: this checkout against another one.

    git worktree add /tmp/base <commit>
    python benchmarks/compare_referee.py /tmp/base

Two worker processes, one per checkout (each imports its own ``arena``), take turns
round after round, so that a noisy spell on a shared machine hits both alike.  Each
round measures, in microseconds per decision:

* request + apply: a whole Gin game (seed 1, at most 200 deals, the first legal
  action every time) driven through the referee's table, no event loop: the
  decision request is encoded, the action applied, finished hands collected;
* referee alone: the same game played by ``play_match`` against connections that
  answer at once in the referee's own process (the match loop, clocks and records
  too, but no transport).

With ``--match``, each round also plays one match over gRPC against two trivial bots
(this checkout's ``trivial_bot.py``, shared by both workers) and times bare round
trips to the asyncio echo server (``bare_bot_asyncio.py``), as ``bench_protocol.py``
does: decisions per second, and their share of the bare rate in that round.

The ratios are medians of each round's own ratio (paired), with their quartiles.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Runs inside each checkout; only uses what every version of the referee has had.
_WORKER = r"""
import sys, time
from arena.games.registry import find_game
from arena.proto import bot_pb2 as pb
from arena.protocol import codec_for
from arena.referee.match import MatchConfig, Seat, play_match

SPEC = find_game("gin-rummy/standard")
CODEC = codec_for(SPEC.id)


def request_and_apply():
    table = CODEC.new_table(SPEC.id, SPEC.new_game(1, 2, hands_only=False, max_deals=200))
    decisions = 0
    started = time.perf_counter()
    while not table.is_terminal():
        table.hand_started()
        seat = table.current_seat()
        decisions += 1
        table.decision_bytes(seat, 0, decisions, 1000, 60000)
        table.apply(table.legal[0], seat)
        table.finished_hands(0)
    return (time.perf_counter() - started) / decisions * 1e6


class Instant:
    info = pb.HandshakeReply(name="instant", protocol_version=1, games=["*"])

    async def start_match(self): pass
    async def send(self, message): pass
    async def end_match(self): pass
    def close(self): pass

    async def decide(self, message, request_id, timeout):
        return pb.DecisionReply(request_id=request_id, legal_index=0)


def referee_alone():
    seats = [Seat(Instant(), f"bot{seat}") for seat in (0, 1)]
    started = time.perf_counter()
    result = play_match(MatchConfig(SPEC, games=1, seed=1, max_deals=200), seats)
    decisions = sum(len(seat.decision_seconds) for seat in result.seats)
    return (time.perf_counter() - started) / decisions * 1e6


def match():
    from arena.hosting.connection import GrpcConnection

    connections = [GrpcConnection(address, f"bot{i}") for i, address in enumerate(ADDRESSES)]
    for connection in connections:
        connection.wait_ready(10)
    seats = [Seat(connection, f"bot{i}") for i, connection in enumerate(connections)]
    started = time.perf_counter()
    result = play_match(MatchConfig(SPEC, games=1, seed=1, max_deals=200), seats)
    elapsed = time.perf_counter() - started
    for connection in connections:
        connection.close()
    return sum(len(seat.decision_seconds) for seat in result.seats) / elapsed


ADDRESSES = sys.argv[1:]
MEASURES = {"request": request_and_apply, "alone": referee_alone, "match": match}
for name, measure in MEASURES.items():
    if ADDRESSES or name != "match":
        measure()  # warm up
for line in sys.stdin:
    print(MEASURES[line.strip()](), flush=True)
"""

LABELS = {
    "request": "request + apply, no event loop: µs per decision",
    "alone": "referee alone, instant in-process replies: µs per decision",
    "match": "match over gRPC, 2 trivial bots: decisions per second",
    "share": "the match's share of bare round trips (asyncio echo server)",
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("base", type=Path, help="the other checkout (its top directory)")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--match", action="store_true", help="also a match over gRPC")
    args = parser.parse_args()
    trees = {"base": args.base.resolve(), "this": HERE.parent}
    if not (trees["base"] / "arena").is_dir():
        sys.exit(f"{trees['base']}: no arena/ package there (give a checkout's top directory)")
    keys = ["request", "alone", *(["match"] if args.match else [])]
    with contextlib.ExitStack() as stack:
        addresses, bare_rate = _bots(stack) if args.match else ([], None)
        results = _measure(trees, keys, addresses, args.rounds, bare_rate)
    print(f"{args.rounds} rounds; base: {trees['base']}")
    print("| measurement | base | this | this / base (quartiles) |")
    print("|---|---|---|---|")
    for key in [*keys, *(["share"] if args.match else [])]:
        base, this = results["base", key], results["this", key]
        ratios = [new / old for new, old in zip(this, base, strict=True)]
        low, middle, high = statistics.quantiles(ratios, n=4)
        digits = 0 if key == "match" else 2 if key == "share" else 1
        print(
            f"| {LABELS[key]} | {statistics.median(base):.{digits}f} "
            f"| {statistics.median(this):.{digits}f} | {middle:.2f} ({low:.2f}-{high:.2f}) |"
        )


def _bots(stack: contextlib.ExitStack) -> tuple[list[str], Callable[[], float]]:
    """Two trivial bots and the asyncio echo server, for the whole run."""
    sys.path.insert(0, str(HERE))
    import bench_protocol as bench

    run_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-compare-")))
    bots = [bench.start("trivial_bot.py", f"trivial{i}", run_dir) for i in range(2)]
    bare = bench.start("bare_bot_asyncio.py", "bare-asyncio", run_dir)
    for process in [*bots, bare]:
        stack.callback(process.kill)
    requests = bench.sample_requests(6000)
    return [bot.address for bot in bots], lambda: bench.bare_stream_rate([bare.address], requests)


def _measure(
    trees: dict[str, Path],
    keys: list[str],
    addresses: list[str],
    rounds: int,
    bare_rate: Callable[[], float] | None,
) -> dict[tuple[str, str], list[float]]:
    workers = {
        name: subprocess.Popen(
            [sys.executable, "-c", _WORKER, *addresses],
            cwd=tree,
            env={"PYTHONPATH": str(tree)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name, tree in trees.items()
    }
    results: dict[tuple[str, str], list[float]] = {
        (name, key): [] for name in trees for key in [*keys, "share"]
    }
    try:
        for number in range(rounds):
            order = ["base", "this"] if number % 2 else ["this", "base"]
            for key in keys:
                for name in order:
                    worker = workers[name]
                    assert worker.stdin is not None and worker.stdout is not None
                    worker.stdin.write(key + "\n")
                    worker.stdin.flush()
                    answer = worker.stdout.readline()
                    if not answer:
                        sys.exit(f"the worker in {trees[name]} stopped (see its error above)")
                    results[name, key].append(float(answer))
            if bare_rate is not None:
                bare = bare_rate()
                for name in trees:
                    results[name, "share"].append(results[name, "match"][-1] / bare)
    finally:
        for worker in workers.values():
            if worker.stdin is not None:
                worker.stdin.close()
            worker.wait()
    return results


if __name__ == "__main__":
    main()
