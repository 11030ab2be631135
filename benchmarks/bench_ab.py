"""The engines' cost per action, this tree against another checkout, interleaved.

Run:  python benchmarks/bench_ab.py BASELINE [--rounds N] [--hands H]

BASELINE is another checkout of the project (e.g. ``git worktree add /tmp/base main``).
Each round runs the same fixed work once in each tree, in separate processes, one
after the other (which goes first alternates): random-vs-random Gin Rummy hands and
Basic Rummy hands at 2 and 6 seats (standard and jokers rules), every seat playing a
seeded random legal action, ``legal_actions()`` listed before every decision as the
referee does.  It prints the CPU microseconds per action of each tree in every round
and the median over rounds of the per-round ratio (this tree / baseline; below 1 is
faster), and each tree's cost per action at 6 seats over its cost at 2 (Basic
Rummy should cost no more per action with more seats).  CPU time, not wall time:
the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# Runs inside each tree: fixed seeds, CPU seconds per action.
_WORK = """
import json, random, sys, time
from arena.games.gin_rummy import STANDARD, GinHand
from arena.games.rummy import PRESETS, RummyHand
hands = int(sys.argv[1])
out = {}
def run(make):
    rng = random.Random(7)
    actions = 0
    start = time.process_time()
    for seed in range(hands):
        hand = make(seed)
        while not hand.is_terminal():
            legal = hand.legal_actions()
            hand.apply(legal[rng.randrange(len(legal))])
            actions += 1
    return (time.process_time() - start) / actions * 1e6
out["gin"] = run(lambda seed: GinHand.from_seed(STANDARD, seed, seed % 2))
for rules in ("standard", "jokers"):
    for seats in (2, 6):
        out[f"rummy {rules} {seats}"] = run(
            lambda seed: RummyHand.from_seed(PRESETS[rules], seed, seats, dealer=seed % seats)
        )
print(json.dumps(out))
"""


def measure(tree: Path, hands: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", _WORK, str(hands)],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("baseline", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hands", type=int, default=40, help="hands per game kind per round")
    args = parser.parse_args()
    ratios: dict[str, list[float]] = {}
    seat_ratios: dict[str, list[float]] = {}  # "tree rules": 6 seats / 2 seats, per round
    for number in range(args.rounds):
        trees = [("baseline", args.baseline.resolve()), ("this", HERE)]
        if number % 2:
            trees.reverse()
        got = {name: measure(tree, args.hands) for name, tree in trees}
        for name, timings in got.items():
            for rules in ("standard", "jokers"):
                ratio = timings[f"rummy {rules} 6"] / timings[f"rummy {rules} 2"]
                seat_ratios.setdefault(f"{name}, {rules}", []).append(ratio)
        for key in got["this"]:
            ratio = got["this"][key] / got["baseline"][key]
            ratios.setdefault(key, []).append(ratio)
            print(
                f"round {number + 1}  {key:<20} baseline {got['baseline'][key]:7.1f} us/action"
                f"  this {got['this'][key]:7.1f}  ratio {ratio:.3f}"
            )
    print()
    print("| engine, us of CPU per action | this / baseline, median of rounds (min-max) |")
    print("|---|---|")
    for key, values in ratios.items():
        print(f"| {key} | {statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f}) |")
    print()
    print("| Basic Rummy, us per action at 6 seats / at 2 | median of rounds (min-max) |")
    print("|---|---|")
    for key, values in seat_ratios.items():
        print(f"| {key} | {statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
