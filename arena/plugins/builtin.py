"""The arena's own games, bots and observers, registered through the plugin hooks."""

from __future__ import annotations

from collections.abc import Sequence

from arena.bots import BUILTIN_BOTS
from arena.games.registry import builtin_games
from arena.plugins.display import VerbosePrinter
from arena.plugins.hookspecs import hookimpl
from arena.plugins.registrations import GameRegistration, MatchContext
from arena.protocol.codecs import codec_for
from arena.referee.observers import MatchObserver
from arena.replays.files import ReplayWriter


@hookimpl
def arena_register_games() -> Sequence[GameRegistration]:
    return [GameRegistration(spec, codec_for(spec.id)) for spec in builtin_games()]


@hookimpl
def arena_register_bots() -> Sequence[type]:
    return list(BUILTIN_BOTS.values())


@hookimpl
def arena_match_observers(context: MatchContext) -> Sequence[MatchObserver]:
    observers: list[MatchObserver] = []
    if context.replay_path is not None:
        observers.append(ReplayWriter(context.replay_path, live=context.live))
    if context.verbose:
        observers.append(VerbosePrinter(context.players))
    return observers
