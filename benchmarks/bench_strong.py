"""Benchmark the ``strong`` sample bot against ``simple`` and ``greedy`` in duplicate
games of Gin Rummy.

Run:  python benchmarks/bench_strong.py [--games N] [--quick] [--seed S] [--workers W]
                                        [--opponents simple,greedy]

Whole games to 100 under the ``standard`` rules, played in-process (the policies are
called directly, no gRPC).  Games come in duplicate pairs: for each game seed both
seatings are played, so each bot gets the same first deal from the same seat and the
luck of the deck largely cancels.  (Deal ``k`` of a game is the same deck whatever
the seats; who deals after the first hand depends on who wins, so the two games of
a pair drift apart, as in duplicate Gin played over the table.)  Each bot's random
choices come from its own generator, seeded by the game seed and its name, so a
bot draws the same random numbers in both games of a pair.

``simple`` is the EAAI Gin Rummy challenge's baseline, SimpleGinRummyPlayer
(``arena/policies/simple_gin.py``); the challenge's best agent is reported to win
55.4% ± 0.8% of its games against it (the figure quoted in issue 20), printed here beside strong's rate.

Strong's game win rate (a tied game counts 1/2) and its 95% interval come from the
duplicate pairs, not from games treated as independent: each pair scores 0, 0.5,
1, 1.5 or 2 for strong (the pentanomial model of ``arena.stats``), and the
interval is the mean +- 1.96 standard errors of the pair scores.  The Elo
difference is mapped from the same interval.  Also: points per game and
milliseconds per decision (mean and max) for each bot.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tables import print_table  # benchmarks/tables.py: scripts run from their folder

from arena.games.gin_rummy import STANDARD, Action, GinGame, GinObservation
from arena.policies import SimpleGinPolicy, greedy_gin
from arena.stats import elo_estimate, pentanomial, score_interval

try:
    from arena_sample_bots.strong import StrongPolicy
except ImportError:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sample_bots" / "python"))
    from arena_sample_bots.strong import StrongPolicy

Policy = Callable[[GinObservation, Sequence[Action], random.Random], Action]

MAX_DEALS = 200  # a safety net: games between these bots end in about ten deals

# Fresh policies for one game (simple and strong remember things within a hand).
OPPONENTS: dict[str, Callable[[], Policy]] = {
    "simple": SimpleGinPolicy,
    "greedy": lambda: greedy_gin,
}

# The challenge's best agent against SimpleGinRummyPlayer, the figure issue 20 quotes.
PUBLISHED = "55.4% ± 0.8%"


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

    @property
    def score(self) -> float:
        return self.wins + 0.5 * self.ties


@dataclass
class PairResult:
    strong: Tally = field(default_factory=Tally)
    opponent: Tally = field(default_factory=Tally)
    pair_scores: list[float] = field(default_factory=list)  # strong's score in each pair

    def add(self, other: PairResult) -> None:
        self.strong.add(other.strong)
        self.opponent.add(other.opponent)
        self.pair_scores.extend(other.pair_scores)


def play_game(seed: int, strong_seat: int, opponent: str) -> PairResult:
    """One game: ``strong`` in ``strong_seat``, ``opponent`` in the other seat."""
    game = GinGame(STANDARD, seed, max_deals=MAX_DEALS)
    policies = [OPPONENTS[opponent](), OPPONENTS[opponent]()]
    policies[strong_seat] = StrongPolicy()
    names = [opponent, opponent]
    names[strong_seat] = "strong"
    rngs = [random.Random(f"{seed}:{name}") for name in names]
    result = PairResult()
    tallies = [result.opponent, result.opponent]
    tallies[strong_seat] = result.strong
    clock = time.perf_counter
    while not game.is_terminal():
        seat = game.current_seat()
        assert seat is not None
        observation = game.observation(seat)
        legal = game.legal_actions()
        start = clock()
        action = policies[seat](observation, legal, rngs[seat])
        elapsed = clock() - start
        tally = tallies[seat]
        tally.decisions += 1
        tally.seconds += elapsed
        if elapsed > tally.max_seconds:
            tally.max_seconds = elapsed
        game.apply(action, seat)
    summary = game.summary
    assert summary is not None
    for seat, tally in ((strong_seat, result.strong), (1 - strong_seat, result.opponent)):
        tally.games = 1
        tally.points = summary.totals[seat]
        tally.hands = len(game.results)
        if summary.winner is None:
            tally.ties = 1
        elif summary.winner == seat:
            tally.wins = 1
    return result


def play_pair(task: tuple[int, str]) -> PairResult:
    """The duplicate pair of games for one seed: strong in seat 0, then in seat 1."""
    seed, opponent = task
    total = PairResult()
    for strong_seat in (0, 1):
        total.add(play_game(seed, strong_seat, opponent))
    total.pair_scores = [total.strong.score]
    return total


def run(pairs: int, seed: int, workers: int, opponent: str) -> tuple[PairResult, float]:
    tasks = [(seed + i, opponent) for i in range(pairs)]
    total = PairResult()
    started = time.perf_counter()
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results: Any = pool.imap_unordered(play_pair, tasks, chunksize=4)
            for result in results:
                total.add(result)
    else:
        for task in tasks:
            total.add(play_pair(task))
    return total, time.perf_counter() - started


def _percent(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.1%}"


def _elo(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:+.0f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--games", type=int, default=2000, help="games per opponent (two per duplicate pair)"
    )
    parser.add_argument("--quick", action="store_true", help="200 games per opponent")
    parser.add_argument("--seed", type=int, default=1, help="first game seed")
    parser.add_argument("--workers", type=int, default=2, help="processes (1: no pool)")
    parser.add_argument(
        "--opponents",
        default="simple,greedy",
        help=f"comma-separated, from {', '.join(OPPONENTS)} (default: both)",
    )
    args = parser.parse_args(argv)
    opponents = [name.strip() for name in args.opponents.split(",") if name.strip()]
    unknown = [name for name in opponents if name not in OPPONENTS]
    if unknown or not opponents:
        parser.error(f"unknown opponent {', '.join(unknown)}: choose from {', '.join(OPPONENTS)}")
    games = 200 if args.quick else args.games
    pairs = max(1, games // 2)

    print(
        f"# strong vs {' and '.join(opponents)}, duplicate games ({'quick' if args.quick else 'full'})"
    )
    print()
    print(
        f"Python {platform.python_version()} on {platform.machine()}; rules `standard` "
        f"(games to 100); seeds {args.seed}..{args.seed + pairs - 1}, both seatings each; "
        f"{args.workers} worker(s)"
    )
    print()
    summary_rows = []
    detail_rows = []
    for opponent in opponents:
        total, seconds = run(pairs, args.seed, args.workers, opponent)
        strong = total.strong
        counts = pentanomial(total.pair_scores)
        interval = score_interval(counts)
        elo = elo_estimate(counts)
        half = (interval.high - interval.low) / 2
        summary_rows.append(
            (
                opponent,
                str(len(total.pair_scores)),
                str(strong.games),
                f"{strong.wins}" + (f" (+{strong.ties} tied)" if strong.ties else ""),
                f"{interval.score:.1%} ± {half:.1%}"
                if not math.isnan(half)
                else f"{interval.score:.1%}",
                f"[{_percent(interval.low)}, {_percent(interval.high)}]",
                f"{_elo(elo.elo)} [{_elo(elo.low)}, {_elo(elo.high)}]",
                " ".join(str(c) for c in counts),
                PUBLISHED if opponent == "simple" else "",
                f"{seconds:.0f}",
            )
        )
        n = strong.games
        for name, tally in (("strong", strong), (opponent, total.opponent)):
            mean = tally.seconds / tally.decisions * 1000 if tally.decisions else 0.0
            detail_rows.append(
                (
                    f"strong vs {opponent}",
                    name,
                    f"{tally.points / n:.1f}",
                    f"{tally.hands / n:.1f}",
                    f"{tally.decisions / n:.0f}",
                    f"{mean:.2f}",
                    f"{tally.max_seconds * 1000:.1f}",
                )
            )
    print_table(
        (
            "opponent",
            "pairs",
            "games",
            "strong won",
            "strong's win rate ± 95% (pairs)",
            "95% interval",
            "Elo [95%]",
            "pairs scoring 0/.5/1/1.5/2",
            "best EAAI agent vs SimpleGinRummyPlayer",
            "seconds",
        ),
        summary_rows,
    )
    print()
    print_table(
        (
            "match",
            "bot",
            "points/game",
            "hands/game",
            "decisions/game",
            "ms/decision mean",
            "ms/decision max",
        ),
        detail_rows,
    )
    print()
    print(
        "The interval is from the duplicate pairs (pentanomial): the standard error of "
        "strong's pair scores, not of games counted as independent."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
