"""The built-in bots: the baselines (``arena.bots.builtin``) and the reference bots
(``arena.bots.reference``).

Each is imported when first asked for, so that a bot process serving one of them loads
only its own module (``builtin_bot``); ``BUILTIN_BOTS`` loads them all.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.bots.builtin import GreedyBot, GreedyRummyBot, RandomBot, SimpleBot
    from arena.sdk import Bot

    BUILTIN_BOTS: dict[str, type[Bot[Any, Any]]]

__all__ = [
    "BUILTIN_BOTS",
    "HOMES",
    "GreedyBot",
    "GreedyRummyBot",
    "RandomBot",
    "SimpleBot",
    "builtin_bot",
]

#: Every built-in bot's name, and the module and class it lives in.
HOMES: dict[str, tuple[str, str]] = {
    "random": ("arena.bots.builtin", "RandomBot"),
    "greedy": ("arena.bots.builtin", "GreedyBot"),
    "simple": ("arena.bots.builtin", "SimpleBot"),
    "greedy-rummy": ("arena.bots.builtin", "GreedyRummyBot"),
    "search": ("arena.bots.reference", "SearchBot"),
    "strong-rummy": ("arena.bots.reference", "StrongRummyBot"),
}


def builtin_bot(name: str) -> type[Bot[Any, Any]]:
    """The class of the built-in bot ``name`` (``KeyError`` if there is none)."""
    module, attribute = HOMES[name]
    bot: type[Bot[Any, Any]] = getattr(importlib.import_module(module), attribute)
    return bot


def __getattr__(name: str) -> Any:
    if name == "BUILTIN_BOTS":
        value: Any = {bot: builtin_bot(bot) for bot in HOMES}
    elif name in ("GreedyBot", "GreedyRummyBot", "RandomBot", "SimpleBot"):
        value = getattr(importlib.import_module("arena.bots.builtin"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
