"""The registrable Gin Rummy rule sets: ``gin-rummy/<preset>``, for 2 seats."""

from __future__ import annotations

from arena.games.gin_rummy.game import GinGame
from arena.games.gin_rummy.rules import PRESETS, GinRules
from arena.games.spec import GameSpec

__all__ = ["game_specs"]


def _gin_spec(key: str, rules: GinRules) -> GameSpec:
    def new_game(seed: int, seats: int, *, hands_only: bool = False, max_deals: int = 0) -> GinGame:
        if seats != 2:
            raise ValueError(f"Gin Rummy is for 2 seats, not {seats}")
        return GinGame(rules, seed, max_deals=max_deals, single_hand=hands_only)

    return GameSpec(f"gin-rummy/{key}", f"Gin Rummy, {key} rules", 2, 2, rules, new_game)


def game_specs() -> list[GameSpec]:
    """One ``GameSpec`` per preset."""
    return [_gin_spec(key, rules) for key, rules in PRESETS.items()]
