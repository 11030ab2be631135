"""Who plays whom: round-robin, gauntlet, and continuous matchmaking.

A schedule produces *units*: the matches one rating update covers.  With
duplicate deals a unit is every rotation of its line-up over the same deals
(A-B then B-A for two seats), so luck in the cards cancels out; without, it is one
match, and repeats rotate the seats so each bot sits in each seat as often.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from arena.ratings import Rating, RatingEnv, match_quality

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
    """Each line-up of ``seats`` bots, ``repeat`` times."""
    units = []
    for group in combinations(sorted(bots), seats):
        for repetition in range(repeat):
            units.append(
                Unit(f"rr:{'|'.join(group)}:{repetition}", lineups(group, duplicate, repetition))
            )
    return units


def gauntlet(
    champion: str, bots: Sequence[str], seats: int, repeat: int, duplicate: bool
) -> list[Unit]:
    """The champion against every line-up of the others, ``repeat`` times."""
    field = sorted(bot for bot in bots if bot != champion)
    units = []
    for others in combinations(field, seats - 1):
        group = (champion, *others)
        for repetition in range(repeat):
            units.append(
                Unit(
                    f"gauntlet:{'|'.join(group)}:{repetition}",
                    lineups(group, duplicate, repetition),
                )
            )
    return units


def continuous_pick(
    ratings: Mapping[str, Rating], played: Mapping[str, int], seats: int, env: RatingEnv
) -> tuple[str, ...] | None:
    """The most informative line-up to play next.

    Score = TrueSkill match quality (how uncertain the outcome is) x the summed
    variance of the players (how much there is to learn about them).  Ties go to
    bots that played less, then to names, so the choice is deterministic.
    """
    names = sorted(ratings)
    if len(names) < seats:
        return None
    best: tuple[float, int, tuple[str, ...]] | None = None
    for group in combinations(names, seats):
        group_ratings = [ratings[name] for name in group]
        score = match_quality(group_ratings, env) * sum(r.sigma**2 for r in group_ratings)
        games = sum(played.get(name, 0) for name in group)
        candidate = (score, -games, group)
        if best is None or candidate[:2] > best[:2]:
            best = candidate
    return None if best is None else best[2]
