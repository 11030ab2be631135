"""Benchmark the ``strong`` sample bot against ``greedy`` in duplicate games of Gin Rummy.

Run:  python benchmarks/bench_strong.py [--games N] [--quick] [--seed S] [--workers W]

Whole games to 100 under the ``standard`` rules, played in-process (the policies are
called directly, no gRPC).  Games come in duplicate pairs: for each game seed both
seatings are played, so each bot gets the same first deal from the same seat and the
luck of the deck largely cancels.  (Deal ``k`` of a game is the same deck whatever
the seats; who deals after the first hand depends on who wins, so the two games of
a pair drift apart, as in duplicate Gin played over the table.)

Reports strong's game win rate with a 95% Wilson interval, points per game for
each side, and milliseconds per decision (mean and max) for each bot.
"""

from __future__ import annotations

import argparse
import multiprocessing
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.games.gin_rummy import STANDARD, Action, GinGame, GinObservation
from arena.policies import greedy_gin
from arena.referee.results import wilson_interval

try:
    from arena_sample_bots.strong import StrongPolicy
except ImportError:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sample_bots" / "python"))
    from arena_sample_bots.strong import StrongPolicy

Policy = Callable[[GinObservation, Sequence[Action], random.Random], Action]

MAX_DEALS = 200  # a safety net: games between these bots end in about ten deals


@dataclass
class Tally:
    """What one side did over some games."""

    games: int = 0
    wins: int = 0
    ties: int = 0
    points: int = 0  # game totals (hand points toward the target)
    decisions: int = 0
    seconds: float = 0.0
    max_seconds: float = 0.0
    hands: int = 0

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.wins += other.wins
        self.ties += other.ties
        self.points += other.points
        self.decisions += other.decisions
        self.seconds += other.seconds
        self.max_seconds = max(self.max_seconds, other.max_seconds)
        self.hands += other.hands


@dataclass
class PairResult:
    strong: Tally = field(default_factory=Tally)
    greedy: Tally = field(default_factory=Tally)


def make_strong() -> Policy:
    return StrongPolicy()


def play_game(seed: int, strong_seat: int, make: Callable[[], Policy] = make_strong) -> PairResult:
    """One game: ``strong`` in ``strong_seat``, ``greedy`` in the other seat."""
    game = GinGame(STANDARD, seed, max_deals=MAX_DEALS)
    policies: list[Policy] = [greedy_gin, greedy_gin]
    policies[strong_seat] = make()
    rng = random.Random(seed)
    result = PairResult()
    tallies = [result.greedy, result.greedy]
    tallies[strong_seat] = result.strong
    clock = time.perf_counter
    while not game.is_terminal():
        seat = game.current_seat()
        assert seat is not None
        observation = game.observation(seat)
        legal = game.legal_actions()
        start = clock()
        action = policies[seat](observation, legal, rng)
        elapsed = clock() - start
        tally = tallies[seat]
        tally.decisions += 1
        tally.seconds += elapsed
        if elapsed > tally.max_seconds:
            tally.max_seconds = elapsed
        game.apply(action, seat)
    summary = game.summary
    assert summary is not None
    for seat, tally in ((strong_seat, result.strong), (1 - strong_seat, result.greedy)):
        tally.games = 1
        tally.points = summary.totals[seat]
        tally.hands = len(game.results)
        if summary.winner is None:
            tally.ties = 1
        elif summary.winner == seat:
            tally.wins = 1
    return result


def play_pair(seed: int) -> PairResult:
    """The duplicate pair of games for one seed: strong in seat 0, then in seat 1."""
    total = PairResult()
    for strong_seat in (0, 1):
        result = play_game(seed, strong_seat)
        total.strong.add(result.strong)
        total.greedy.add(result.greedy)
    return total


def run(pairs: int, seed: int, workers: int) -> tuple[PairResult, float]:
    seeds = [seed + i for i in range(pairs)]
    total = PairResult()
    started = time.perf_counter()
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results: Any = pool.imap_unordered(play_pair, seeds, chunksize=4)
            for result in results:
                total.strong.add(result.strong)
                total.greedy.add(result.greedy)
    else:
        for s in seeds:
            result = play_pair(s)
            total.strong.add(result.strong)
            total.greedy.add(result.greedy)
    return total, time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games (two per duplicate pair)")
    parser.add_argument("--quick", action="store_true", help="200 games")
    parser.add_argument("--seed", type=int, default=1, help="first game seed")
    parser.add_argument("--workers", type=int, default=2, help="processes (1: no pool)")
    args = parser.parse_args(argv)
    games = 200 if args.quick else args.games
    pairs = max(1, games // 2)

    total, seconds = run(pairs, args.seed, args.workers)
    strong, greedy = total.strong, total.greedy
    n = strong.games
    score = strong.wins + 0.5 * strong.ties
    low, high = wilson_interval(score, n)

    def ms(tally: Tally) -> tuple[str, str]:
        mean = tally.seconds / tally.decisions * 1000 if tally.decisions else 0.0
        return f"{mean:.2f}", f"{tally.max_seconds * 1000:.1f}"

    print(f"# strong vs greedy, duplicate games ({'quick' if args.quick else 'full'})")
    print()
    print(
        f"Python {platform.python_version()} on {platform.machine()}; rules `standard` "
        f"(games to 100); seeds {args.seed}..{args.seed + pairs - 1}, both seatings each; "
        f"{args.workers} worker(s)"
    )
    print()
    rows = []
    for name, tally in (("strong", strong), ("greedy", greedy)):
        rate = (tally.wins + 0.5 * tally.ties) / n if n else 0.0
        lo, hi = wilson_interval(tally.wins + 0.5 * tally.ties, n)
        mean_ms, max_ms = ms(tally)
        rows.append(
            (
                name,
                str(tally.games),
                str(tally.wins),
                f"{rate:.1%} [{lo:.1%}, {hi:.1%}]",
                f"{tally.points / n:.1f}" if n else "n/a",
                f"{tally.decisions / n:.0f}" if n else "n/a",
                mean_ms,
                max_ms,
            )
        )
    header = (
        "bot",
        "games",
        "wins",
        "game win rate [95% Wilson]",
        "points/game",
        "decisions/game",
        "ms/decision mean",
        "ms/decision max",
    )
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
    print()
    ties = f", {strong.ties} tied" if strong.ties else ""
    print(
        f"strong won {strong.wins} of {n} games{ties}: {score / n:.1%} "
        f"(95% Wilson {low:.1%}-{high:.1%}); hands per game {strong.hands / n:.1f}"
    )
    print(f"measured in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
