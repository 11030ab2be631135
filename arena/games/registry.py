"""Games registered under versioned ids (``gin-rummy/standard``, ...).

An id always means the same rules: changing what a rule set means takes a new id.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from arena.errors import ArenaError
from arena.games.base import PlayedGame
from arena.games.gin_rummy import PRESETS, GinGame, GinRules

__all__ = ["GameRules", "GameSpec", "NewGame", "UnknownGameError", "builtin_games", "find_game"]


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


class UnknownGameError(ArenaError, LookupError, ValueError):
    """A game id that no registered game has."""


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A playable rule set: how many seats, and how to start a game from a seed."""

    id: str
    description: str
    min_seats: int
    max_seats: int
    rules: GameRules
    new_game: NewGame


def _gin_spec(key: str, rules: GinRules) -> GameSpec:
    def new_game(seed: int, seats: int, *, hands_only: bool = False, max_deals: int = 0) -> GinGame:
        if seats != 2:
            raise ValueError(f"Gin Rummy is for 2 seats, not {seats}")
        return GinGame(rules, seed, max_deals=max_deals, single_hand=hands_only)

    return GameSpec(f"gin-rummy/{key}", f"Gin Rummy, {key} rules", 2, 2, rules, new_game)


def builtin_games() -> list[GameSpec]:
    from arena.games.rummy.spec import game_specs  # imports GameSpec from here

    return [*(_gin_spec(key, rules) for key, rules in PRESETS.items()), *game_specs()]


def find_game(game_id: str, specs: Iterable[GameSpec] | None = None) -> GameSpec:
    known = list(builtin_games() if specs is None else specs)
    for spec in known:
        if spec.id == game_id:
            return spec
    names = ", ".join(spec.id for spec in known)
    raise UnknownGameError(f"unknown game {game_id!r}; known games: {names}")
