"""The plugin contract: every hook Rummy Arena calls, in one module.

A plugin is a module (or object) with functions marked ``@hookimpl`` and named as
below.  Plugins come from the ``rummy_arena`` entry-point group, from modules
named with ``--plugin MODULE`` (or a ladder config's ``plugins``), and from the
arena itself: the built-in games, bots, replay writer and progress display are
registered through these same hooks (``arena.plugins.builtin``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from arena.plugins.registrations import BotRegistration, GameRegistration, MatchContext
    from arena.referee.observers import MatchObserver
    from arena.referee.results import MatchResult
    from arena.replays.records import ActionRecord, HandEndRecord, MatchHeader

__all__ = ["PROJECT", "hookimpl", "hookspec"]

PROJECT = "rummy_arena"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def arena_register_bots() -> Sequence[BotRegistration | type]:
    """Called once, when plugins are loaded.

    Return the Python bots this plugin offers: ``BotRegistration`` objects, or
    ``arena.sdk.Bot`` subclasses (registered under their ``name`` and ``games``).
    A registered bot runs in its own sandboxed process by default, and inside
    the referee with ``--in-process``.
    """


@hookspec
def arena_register_games() -> Sequence[GameRegistration]:
    """Called once, when plugins are loaded.

    Return the games and rule sets this plugin offers, each a ``GameRegistration``:
    a ``GameSpec`` (versioned id such as ``gin-rummy/standard``) and the module
    converting its types to protocol messages.
    """


@hookspec
def arena_match_observers(context: MatchContext) -> Sequence[MatchObserver]:
    """Called when a match is about to start.

    Return observers that will receive every record of the match (``MatchObserver``:
    ``on_record`` for each record, ``close`` at the end), e.g. a replay writer.
    """


@hookspec
def arena_match_started(context: MatchContext, header: MatchHeader) -> None:
    """Called when a match starts, with its header record (game, rules, the seed's
    commitment, players; the seed itself comes in the ``reveal`` record at the end).
    Records (``arena.replays.records``, docs/REPLAY.md) also read as their JSON
    objects: ``header["game_id"]`` is ``header.game_id``."""


@hookspec
def arena_decision_made(context: MatchContext, record: ActionRecord) -> None:
    """Called after every decision is played: seat, action text, milliseconds, comment."""


@hookspec
def arena_hand_ended(context: MatchContext, record: HandEndRecord) -> None:
    """Called when a hand ends, with its result (every seat's melds, deadwood, points)."""


@hookspec
def arena_match_ended(context: MatchContext, result: MatchResult) -> None:
    """Called when a match ends, with its whole result: ``MatchResult``
    (``arena.referee.results``: seats, games, faults; ``result.to_json()`` is what
    ``arena match --json`` prints).  Decision times come as each seat's summary
    (``result.seats[i].timing``)."""
