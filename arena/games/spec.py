"""What a registered game is: a ``GameSpec`` (a versioned id, its seats, its rules and
how to start a game).  Each family's module builds its own (``gin_rummy/spec.py``,
``rummy/spec.py``); the registry gathers them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from arena.games.base import PlayedGame

__all__ = ["GameRules", "GameSpec", "NewGame"]


class GameRules(Protocol):
    """A rule set: one frozen dataclass per game family (``GinRules``, ``RummyRules``),
    named by its preset; the game's codec turns it into ``MatchStart.rules``."""

    @property
    def name(self) -> str: ...


class NewGame(Protocol):
    """How a ``GameSpec`` starts a game: from a seed, for ``seats`` players; a game of
    single hands with ``hands_only``; ``max_deals`` (0: none) stops one that would not end."""

    def __call__(
        self, seed: int, seats: int, *, hands_only: bool = False, max_deals: int = 0
    ) -> PlayedGame: ...


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A playable rule set: how many seats, and how to start a game from a seed."""

    id: str
    description: str
    min_seats: int
    max_seats: int
    rules: GameRules
    new_game: NewGame
