"""Games registered under versioned ids (``gin-rummy/standard``, ...).

An id always means the same rules: changing what a rule set means takes a new id.
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.errors import ArenaError
from arena.games.gin_rummy import spec as gin_spec
from arena.games.rummy import spec as rummy_spec
from arena.games.spec import GameSpec

__all__ = ["UnknownGameError", "builtin_games", "find_game"]


class UnknownGameError(ArenaError, LookupError, ValueError):
    """A game id that no registered game has."""


def builtin_games() -> list[GameSpec]:
    return [*gin_spec.game_specs(), *rummy_spec.game_specs()]


def find_game(game_id: str, specs: Iterable[GameSpec] | None = None) -> GameSpec:
    known = list(builtin_games() if specs is None else specs)
    for spec in known:
        if spec.id == game_id:
            return spec
    names = ", ".join(spec.id for spec in known)
    raise UnknownGameError(f"unknown game {game_id!r}; known games: {names}")
