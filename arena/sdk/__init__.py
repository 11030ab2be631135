"""Write a bot in Python: subclass ``Bot``, implement ``decide``, call ``serve(MyBot())``.

The engine helpers a bot needs come from the same import: cards, deadwood and melds.
"""

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
from arena.games import gin_rummy as gin
from arena.protocol.commitment import RevealCheck, check_match_reveal, seed_commitment
from arena.sdk.bot import Bot, BotSession, Decision, Reply
from arena.sdk.server import ADDRESS_VARIABLE, serve

__all__ = [
    "ADDRESS_VARIABLE",
    "Bot",
    "BotSession",
    "Card",
    "CardSet",
    "Decision",
    "Meld",
    "Reply",
    "RevealCheck",
    "best_arrangement",
    "check_match_reveal",
    "deadwood_of_mask",
    "gin",
    "knock_discards",
    "layoff_options",
    "min_deadwood",
    "seed_commitment",
    "serve",
]
