"""Benchmark the Basic Rummy engine: random-play hands per second for 2, 4 and 6 players.

Run:  python benchmarks/bench_rummy.py [--quick] [--rounds N] [--seconds S] [--seed S]

Every seat plays a uniformly random legal action (``legal_actions()`` is computed
for every decision, as the referee does) until the hand is over.  Each
measurement runs for ``--seconds`` per round over several rounds and prints the
MEDIAN with the spread of the rounds.  Rule sets: ``standard`` (no wild cards) and
``jokers`` (wild jokers: more meld options per decision).  With 6 players the deal
uses two decks and 10-card hands.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence

from arena.games.rummy import PRESETS, RummyHand, RummyRules


def play_hand(rules: RummyRules, players: int, seed: int, rng: random.Random) -> tuple[int, int]:
    """One random hand; (actions taken, legal actions listed in all)."""
    hand = RummyHand.from_seed(rules, seed, players, dealer=seed % players)
    actions = 0
    listed = 0
    while not hand.is_terminal():
        legal = hand.legal_actions()
        listed += len(legal)
        hand.apply(legal[rng.randrange(len(legal))])
        actions += 1
    return actions, listed


def measure(
    rules: RummyRules, players: int, seed: int, seconds: float
) -> tuple[float, float, float]:
    """Hands for at least ``seconds``: (hands/s, actions/s, mean legal actions per decision)."""
    rng = random.Random(seed)
    hands = actions = listed = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        done, shown = play_hand(rules, players, seed * 1_000_003 + hands, rng)
        hands += 1
        actions += done
        listed += shown
        elapsed = time.perf_counter() - start
    return hands / elapsed, actions / elapsed, listed / actions


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short run (a few seconds)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per measurement")
    parser.add_argument("--seconds", type=float, default=None, help="seconds per round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--presets", default="standard,jokers", help="comma-separated rule sets to measure"
    )
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 5)
    seconds = args.seconds or (0.3 if args.quick else 1.0)
    presets = [name.strip() for name in args.presets.split(",") if name.strip()]
    print(
        f"Basic Rummy random play: Python {platform.python_version()} on {platform.machine()}, "
        f"{rounds} rounds x {seconds:g} s, median (min-max)"
    )
    header = f"{'rules':<12}{'players':>8}{'hands/s':>20}{'actions/s':>22}{'legal/decision':>16}"
    print(header)
    print("-" * len(header))
    for name in presets:
        rules = PRESETS[name]
        for players in (2, 4, 6):
            per_round = [measure(rules, players, args.seed + r, seconds) for r in range(rounds)]
            hands = [m[0] for m in per_round]
            actions = [m[1] for m in per_round]
            legal = statistics.fmean(m[2] for m in per_round)
            hands_cell = f"{statistics.median(hands):.0f} ({min(hands):.0f}-{max(hands):.0f})"
            actions_cell = (
                f"{statistics.median(actions):.0f} ({min(actions):.0f}-{max(actions):.0f})"
            )
            print(f"{name:<12}{players:>8}{hands_cell:>20}{actions_cell:>22}{legal:>16.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
