"""Warm bots: a ladder worker's bot processes, kept alive from one match to the next
(``[run] reuse_bots = true``).

A bot process serves any number of ``PlayMatch`` streams (docs/PROTOCOL.md, "Between
matches"), so a worker that plays ``random`` against ``greedy`` and then ``random``
against ``strong`` need not start ``random`` twice: start-up (the better part of a
second for a Python bot) is most of a short match.  A bot goes back to the pool only
when its match left it blameless and alive; anything else (a fault of any kind, a
process that exited, a start that failed) closes it, and the next match that needs
it starts a fresh one.  Strangers' bots (an untrusted ladder, submitted bots) are
kept only where the ladder also sets ``[run] persistent_strangers = true``
(``arena.ladder.runner`` refuses the combination otherwise): a warm bot keeps its
memory and home folder, and with them whatever it learnt of the bots it met.

The pool lives in the worker process: its bots were forked by the worker's main
thread (their parent-death signal follows it) and are killed when the worker exits
(``close``, run at exit), or with it if it dies.
"""

from __future__ import annotations

import atexit
import dataclasses
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from arena.hosting.faults import SeatStatus
from arena.hosting.launcher import HostedBot, LaunchSettings
from arena.plugins import PluginSet
from arena.plugins.bot_references import host_bots
from arena.referee.results import MatchResult

__all__ = ["MAX_IDLE", "WarmBots", "warm_run_dir"]

#: Idle bots a worker keeps at most (the least recently used go first): enough for
#: every bot of a small ladder, few enough that a large one does not fill the memory.
MAX_IDLE = 12

# What must be equal for a bot started for one match to serve another: the bot, how it
# was launched (sandbox, folder, start-up limit; not the log cap, which the ladder's log
# budget shares out match by match) and the plugins it loaded.
_Key = tuple[str, LaunchSettings, tuple[str, ...], bool]


class WarmBots:
    """Idle bot processes by what started them; ``take`` and ``give_back`` per match."""

    def __init__(self, max_idle: int = MAX_IDLE) -> None:
        self.max_idle = max_idle
        self._idle: OrderedDict[int, tuple[_Key, HostedBot]] = OrderedDict()
        self._keys: dict[int, _Key] = {}  # id(bot) -> key, for the bots out in a match
        atexit.register(self.close)

    def take(
        self,
        references: Sequence[str],
        settings: LaunchSettings,
        plugins: PluginSet,
        modules: tuple[str, ...],
        autoload: bool,
    ) -> list[HostedBot]:
        """A bot for each reference, by seat: idle ones where there are, the rest
        started now (together)."""
        keys = [_key(reference, settings, modules, autoload) for reference in references]
        kept: list[HostedBot | None] = []
        for key in keys:
            found = next((i for i, (k, _) in self._idle.items() if k == key), None)
            if found is None:
                kept.append(None)
                continue
            _, idle = self._idle.pop(found)
            self._keys[id(idle)] = key
            kept.append(idle)
        missing = [ref for ref, bot in zip(references, kept, strict=True) if bot is None]
        try:
            fresh = iter(host_bots(missing, settings, plugins, modules, autoload))
        except BaseException:
            for maybe in kept:
                if maybe is not None:
                    self._close(maybe)
            raise
        hosted = []
        for key, maybe in zip(keys, kept, strict=True):
            bot = maybe if maybe is not None else next(fresh)
            if maybe is None:
                self._keys[id(bot)] = key
            hosted.append(bot)
        return hosted

    def give_back(self, bots: Sequence[HostedBot], result: MatchResult | None) -> None:
        """After the match: keep the bots it left blameless and running, close the rest
        (all of them if it has no result: the match did not end normally)."""
        for seat, bot in enumerate(bots):
            key = self._keys.pop(id(bot), None)
            if key is None or result is None or not _reusable(bot, result, seat):
                self._close(bot)
                continue
            self._idle[id(bot)] = (key, bot)
        while len(self._idle) > self.max_idle:
            _, (_, oldest) = self._idle.popitem(last=False)
            self._close(oldest)

    def close(self) -> None:
        """Stop every idle bot (a worker's exit)."""
        while self._idle:
            _, (_, bot) = self._idle.popitem()
            self._close(bot)

    def _close(self, bot: HostedBot) -> None:
        self._keys.pop(id(bot), None)
        bot.close()


def _key(
    reference: str, settings: LaunchSettings, modules: tuple[str, ...], autoload: bool
) -> _Key:
    return (reference, dataclasses.replace(settings, log_cap=0), modules, autoload)


def _reusable(bot: HostedBot, result: MatchResult, seat: int) -> bool:
    record = result.seats[seat]
    return (
        bot.connection is not None
        and bot.start_fault is None
        and bot.process is not None  # started by us (not an address, not in-process)
        and bot.process.returncode() is None
        and record.status is SeatStatus.OK
        and not record.faults
    )


def warm_run_dir(replays: str | None, worker: int) -> Path | None:
    """Where a worker's warm bots keep their logs: one folder per worker, beside the
    matches' (a warm bot's log spans every match it played)."""
    return Path(replays) / f"warm-w{worker}" if replays else None
