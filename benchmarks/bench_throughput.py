"""Matches per minute of a ladder of short matches: today's way against warm bots.

    python benchmarks/bench_throughput.py [--rounds N] [--base-commit REV]
    python benchmarks/bench_throughput.py --sweep [--levels 1,2,4,6]

The ladder is ``ladders/samples.toml``'s bots (random, greedy, strong, and js-starter
where node and its packages are installed), round-robin with duplicate deals (each
pairing twice, seats swapped), **one game a match**, at the sandbox level ``auto``
picks.  Each round plays it twice, the order flipping every round:

- **before**: the earlier commit's ``arena/`` (taken out with ``git archive``: seats
  started one after the other) with that commit's defaults (``concurrency = 0``: one
  match per CPU, every bot started for its match);
- **now**: this checkout with ``reuse_bots = true`` and its default concurrency.

Timed: ``arena ladder run`` from start to exit (the same command a user runs;
``ladder create`` is not timed).  Shown: every round's matches per minute each way and
their ratio, and the median of the per-round ratios.  Target: at least 2x.

``--sweep`` plays the ladder with warm bots at each concurrency in ``--levels``,
interleaved round by round, to choose the default from.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from checkouts import checkout, compiled, run_ladder

HERE = Path(__file__).resolve().parent
TOP = HERE.parent
DEFAULT_BASE = "9eb09b1"  # main before seats started together and bots stayed warm


def ladder_text(run: str, replays: Path, repeat: int) -> str:
    bots = ["random", "greedy", "strong"]
    text = (
        'name = "throughput"\ngame = "gin-rummy/standard"\n'
        f'[schedule]\nkind = "round-robin"\nrepeat = {repeat}\nduplicate = true\n'
        "[match]\ngames = 1\n"
        "[time_control]\nstartup_ms = 20000\ndecision_ms = 1000\nbank_ms = 10000\n"
        f'[run]\nsandbox = "auto"\nreplays = "{replays}"\n{run}'
    )
    text += "".join(f'[[bots]]\nname = "{bot}"\n' for bot in bots)
    js = TOP / "sample_bots" / "js"
    if shutil.which("node") and (js / "node_modules").is_dir():
        text += f'[[bots]]\nname = "js-starter"\nmanifest = "{js / "bot.toml"}"\n'
    return text


def play(code: Path, run: str, scratch: Path, repeat: int) -> tuple[int, float]:
    """Create and run the ladder with ``code``'s arena; (matches played, seconds)."""
    ran = run_ladder(code, lambda folder: ladder_text(run, folder / "replays", repeat), scratch)
    return ran.played, ran.seconds


def compare(args: argparse.Namespace, scratch: Path) -> None:
    base = checkout(args.base_commit, scratch)
    sides = {"before": (base, "concurrency = 0\n"), "now": (TOP, "reuse_bots = true\n")}
    print(
        f"ladder throughput, matches/min: {args.base_commit} (concurrency = 0, bots started "
        f"per match) vs this checkout (reuse_bots = true, default concurrency); "
        f"{os.cpu_count()} CPUs, {args.rounds} rounds"
    )
    print(f"{'round':<7}{'matches':>8}{'before':>9}{'now':>9}{'now/before':>12}")
    ratios = []
    for number in range(args.rounds):
        order = ["before", "now"] if number % 2 == 0 else ["now", "before"]
        rates: dict[str, float] = {}
        played = 0
        for side in order:
            code, run = sides[side]
            played, seconds = play(code, run, scratch, args.repeat)
            rates[side] = played / seconds * 60
        ratios.append(rates["now"] / rates["before"])
        print(
            f"{number + 1:<7}{played:>8}{rates['before']:>9.1f}{rates['now']:>9.1f}"
            f"{ratios[-1]:>11.2f}x"
        )
    print(f"median of per-round ratios: {statistics.median(ratios):.2f}x (target: at least 2x)")


def sweep(args: argparse.Namespace, scratch: Path) -> None:
    levels = [int(level) for level in args.levels.split(",")]
    print(
        f"warm bots (reuse_bots = true): matches/min by concurrency, {os.cpu_count()} CPUs, "
        f"{args.rounds} rounds, levels interleaved (order reversed every other round)"
    )
    print(f"{'round':<7}" + "".join(f"{f'c={level}':>9}" for level in levels))
    table: dict[int, list[float]] = {level: [] for level in levels}
    for number in range(args.rounds):
        order = levels if number % 2 == 0 else levels[::-1]
        for level in order:
            played, seconds = play(
                TOP, f"reuse_bots = true\nconcurrency = {level}\n", scratch, args.repeat
            )
            table[level].append(played / seconds * 60)
        print(f"{number + 1:<7}" + "".join(f"{table[level][-1]:>9.1f}" for level in levels))
    print(f"{'median':<7}" + "".join(f"{statistics.median(table[lv]):>9.1f}" for lv in levels))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-commit", default=DEFAULT_BASE)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sweep", action="store_true", help="matches/min by concurrency")
    parser.add_argument("--levels", default="1,2,3,4,6")
    parser.add_argument(
        "--repeat", type=int, default=1, help="each pairing's duplicate set this many times"
    )
    args = parser.parse_args()
    compiled(TOP)
    with tempfile.TemporaryDirectory() as scratch:
        (sweep if args.sweep else compare)(args, Path(scratch))


if __name__ == "__main__":
    main()
