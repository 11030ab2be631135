"""The interface every game engine offers, and the types it shares.

Engines are pure: no I/O, no clocks, no randomness except the seeded deal.  The
referee drives any game through ``PlayedGame`` alone; a bot is only ever shown
``observation(seat)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from arena.errors import ArenaError

__all__ = [
    "ActionParseError",
    "GameError",
    "Hand",
    "HandsGame",
    "IllegalActionError",
    "Outcome",
    "PlayedGame",
    "PlayedHand",
    "RulesError",
]


class GameError(ArenaError):
    """Root of the errors raised by game engines."""


class RulesError(GameError, ValueError):
    """A rule set with a bad or unknown parameter, or a player count it cannot seat."""


class ActionParseError(GameError, ValueError):
    """Text that is not an action of the game (the message says what is wrong)."""


class IllegalActionError(GameError, ValueError):
    """An action the rules do not allow now.  ``rule`` names the rule broken."""

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{message} ({rule})" if rule else message)
        self.rule = rule


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended for each seat.

    ``scores`` are the final points (higher is better); ``ranks`` give the finishing
    order, 0 for first, equal ranks for a tie (what TrueSkill needs).
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winner: int | None

    @classmethod
    def from_scores(cls, scores: Sequence[int]) -> Outcome:
        ordered = sorted(set(scores), reverse=True)
        ranks = tuple(ordered.index(score) for score in scores)
        best = [seat for seat, rank in enumerate(ranks) if rank == 0]
        return cls(tuple(scores), ranks, best[0] if len(best) == 1 else None)


A = TypeVar("A")


O_co = TypeVar("O_co", covariant=True)  # an observation
R = TypeVar("R")  # a hand's result


class Hand(Protocol[A, O_co]):
    """One hand of a game of hands, as ``HandsGame`` drives it."""

    result: Any  # None until the hand is over

    def current_seat(self) -> int | None: ...

    def legal_actions(self) -> list[A]: ...

    def observation(self, seat: int) -> O_co: ...

    def apply(self, action: A, seat: int | None = None) -> None: ...


class HandsGame(Generic[A, O_co, R]):
    """A game of hands: the current hand answers for the game until it ends; then
    ``hand_over`` scores it and deals the next hand, or sets ``summary`` (game over)."""

    over_rule: ClassVar[str]  # the rule that ends a game, for a late action's error
    hand: Hand[A, O_co]
    summary: object | None

    def current_seat(self) -> int | None:
        return None if self.summary else self.hand.current_seat()

    def legal_actions(self) -> list[A]:
        return [] if self.summary else self.hand.legal_actions()

    def is_terminal(self) -> bool:
        return self.summary is not None

    def observation(self, seat: int) -> O_co:
        return self.hand.observation(seat)

    def apply(self, action: A, seat: int | None = None) -> None:
        if self.summary is not None:
            raise IllegalActionError(f"cannot {action}: the game is over", self.over_rule)
        hand = self.hand
        hand.apply(action, seat)
        if hand.result is not None:
            self.hand_over(hand.result)

    def hand_over(self, result: R) -> None:
        """Score the hand that just ended (still ``self.hand``); deal the next or end."""
        raise NotImplementedError


# -- what the referee's table reads of a game of hands (arena.protocol.table) ----------


class PlayedHand(Protocol):
    """The current hand of a ``PlayedGame``: its public record and its deal."""

    @property
    def events(self) -> Sequence[object]:
        """Every public event of the hand so far, oldest first (only ever appended)."""

    @property
    def deck(self) -> Sequence[object]:
        """The deal's deck order, top first."""

    @property
    def dealer(self) -> int: ...

    @property
    def scores(self) -> Sequence[int]:
        """Each seat's game total before this hand."""

    @property
    def hand_number(self) -> int: ...

    def observation(self, seat: int) -> object: ...

    def hand_of(self, seat: int) -> Iterable[object]:
        """A seat's cards (the referee's view)."""


class SeatPoints(Protocol):
    @property
    def points(self) -> int:
        """What the hand added to the seat's game total."""


class PlayedHandResult(Protocol):
    @property
    def seats(self) -> Sequence[SeatPoints]: ...


class PlayedGame(Protocol):
    """A game of hands as the referee drives it (``GinGame``, ``RummyGame``): the
    whose turn, legal actions, apply, is it over, outcome; the current ``hand`` and the ``results`` of the hands
    played so far."""

    @property
    def num_seats(self) -> int: ...

    @property
    def hand(self) -> PlayedHand: ...

    @property
    def results(self) -> Sequence[PlayedHandResult]: ...

    def current_seat(self) -> int | None: ...

    def legal_actions(self) -> Sequence[Any]: ...

    def apply(self, action: Any, seat: int | None = None) -> None: ...

    def is_terminal(self) -> bool: ...

    def outcome(self) -> Outcome: ...
