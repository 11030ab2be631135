"""Benchmark our Gin Rummy engine against OpenSpiel's ``gin_rummy`` (via ``pyspiel``).

Run:  python benchmarks/bench_engine.py [--quick] [--rounds N] [--seed S]

Measures, in one run, each over several rounds, and prints the MEDIAN:

* random-vs-random full hands per second: every seat plays a uniformly random
  legal action until the hand is over.  For OpenSpiel a "hand" is one episode to
  a terminal state, its chance nodes (the deal and the stock) sampled uniformly.
* microseconds per minimum-deadwood computation of a 10-card hand: ours
  (``min_deadwood`` on a ``CardSet`` and ``deadwood_of_mask`` on an int mask) and
  OpenSpiel's ``GinRummyUtils.min_deadwood``, on the same pre-generated random
  hands.

OpenSpiel is optional: without ``pyspiel`` its column reads "n/a".
"""

from __future__ import annotations

import argparse
import importlib
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from flavour import flavour
from tables import print_table  # benchmarks/tables.py: scripts run from their folder

from arena.cards.card import Card, CardSet
from arena.cards.melds import deadwood_of_mask, min_deadwood
from arena.games.gin_rummy import STANDARD, GinHand

pyspiel: Any
try:
    pyspiel = importlib.import_module("pyspiel")
except ImportError:  # OpenSpiel is only a reference
    pyspiel = None


def to_openspiel(index: int) -> int:
    """Our card index (suits C, D, H, S) -> OpenSpiel's (suits s, c, d, h); ranks agree."""
    return (index + 13) % 52


@dataclass
class Measure:
    """One quantity measured once per round."""

    values: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def spread(self, fmt: str) -> str:
        return f"{min(self.values):{fmt}}-{max(self.values):{fmt}}"


# --- full hands, random vs random ---------------------------------------------


def play_ours(seed: int, rng: random.Random) -> int:
    """One random-vs-random hand of our engine; returns the number of actions taken."""
    hand = GinHand.from_seed(STANDARD, seed, dealer=seed & 1)
    actions = 0
    while not hand.is_terminal():
        legal = hand.legal_actions()
        hand.apply(legal[rng.randrange(len(legal))])
        actions += 1
    return actions


def play_openspiel(game: Any, rng: random.Random) -> int:
    """One OpenSpiel episode to terminal; returns the number of player (non-chance) actions."""
    state = game.new_initial_state()
    actions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            actions += 1
    return actions


def hands_per_second(
    play: Callable[[int, random.Random], int], seed: int, min_seconds: float
) -> tuple[float, float]:
    """Play hands for at least ``min_seconds``; (hands per second, mean actions per hand)."""
    rng = random.Random(seed)
    hands = 0
    actions = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < min_seconds:
        actions += play(seed * 1_000_003 + hands, rng)
        hands += 1
        elapsed = time.perf_counter() - start
    return hands / elapsed, actions / hands


# --- minimum deadwood of 10-card hands -----------------------------------------


def time_per_call(fn: Callable[[Any], object], inputs: Sequence[Any]) -> float:
    """Microseconds per ``fn(x)`` over ``inputs`` (loop overhead included, same for all)."""
    start = time.perf_counter()
    for x in inputs:
        fn(x)
    return (time.perf_counter() - start) / len(inputs) * 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short run (a few seconds)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per measurement")
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args(argv)

    rounds = args.rounds or (3 if args.quick else 5)
    play_seconds = 0.3 if args.quick else 4.0  # per round, per engine
    n_hands10 = 2_000 if args.quick else 30_000

    rng = random.Random(args.seed)
    indices = [rng.sample(range(52), 10) for _ in range(n_hands10)]
    card_sets = [CardSet.of(Card(i) for i in hand) for hand in indices]
    masks = [cs.mask for cs in card_sets]
    os_hands = [[to_openspiel(i) for i in hand] for hand in indices]

    game = utils = None
    if pyspiel is not None:
        game = pyspiel.load_game("gin_rummy")
        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
        # Same hands, same answers: a quick guard that the benchmark compares like with like.
        for cs, os_hand in zip(card_sets[:500], os_hands[:500], strict=True):
            assert min_deadwood(cs) == utils.min_deadwood(os_hand), str(cs)

    ours_hps, ours_len, os_hps, os_len = [], [], [], []
    ours_md, ours_mask, os_md = [], [], []
    started = time.perf_counter()
    for r in range(rounds):
        hps, length = hands_per_second(play_ours, args.seed + r, play_seconds)
        ours_hps.append(hps)
        ours_len.append(length)
        if game is not None:
            hps, length = hands_per_second(
                lambda _seed, g_rng: play_openspiel(game, g_rng), args.seed + r, play_seconds
            )
            os_hps.append(hps)
            os_len.append(length)
        ours_md.append(time_per_call(min_deadwood, card_sets))
        ours_mask.append(time_per_call(deadwood_of_mask, masks))
        if utils is not None:
            os_md.append(time_per_call(utils.min_deadwood, os_hands))
    total = time.perf_counter() - started

    def cell(values: list[float], fmt: str) -> str:
        if not values:
            return "n/a"
        m = Measure(values)
        return f"{m.median:{fmt}} ({m.spread(fmt)})"

    def ratio(ours: list[float], theirs: list[float]) -> str:
        if not ours or not theirs:
            return "n/a"
        return f"{statistics.median(ours) / statistics.median(theirs):.2f}"

    os_version = "not installed"
    if pyspiel is not None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            os_version = "open-spiel " + version("open-spiel")
        except PackageNotFoundError:
            os_version = "pyspiel (version unknown)"

    print(f"# Rummy Arena engine benchmark ({'quick' if args.quick else 'full'})")
    print()
    print(f"Python {platform.python_version()} on {platform.machine()}; OpenSpiel: {os_version}")
    print(f"arena: {flavour()}")
    print(f"{rounds} rounds; median (min-max over rounds); seed {args.seed};")
    print(
        f"full hands: >= {play_seconds:g} s of play per round and engine; "
        f"min deadwood: {n_hands10:,} random 10-card hands per round"
    )
    print()
    rows = [
        (
            "random-vs-random full hands / s (higher is better)",
            cell(ours_hps, ",.0f"),
            cell(os_hps, ",.0f"),
            ratio(ours_hps, os_hps),
        ),
        (
            "  player actions per hand (mean)",
            cell(ours_len, ".1f"),
            cell(os_len, ".1f"),
            ratio(ours_len, os_len),
        ),
        (
            "min deadwood, 10 cards: ours `min_deadwood(CardSet)`, us/call",
            cell(ours_md, ".2f"),
            cell(os_md, ".2f"),
            ratio(ours_md, os_md),
        ),
        (
            "min deadwood, 10 cards: ours `deadwood_of_mask(int)`, us/call",
            cell(ours_mask, ".2f"),
            cell(os_md, ".2f"),
            ratio(ours_mask, os_md),
        ),
    ]
    header = ("measurement", "ours", "OpenSpiel", "ours/OpenSpiel")
    print_table(header, rows)
    print()
    print("ours/OpenSpiel: for hands/s above 1 means ours is faster; for us/call below 1 does.")
    print(f"measured in {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
