"""How a Gin Rummy hand ended: the knock, each seat's cards and points, the result."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from arena.cards import Card, CardSet, Layoff, Meld

__all__ = ["HandResult", "KnockInfo", "SeatResult", "Termination"]


class Termination(Enum):
    KNOCK = "knock"
    GIN = "gin"
    UNDERCUT = "undercut"
    DRAW = "draw"  # two cards left in the stock: no score, same dealer again


@dataclass(frozen=True, slots=True)
class KnockInfo:
    """What the knocker laid on the table."""

    seat: int
    melds: tuple[Meld, ...]
    unmatched: CardSet

    @property
    def deadwood(self) -> int:
        return self.unmatched.value


@dataclass(frozen=True, slots=True)
class SeatResult:
    hand: CardSet  # the ten cards held at the end
    melds: tuple[Meld, ...]
    layoffs: tuple[Layoff, ...]
    unmatched: CardSet  # after layoffs
    deadwood: int
    points: int


@dataclass(frozen=True, slots=True)
class HandResult:
    termination: Termination
    winner: int | None
    knocker: int | None
    points: int  # scored by the winner, after Oklahoma doubling
    seats: tuple[SeatResult, SeatResult]
    knock_limit: int
    doubled: bool
    knock_discard: Card | None = None

    @property
    def scores(self) -> tuple[int, int]:
        return (self.seats[0].points, self.seats[1].points)
