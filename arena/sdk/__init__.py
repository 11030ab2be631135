"""Write a bot in Python: subclass ``Bot``, implement ``decide``, call ``serve(MyBot())``.

The engine helpers a bot needs come from the same import: cards, deadwood and melds,
and the games' types (``gin``, ``rummy``, their observations) for typed bots::

    from arena.sdk import Bot, Decision, GinObservation, gin, serve

    class MyBot(Bot[GinObservation, gin.Action]):
        def decide(self, decision: Decision[GinObservation, gin.Action]) -> gin.Action:
            return decision.legal_actions[0]
"""

from typing import TYPE_CHECKING, Any

from arena.cards import (
    Card,
    CardSet,
    Meld,
    best_arrangement,
    deadwood_of_mask,
    knock_discards,
    layoff_options,
    min_deadwood,
)
from arena.protocol.commitment import RevealCheck, check_match_reveal, seed_commitment
from arena.sdk.bot import Bot, BotSession, Decision, Reply
from arena.sdk.server import ADDRESS_VARIABLE, serve

if TYPE_CHECKING:
    from arena.games import gin_rummy as gin
    from arena.games import rummy
    from arena.games.gin_rummy import GinObservation
    from arena.games.rummy import RummyObservation
    from arena.sdk.bot import GameEvent
    from arena.sdk.positions import answer_position, position_decision

__all__ = [
    "ADDRESS_VARIABLE",
    "Bot",
    "BotSession",
    "Card",
    "CardSet",
    "Decision",
    "GameEvent",
    "GinObservation",
    "Meld",
    "Reply",
    "RevealCheck",
    "RummyObservation",
    "answer_position",
    "best_arrangement",
    "check_match_reveal",
    "deadwood_of_mask",
    "gin",
    "knock_discards",
    "layoff_options",
    "min_deadwood",
    "position_decision",
    "rummy",
    "seed_commitment",
    "serve",
]

#: The games' names, imported when first used: a bot process loads only the game it
#: plays (``from arena.sdk import gin`` still works, and loads Gin alone).
_LAZY = {
    "gin": ("arena.games.gin_rummy", None),
    "rummy": ("arena.games.rummy", None),
    "GinObservation": ("arena.games.gin_rummy", "GinObservation"),
    "RummyObservation": ("arena.games.rummy", "RummyObservation"),
    "GameEvent": ("arena.sdk.bot", "GameEvent"),
    # Saved positions, for a bot's unit tests: not needed to play.
    "answer_position": ("arena.sdk.positions", "answer_position"),
    "position_decision": ("arena.sdk.positions", "position_decision"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module, attribute = _LAZY[name]
    loaded = importlib.import_module(module)
    value = loaded if attribute is None else getattr(loaded, attribute)
    globals()[name] = value
    return value
