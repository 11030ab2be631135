"""Who plays whom: round-robin, gauntlet, and continuous matchmaking.

A schedule produces *units*: the matches one rating update covers.  With
duplicate deals a unit is every rotation of its line-up over the same deals
(A-B then B-A for two seats), so luck in the cards cancels out; without, it is one
match, and repeats rotate the seats so each bot sits in each seat as often.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise

from arena.ratings import Rating, RatingEnv

__all__ = ["Unit", "continuous_pick", "gauntlet", "lineups", "round_robin"]


@dataclass(frozen=True)
class Unit:
    key: str  # stable name, so a schedule is never created twice
    lineups: tuple[tuple[str, ...], ...]  # one seating (bot names by seat) per match


def lineups(group: Sequence[str], duplicate: bool, repetition: int) -> tuple[tuple[str, ...], ...]:
    """Every rotation of ``group`` (duplicate), or the ``repetition``-th rotation alone."""
    rotations = [tuple(group[i:]) + tuple(group[:i]) for i in range(len(group))]
    return tuple(rotations) if duplicate else (rotations[repetition % len(group)],)


def round_robin(bots: Sequence[str], seats: int, repeat: int, duplicate: bool) -> list[Unit]:
    """Each line-up of ``seats`` bots, ``repeat`` times.

    Without duplicate, a line-up's first seating is rotation (sum of its bots' places
    in name order) mod ``seats``: a bot then leads as often as it follows over the
    whole schedule (within one, for two seats), not only over the repeats of a pair.
    """
    names = sorted(bots)
    units = []
    for repetition in range(repeat):  # round after round: a run cut short covers every pair
        for places in combinations(range(len(names)), seats):
            group = tuple(names[place] for place in places)
            units.append(
                Unit(
                    f"rr:{'|'.join(group)}:{repetition}",
                    lineups(group, duplicate, sum(places) + repetition),
                )
            )
    return units


def gauntlet(
    champion: str, bots: Sequence[str], seats: int, repeat: int, duplicate: bool
) -> list[Unit]:
    """The champion against every line-up of the others, ``repeat`` times.

    Without duplicate, the champion's seat turns from one line-up to the next too.
    """
    field = sorted(bot for bot in bots if bot != champion)
    units = []
    for repetition in range(repeat):  # round after round, as in round_robin
        for number, others in enumerate(combinations(field, seats - 1)):
            group = (champion, *others)
            units.append(
                Unit(
                    f"gauntlet:{'|'.join(group)}:{repetition}",
                    lineups(group, duplicate, number + repetition),
                )
            )
    return units


def continuous_pick(
    ratings: Mapping[str, Rating], played: Mapping[str, int], seats: int, env: RatingEnv
) -> tuple[str, ...] | None:
    """The line-up (in name order) whose result is most likely to correct the leaderboard.

    The candidates are runs of ``seats`` bots next to each other in the order of
    their means.  A run scores the summed probability that the ratings have a
    neighbouring pair in it the wrong way round, ``Phi(-(mu_hi - mu_lo) /
    sqrt(sigma_lo**2 + sigma_hi**2))``: close means and wide sigmas score high, and
    bots already far apart are not played against each other again.  Ties go to bots
    that played less, then to names, so the choice is deterministic.  ``env`` is
    unused: the rule needs no TrueSkill parameter beyond the ratings.

    Rejected alternatives (simulated on benchmarks/bench_ladder.py's field and on
    closer ones):
    - Scoring every line-up by TrueSkill match quality x summed variance took more
      matches than a round-robin.
    - Weighting the score by sigma_lo**2 + sigma_hi**2 (or by the share of the
      pair's variance one result removes) sorts by mu - 3 sigma sooner but by mu a
      little later.
    - Picking the game with the largest expected drop in summed misorder under
      TrueSkill's own update stalls: with independent marginals every informative
      game looks harmful, so it replays foregone pairs and keeps whatever order it
      has.  That looks fast on the benchmark's field, where the order is often right
      by then, and on closer fields ends 400 matches still wrong in 38-75% of runs.
    Most matches go to the two or three closest pairs, and an upset between them
    re-orders the board until their sigmas are small, whoever schedules them: always
    playing the true neighbours, chosen with knowledge of the true order, settles no
    sooner than this rule.
    """
    del env
    if len(ratings) < seats:
        return None
    order = sorted(ratings, key=lambda name: (ratings[name].mu, name))
    best: tuple[float, int, tuple[str, ...]] | None = None
    for start in range(len(order) - seats + 1):
        run = order[start : start + seats]
        score = sum(_misordered(ratings[low], ratings[high]) for low, high in pairwise(run))
        games = sum(played.get(name, 0) for name in run)
        candidate = (score, -games, tuple(sorted(run)))
        if best is None or candidate[:2] > best[:2]:
            best = candidate
    return None if best is None else best[2]


def _misordered(low: Rating, high: Rating) -> float:
    """P(skill of ``low`` > skill of ``high``) under the two ratings."""
    spread = math.sqrt(low.sigma**2 + high.sigma**2)
    return 0.5 * math.erfc((high.mu - low.mu) / (spread * math.sqrt(2)))
