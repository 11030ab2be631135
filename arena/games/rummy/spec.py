"""The registrable Basic Rummy rule sets: ``rummy/<preset>`` for 2 to 6 seats."""

from __future__ import annotations

from arena.games.rummy.game import RummyGame
from arena.games.rummy.rules import PRESETS, RummyRules
from arena.games.spec import GameSpec, NewGame

__all__ = ["game_specs", "new_game_factory"]


def new_game_factory(rules: RummyRules) -> NewGame:
    """``new_game(seed, seats, *, hands_only=False, max_deals=0)`` for ``rules``."""

    def new_game(
        seed: int, seats: int, *, hands_only: bool = False, max_deals: int = 0
    ) -> RummyGame:
        return RummyGame(rules, seed, seats, max_deals=max_deals, single_hand=hands_only)

    return new_game


def game_specs() -> list[GameSpec]:
    """One ``GameSpec`` per preset."""
    return [
        GameSpec(
            f"rummy/{key}",
            f"Basic Rummy, {key} rules",
            2,
            6,
            rules,
            new_game_factory(rules),
        )
        for key, rules in PRESETS.items()
    ]
