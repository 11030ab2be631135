"""Loading plugins, and the registries of bots and games they fill.

A broken plugin (import error, a hook with a wrong signature, a hook that raises,
two bots with one name) is recorded as a ``PluginProblem`` naming the plugin; the
others keep working.  Asking for something a broken plugin spoiled raises
``PluginError`` with that problem, so a match or ladder needing it refuses to start.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

import pluggy

from arena.errors import ArenaError
from arena.games.registry import UnknownGameError
from arena.games.spec import GameSpec
from arena.hosting.errors import UnknownBotError
from arena.plugins import builtin, hookspecs
from arena.plugins.hookspecs import PROJECT
from arena.plugins.registrations import BotRegistration, GameRegistration, MatchContext
from arena.protocol.codecs import register_codec
from arena.referee.observers import MatchObserver
from arena.referee.results import MatchResult
from arena.replays.records import ActionRecord, HandEndRecord, MatchEndRecord, MatchHeader, Record
from arena.sdk import Bot

__all__ = [
    "AUTOLOAD_ENV",
    "ENTRY_POINT_GROUP",
    "PluginError",
    "PluginProblem",
    "PluginSet",
    "UnknownBotError",
    "load_plugins",
]

ENTRY_POINT_GROUP = "rummy_arena"
AUTOLOAD_ENV = "ARENA_DISABLE_PLUGIN_AUTOLOAD"  # set to 1: no entry-point plugins
_HOOK_NAMES = frozenset(name for name in dir(hookspecs) if name.startswith("arena_"))


class PluginError(ArenaError, ValueError):
    """A plugin problem that stops what was asked for."""


@dataclass(frozen=True)
class PluginProblem:
    plugin: str
    message: str

    def __str__(self) -> str:
        return f"plugin {self.plugin!r}: {self.message}"


class _HookDispatcher(MatchObserver):
    """Feeds match records to the four observation hooks."""

    def __init__(self, hook: Any, context: MatchContext) -> None:
        self.hook = hook
        self.context = context

    def on_record(self, record: Record) -> None:
        if isinstance(record, MatchHeader):
            self.hook.arena_match_started(context=self.context, header=record)
        elif isinstance(record, ActionRecord):
            self.hook.arena_decision_made(context=self.context, record=record)
        elif isinstance(record, HandEndRecord):
            self.hook.arena_hand_ended(context=self.context, record=record)
        elif isinstance(record, MatchEndRecord):
            self.hook.arena_match_ended(
                context=self.context, result=MatchResult.from_json(record.result)
            )


class PluginSet:
    """The loaded plugins and what they registered."""

    def __init__(self) -> None:
        self.manager = pluggy.PluginManager(PROJECT)
        self.manager.add_hookspecs(hookspecs)
        self.problems: list[PluginProblem] = []
        self.bots: dict[str, BotRegistration] = {}
        self.games: dict[str, GameRegistration] = {}
        self.plugin_names: list[str] = []
        self._spoiled: dict[str, PluginProblem] = {}  # bot name -> why it cannot be used

    # -- loading -------------------------------------------------------------

    def add(self, plugin: ModuleType | object, name: str) -> bool:
        """Register one plugin; a problem is recorded (and False returned) if it is broken."""
        unknown = sorted(
            attr
            for attr in dir(plugin)
            if attr.startswith("arena_")
            and self.manager.parse_hookimpl_opts(plugin, attr) is not None
            and attr not in _HOOK_NAMES
        )
        if unknown:
            self.problems.append(
                PluginProblem(
                    name,
                    f"unknown hook {', '.join(unknown)} (known: {', '.join(sorted(_HOOK_NAMES))})",
                )
            )
            return False
        try:
            self.manager.register(plugin, name=name)
        except (pluggy.PluginValidationError, ValueError) as error:
            self.problems.append(PluginProblem(name, f"invalid hook: {error}"))
            return False
        self.plugin_names.append(name)
        return True

    def collect(self) -> None:
        """Ask every plugin for its bots and games, one plugin at a time."""
        for impl in self.manager.hook.arena_register_games.get_hookimpls():
            for item in self._call(impl):
                if not isinstance(item, GameRegistration):
                    self.problems.append(
                        PluginProblem(
                            impl.plugin_name,
                            f"arena_register_games returned {item!r}, not a GameRegistration",
                        )
                    )
                    continue
                self._add_game(replace(item, source=impl.plugin_name))
        for impl in self.manager.hook.arena_register_bots.get_hookimpls():
            for item in self._call(impl):
                registration = self._as_bot(item, impl.plugin_name)
                if registration is not None:
                    self._add_bot(registration)

    def _call(self, impl: Any) -> list[Any]:
        try:
            result = impl.function()
        except Exception as error:
            self.problems.append(
                PluginProblem(
                    impl.plugin_name,
                    f"{impl.function.__name__} raised {type(error).__name__}: {error}",
                )
            )
            return []
        if result is None:
            return []
        if not isinstance(result, Iterable) or isinstance(result, str):
            self.problems.append(
                PluginProblem(
                    impl.plugin_name, f"{impl.function.__name__} must return a list, got {result!r}"
                )
            )
            return []
        return list(result)

    def _as_bot(self, item: Any, plugin: str) -> BotRegistration | None:
        if isinstance(item, type) and issubclass(item, Bot):
            item = BotRegistration.of_class(item)
        if not isinstance(item, BotRegistration):
            self.problems.append(
                PluginProblem(
                    plugin,
                    f"arena_register_bots returned {item!r}, not a Bot subclass or BotRegistration",
                )
            )
            return None
        return replace(item, source=plugin)

    def _add_bot(self, registration: BotRegistration) -> None:
        name = registration.name
        first = self.bots.get(name)
        if first is None and name not in self._spoiled:
            self.bots[name] = registration
            return
        earlier = first.source if first is not None else self._spoiled[name].plugin
        problem = PluginProblem(
            registration.source, f"bot name {name!r} is also registered by plugin {earlier!r}"
        )
        self.problems.append(problem)
        self._spoiled[name] = problem
        self.bots.pop(name, None)

    def _add_game(self, registration: GameRegistration) -> None:
        game_id = registration.spec.id
        if game_id in self.games:
            self.problems.append(
                PluginProblem(
                    registration.source,
                    f"game {game_id!r} is also registered by plugin {self.games[game_id].source!r}",
                )
            )
            return
        self.games[game_id] = registration
        register_codec(game_id, registration.codec)

    # -- lookups -------------------------------------------------------------

    def bot(self, name: str) -> BotRegistration:
        if name in self._spoiled:
            raise PluginError(f"cannot use bot {name!r}: {self._spoiled[name]}")
        try:
            return self.bots[name]
        except KeyError:
            raise UnknownBotError(
                self._unknown(f"unknown bot {name!r}", sorted(self.bots))
            ) from None

    def game(self, game_id: str) -> GameSpec:
        try:
            return self.games[game_id].spec
        except KeyError:
            raise UnknownGameError(
                self._unknown(f"unknown game {game_id!r}", sorted(self.games))
            ) from None

    def _unknown(self, what: str, known: list[str]) -> str:
        message = f"{what}; known: {', '.join(known) or 'none'}"
        if self.problems:
            message += "; plugin problems: " + "; ".join(str(problem) for problem in self.problems)
        return message

    def observers(self, context: MatchContext) -> list[MatchObserver]:
        """Every plugin's observers for a match, then the observation-hook dispatcher."""
        observers: list[MatchObserver] = []
        for result in self.manager.hook.arena_match_observers(context=context):
            observers.extend(result)
        return [*observers, _HookDispatcher(self.manager.hook, context)]


def autoload_enabled(requested: bool | None) -> bool:
    """Entry-point plugins load unless turned off (option, or ``ARENA_DISABLE_PLUGIN_AUTOLOAD``)."""
    if requested is not None:
        return requested
    return os.environ.get(AUTOLOAD_ENV, "") in ("", "0")


def load_plugins(modules: Sequence[str] = (), *, autoload: bool | None = None) -> PluginSet:
    """The built-in plugin, entry-point plugins (unless off) and ``modules``."""
    plugins = PluginSet()
    plugins.add(builtin, "builtin")
    if autoload_enabled(autoload):
        for entry in entry_points(group=ENTRY_POINT_GROUP):
            try:
                module = entry.load()
            except Exception as error:
                plugins.problems.append(
                    PluginProblem(
                        entry.name, f"cannot import {entry.value}: {type(error).__name__}: {error}"
                    )
                )
                continue
            plugins.add(module, entry.name)
    for name in modules:
        try:
            module = importlib.import_module(name)
        except Exception as error:
            plugins.problems.append(
                PluginProblem(name, f"cannot import: {type(error).__name__}: {error}")
            )
            continue
        plugins.add(module, name)
    plugins.collect()
    return plugins
