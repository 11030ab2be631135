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

The ratios are medians of each round's own ratio (paired), with their quartiles.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
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


MEASURES = {"request": request_and_apply, "alone": referee_alone}
for measure in MEASURES.values():
    measure()  # warm up
for line in sys.stdin:
    print(MEASURES[line.strip()](), flush=True)
"""

LABELS = {
    "request": "request + apply, no event loop: µs per decision",
    "alone": "referee alone, instant in-process replies: µs per decision",
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("base", type=Path, help="the other checkout (its top directory)")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    trees = {"base": args.base.resolve(), "this": HERE.parent}
    if not (trees["base"] / "arena").is_dir():
        sys.exit(f"{trees['base']}: no arena/ package there (give a checkout's top directory)")
    workers = {
        name: subprocess.Popen(
            [sys.executable, "-c", _WORKER],
            cwd=tree,
            env={"PYTHONPATH": str(tree)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name, tree in trees.items()
    }
    results = {(name, key): [] for name in trees for key in LABELS}
    try:
        for number in range(args.rounds):
            order = ["base", "this"] if number % 2 else ["this", "base"]
            for key in LABELS:
                for name in order:
                    worker = workers[name]
                    assert worker.stdin is not None and worker.stdout is not None
                    worker.stdin.write(key + "\n")
                    worker.stdin.flush()
                    answer = worker.stdout.readline()
                    if not answer:
                        sys.exit(f"the worker in {trees[name]} stopped (see its error above)")
                    results[name, key].append(float(answer))
    finally:
        for worker in workers.values():
            if worker.stdin is not None:
                worker.stdin.close()
            worker.wait()
    print(f"{args.rounds} rounds; base: {trees['base']}")
    print("| measurement | base | this | this / base (quartiles) |")
    print("|---|---|---|---|")
    for key, label in LABELS.items():
        base, this = results["base", key], results["this", key]
        ratios = [new / old for new, old in zip(this, base, strict=True)]
        low, middle, high = statistics.quantiles(ratios, n=4)
        print(
            f"| {label} | {statistics.median(base):.1f} | {statistics.median(this):.1f} "
            f"| {middle:.2f} ({low:.2f}-{high:.2f}) |"
        )


if __name__ == "__main__":
    main()
