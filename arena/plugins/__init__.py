"""Plugins (pluggy): bots, games and match observers from Python packages."""

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
