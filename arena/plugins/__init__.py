"""Plugins (pluggy): bots, games and match observers from Python packages.

The names below are imported when first used, so that a bot process started with
``python -m arena.plugins.serve_bot`` for a built-in bot loads neither pluggy nor the
other bots and games.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.plugins.hookspecs import hookimpl
    from arena.plugins.manager import (
        AUTOLOAD_ENV,
        ENTRY_POINT_GROUP,
        PluginError,
        PluginProblem,
        PluginSet,
        UnknownBotError,
        load_plugins,
    )
    from arena.plugins.registrations import BotRegistration, GameRegistration, MatchContext

_HOMES = {
    "AUTOLOAD_ENV": "manager",
    "ENTRY_POINT_GROUP": "manager",
    "BotRegistration": "registrations",
    "GameRegistration": "registrations",
    "MatchContext": "registrations",
    "PluginError": "manager",
    "PluginProblem": "manager",
    "PluginSet": "manager",
    "UnknownBotError": "manager",
    "hookimpl": "hookspecs",
    "load_plugins": "manager",
}

__all__ = [
    "AUTOLOAD_ENV",
    "ENTRY_POINT_GROUP",
    "BotRegistration",
    "GameRegistration",
    "MatchContext",
    "PluginError",
    "PluginProblem",
    "PluginSet",
    "UnknownBotError",
    "hookimpl",
    "load_plugins",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
