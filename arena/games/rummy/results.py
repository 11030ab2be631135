"""How a Basic Rummy hand ended: the termination, each seat's result, and the hand
on its own as a game."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from arena.games.base import Outcome
from arena.games.rummy.actions import LayOff
from arena.games.rummy.cards import RummyCard
from arena.games.rummy.observation import TableMeld
from arena.games.rummy.rules import RummyRules, Scoring

__all__ = ["HandResult", "SeatResult", "Termination", "hand_outcome"]


class Termination(Enum):
    OUT = "out"  # a player emptied his hand
    RUMMY = "rummy"  # ... in one turn, with nothing laid down before in the hand
    BLOCKED = "blocked"  # reshuffle cap, no cards to rebuild the stock, or turn limit


@dataclass(frozen=True, slots=True)
class SeatResult:
    hand: tuple[RummyCard, ...]  # cards held at the end
    melds: tuple[TableMeld, ...]  # melds this seat laid down, as they ended
    layoffs: tuple[LayOff, ...]  # layoffs this seat made
    penalty: int  # value of the cards held
    points: int  # added to this seat's game total by this hand
    played: bool  # False: eliminated before this hand


@dataclass(frozen=True, slots=True)
class HandResult:
    termination: Termination
    winner: int
    points: int  # winner-takes-all: what the winner scores; standard: 0
    doubled: bool  # the Rummy bonus doubled the penalties
    seats: tuple[SeatResult, ...]
    reshuffles: int
    turns: int

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(seat.points for seat in self.seats)


def hand_outcome(rules: RummyRules, result: HandResult) -> Outcome:
    """A hand on its own as a game (a match of single hands).

    Scores are "higher is better": the winner's points in winner-takes-all, minus
    the penalty added in standard scoring.  Ranks: the winner first, the others by
    their penalty (lower is better), seats that did not play last.
    """
    keys = []
    scores = []
    for seat, info in enumerate(result.seats):
        if rules.scoring is Scoring.STANDARD:
            scores.append(-info.points)
        else:
            scores.append(info.points)
        keys.append((not info.played, seat != result.winner, info.penalty))
    ranks = tuple(sum(1 for other in keys if other < key) for key in keys)
    return Outcome(tuple(scores), ranks, result.winner)
