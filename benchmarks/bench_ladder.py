"""How many matches does the continuous scheduler need to rank a field, against round-robin?

Run:  python benchmarks/bench_ladder.py [--quick] [--seeds N] [--budget M] [--strong]

The field has a known strength order: ``random`` < ``eps40`` < ``eps20`` < ``eps10`` <
``eps05`` < ``greedy``, where ``epsN`` plays a uniformly random legal action with
probability N% and the greedy one otherwise (``--epsilons`` changes the set), and with
``--strong`` the ``strong`` sample bot on top (slow: about half a second a game).
Small epsilons on purpose: with 0.6 and 0.3 every pair is so lopsided that both
schedulers have the order right after a dozen matches, and there is nothing to measure.

Matches are simulated in-process, without bot processes or SQLite: the policies are
called directly on a ``GinGame``.  Everything else is the ladder's own: units come
from ``arena.ladder.schedule.round_robin`` (duplicate, round after round) or from
``continuous_pick``; a unit is both seatings of a pair over the same deals
(``--games`` games a match, dealt as the referee deals them); when a unit is complete
``arena.ratings.rate`` moves the ratings as ``LadderStore`` does (the unit's bots in
name order, ranked by total games won, then total points; equal on both is a draw).

Measured per run: the matches played when the leaderboard order by mu became the true
order for the last time, staying so to the end of the budget (mu - 3 sigma, the order
the leaderboard prints, is shown too; it also depends on how often each bot played).
A run still wrong at the end counts as the whole budget.  Reported: each run, medians
over the seeds, and continuous / round-robin (the target: at most 0.5, by mu).  The
"neighbours" column is the share of matches between bots next to each other in the
true order.  Runs are spread over the CPUs (``--workers``).

61 seeds by default (about 10 minutes on two cores): single runs range from 20 to
over 400 matches, and over sets of 21 seeds resampled from a simulation of this field
the median of round-robin alone ranged from about 70 to 150.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from arena.cards import derive_seed
from arena.games.gin_rummy import STANDARD, Action, GinGame, GinObservation
from arena.ladder.schedule import continuous_pick, round_robin
from arena.policies import greedy_gin, random_gin
from arena.ratings import DEFAULT_ENV, Rating, rate

Policy = Callable[[GinObservation, Sequence[Action], random.Random], Action]

MAX_DEALS = 40  # bots that never knock (random) would otherwise play hundreds of deals


def epsilon_greedy(epsilon: float) -> Callable[[], Policy]:
    """A weakened greedy: a random legal action with probability ``epsilon``."""

    def make() -> Policy:
        def policy(
            observation: GinObservation, legal: Sequence[Action], rng: random.Random
        ) -> Action:
            if rng.random() < epsilon:
                return random_gin(observation, legal, rng)
            return greedy_gin(observation, legal, rng)

        return policy

    return make


def strong_factory() -> Callable[[], Policy] | None:
    try:
        from arena_sample_bots.strong import StrongPolicy
    except ImportError:  # not installed: try the source tree
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sample_bots" / "python"))
        try:
            from arena_sample_bots.strong import StrongPolicy
        except ImportError:
            return None
    return cast(Callable[[], Policy], StrongPolicy)


def field(epsilons: Sequence[float], strong: bool) -> list[tuple[str, Callable[[], Policy]]]:
    """The bots, weakest first (their names do not sort in that order)."""
    bots: list[tuple[str, Callable[[], Policy]]] = [("random", lambda: random_gin)]
    for epsilon in sorted(epsilons, reverse=True):
        bots.append((f"eps{round(epsilon * 100):02d}", epsilon_greedy(epsilon)))
    bots.append(("greedy", lambda: greedy_gin))
    factory = strong_factory() if strong else None
    if factory is not None:
        bots.append(("strong", factory))
    return bots


# -- matches and ratings, as the ladder plays and records them ----------------------


def play_match(
    seats: Sequence[Callable[[], Policy]], seed: int, games: int
) -> list[tuple[int, int]]:
    """(games won, points) per seat; game ``k`` is dealt from ``derive_seed(seed, 1, k)``
    like the referee's, so both seatings of a unit get the same deals."""
    policies = [make() for make in seats]
    rngs = [random.Random(derive_seed(seed, 2, seat)) for seat in range(len(seats))]
    totals = [[0, 0] for _ in seats]
    for number in range(games):
        game = GinGame(STANDARD, derive_seed(seed, 1, number), max_deals=MAX_DEALS)
        while not game.is_terminal():
            seat = game.current_seat()
            assert seat is not None
            action = policies[seat](game.observation(seat), game.legal_actions(), rngs[seat])
            game.apply(action, seat)
        summary = game.summary
        assert summary is not None
        for seat in range(len(seats)):
            totals[seat][0] += int(summary.winner == seat)
            totals[seat][1] += summary.totals[seat]
    return [(wins, points) for wins, points in totals]


def match_ranks(wins: Sequence[int], points: Sequence[int]) -> list[int]:
    """The store's finishing order (``arena.storage.ladder_store._match_ranks``)."""
    keys = list(zip(wins, points, strict=True))
    ordered = sorted(set(keys), reverse=True)
    return [ordered.index(key) for key in keys]


@dataclass
class Ladder:
    makers: dict[str, Callable[[], Policy]]
    games: int
    ratings: dict[str, Rating]
    played: dict[str, int]
    matches: int = 0

    @classmethod
    def of(cls, bots: Sequence[tuple[str, Callable[[], Policy]]], games: int) -> Ladder:
        names = [name for name, _ in bots]
        return cls(
            dict(bots), games, {n: DEFAULT_ENV.initial() for n in names}, dict.fromkeys(names, 0)
        )

    def play_unit(self, lineups: Sequence[Sequence[str]], seed: int) -> None:
        totals: dict[str, list[int]] = {}
        for lineup in lineups:
            result = play_match([self.makers[name] for name in lineup], seed, self.games)
            for name, (wins, points) in zip(lineup, result, strict=True):
                total = totals.setdefault(name, [0, 0])
                total[0] += wins
                total[1] += points
                self.played[name] += 1
            self.matches += 1
        names = sorted(totals)
        ranks = match_ranks([totals[n][0] for n in names], [totals[n][1] for n in names])
        after = rate([self.ratings[n] for n in names], ranks, DEFAULT_ENV)
        self.ratings.update(zip(names, after, strict=True))

    def order(self, conservative: bool) -> list[str]:
        def key(name: str) -> tuple[float, str]:
            rating = self.ratings[name]
            return (rating.conservative if conservative else rating.mu, name)

        return sorted(self.ratings, key=key)


# -- the two schedulers ---------------------------------------------------------------


def round_robin_units(names: Sequence[str], budget: int) -> Iterator[tuple[tuple[str, ...], ...]]:
    """Round after round, as a round-robin ladder with enough repeats plays them."""
    yield from (unit.lineups for unit in round_robin(names, 2, budget, duplicate=True))


def continuous_units(ladder: Ladder) -> Iterator[tuple[tuple[str, ...], ...]]:
    while True:
        group = continuous_pick(ladder.ratings, ladder.played, 2, DEFAULT_ENV)
        assert group is not None
        yield (group, group[1:] + group[:1])  # the runner's duplicate rotations


@dataclass
class Run:
    scheduler: str
    seed: int
    settled: int | None  # matches until the order by mu is right for good; None: not by the end
    settled_conservative: int | None
    pair_share: float  # matches between neighbours in the true order / all matches
    seconds: float


def settle_point(readings: Sequence[tuple[int, bool]]) -> int | None:
    """Matches played at the first of the right readings that last to the end."""
    point = None
    for matches, right in readings:
        if not right:
            point = None
        elif point is None:
            point = matches
    return point


@dataclass(frozen=True)
class Job:
    scheduler: str  # "round-robin" or "continuous"
    seed: int
    budget: int  # matches
    games: int  # a match
    epsilons: tuple[float, ...]
    strong: bool


def simulate(job: Job) -> Run:
    """One scheduler's run on one seed (in a worker process: the bots are rebuilt here)."""
    scheduler, seed, budget = job.scheduler, job.seed, job.budget
    bots = field(job.epsilons, job.strong)
    ladder = Ladder.of(bots, job.games)
    truth = [name for name, _ in bots]
    neighbours = {frozenset(pair) for pair in itertools.pairwise(truth)}
    units = (
        round_robin_units(truth, budget) if scheduler == "round-robin" else continuous_units(ladder)
    )
    by_mu: list[tuple[int, bool]] = []
    by_score: list[tuple[int, bool]] = []
    near = 0
    started = time.perf_counter()
    number = 0
    while ladder.matches < budget:
        lineups = next(units)
        ladder.play_unit(lineups, derive_seed(seed, 7, number))
        number += 1
        if frozenset(lineups[0]) in neighbours:
            near += len(lineups)
        by_mu.append((ladder.matches, ladder.order(conservative=False) == truth))
        by_score.append((ladder.matches, ladder.order(conservative=True) == truth))
    return Run(
        scheduler,
        seed,
        settle_point(by_mu),
        settle_point(by_score),
        near / ladder.matches,
        time.perf_counter() - started,
    )


def median(values: Sequence[int | None], budget: int) -> float:
    """Median matches, a run that never settled counting as the whole budget."""
    return statistics.median(budget if value is None else value for value in values)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds, smaller budget")
    parser.add_argument("--seeds", type=int, help="runs per scheduler (default 61; quick 4)")
    parser.add_argument("--budget", type=int, help="matches per run (default 400; quick 160)")
    parser.add_argument("--games", type=int, default=2, help="games per match (default 2)")
    parser.add_argument(
        "--epsilons",
        type=lambda text: [float(part) for part in text.split(",")],
        default=[0.4, 0.2, 0.1, 0.05],
        help="the weakened greedy bots' random-move probabilities (default 0.4,0.2,0.1,0.05)",
    )
    parser.add_argument("--strong", action="store_true", help="add the strong sample bot")
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    parser.add_argument("--workers", type=int, help="processes (default: one per CPU)")
    args = parser.parse_args(argv)
    seeds = args.seeds or (4 if args.quick else 61)
    budget = args.budget or (160 if args.quick else 400)
    strong = args.strong and strong_factory() is not None
    if args.strong and not strong:
        print("strong: arena_sample_bots is not importable; left out", file=sys.stderr)
    bots = field(args.epsilons, strong)
    print(
        f"field (weakest first): {' < '.join(name for name, _ in bots)}; "
        f"{args.games} games a match, duplicate units, budget {budget} matches, {seeds} seeds"
    )
    print(f"{'scheduler':<12}{'seed':>5}{'by mu':>8}{'by mu-3s':>10}{'neighbours':>12}{'time':>8}")
    runs: dict[str, list[Run]] = {"round-robin": [], "continuous": []}
    jobs = [
        Job(scheduler, seed, budget, args.games, tuple(args.epsilons), strong)
        for seed in range(args.seed, args.seed + seeds)
        for scheduler in runs
    ]

    def cell(value: int | None) -> str:
        return f">{budget}" if value is None else str(value)

    with ProcessPoolExecutor(args.workers or os.cpu_count() or 1) as pool:
        for run in pool.map(simulate, jobs):
            runs[run.scheduler].append(run)
            print(
                f"{run.scheduler:<12}{run.seed:>5}{cell(run.settled):>8}"
                f"{cell(run.settled_conservative):>10}{run.pair_share:>11.0%} {run.seconds:>7.1f}s",
                flush=True,
            )
    print()
    print(
        "median matches until the order is right for good (a run not settled counts as the budget)"
    )
    print(f"{'':<24}{'by mu':>8}{'by mu-3s':>10}{'not settled':>13}")
    for scheduler, found in runs.items():
        unsettled = sum(r.settled is None for r in found)
        print(
            f"{scheduler:<24}{median([r.settled for r in found], budget):>8g}"
            f"{median([r.settled_conservative for r in found], budget):>10g}"
            f"{unsettled:>9} of {len(found)}"
        )
    ratios = [
        median([run.settled for run in runs["continuous"]], budget)
        / median([run.settled for run in runs["round-robin"]], budget),
        median([run.settled_conservative for run in runs["continuous"]], budget)
        / median([run.settled_conservative for run in runs["round-robin"]], budget),
    ]
    print(f"{'continuous / round-robin':<24}{ratios[0]:>8.2f}{ratios[1]:>10.2f}")
    verdict = "met" if ratios[0] <= 0.5 else "missed"
    print(f"target (by mu): continuous needs at most half of round-robin's matches: {verdict}")
    if seeds < 15:
        print(f"(only {seeds} seeds: single runs vary several-fold, so the ratio is rough)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
