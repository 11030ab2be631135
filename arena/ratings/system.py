"""The one interface the ladder rates through, whichever rating system is in force.

A rating is a Gaussian belief about a bot's skill (``mu``, ``sigma``); a result is a
finishing order (``ranks[i]`` is player i's place from 0, ties share a place).  Both
systems here keep the same scale (mu 25, sigma 25/3 to begin with), so the leaderboard
sorts by ``mu - 3 sigma`` in either, and a ladder can be re-rated from one to the other
(``arena ladder rerate``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from arena.errors import ArenaError

__all__ = [
    "Rating",
    "RatingSystem",
    "RatingSystemName",
    "UnknownRatingSystem",
    "check_result",
    "system_name",
]


class RatingSystemName(StrEnum):
    """The rating systems a ladder can use (``[ratings] system`` in its config)."""

    TRUESKILL = "trueskill"  # Microsoft's TrueSkill (the ``trueskill`` package): the default
    OPENSKILL = "openskill"  # Weng-Lin, Plackett-Luce model (the ``openskill`` package)


class UnknownRatingSystem(ArenaError, ValueError):
    """A rating system's name that is not one of :class:`RatingSystemName`."""


def system_name(name: str) -> RatingSystemName:
    """``name`` as a :class:`RatingSystemName`, or a one-line refusal naming the known ones."""
    try:
        return RatingSystemName(name)
    except ValueError:
        known = ", ".join(item.value for item in RatingSystemName)
        raise UnknownRatingSystem(f"unknown rating system {name!r} (known: {known})") from None


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: what the leaderboard sorts by (99.7% sure the skill is above)."""
        return self.mu - 3 * self.sigma


class RatingSystem(Protocol):
    """A rating system: where a new bot starts, and how one result moves the ratings.

    Implementations are frozen values (their parameters), safe to share and to hash."""

    @property
    def name(self) -> RatingSystemName:
        """Which system this is (stored with the ladder, shown on its leaderboard)."""
        ...

    def initial(self) -> Rating:
        """The rating a bot starts from."""
        ...

    def rate(self, ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
        """New ratings after one result among these players (each a team of one):
        ``ranks[i]`` is player i's place, 0 first; equal ranks are a tie."""
        ...


def check_result(ratings: Sequence[Rating], ranks: Sequence[int]) -> None:
    """Refuse a result that is not two or more ratings with one rank each."""
    if len(ratings) != len(ranks) or len(ratings) < 2:
        raise ValueError(
            f"need two or more ratings with one rank each, got {len(ratings)} and {len(ranks)}"
        )
