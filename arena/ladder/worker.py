"""One ladder match, played in a worker process (so matches run side by side).

Everything crosses the process boundary as plain frozen values: the job in, the
outcome (``arena.ladder.jobs``) out.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import threading
import traceback
from pathlib import Path

from arena.hosting.faults import BotFault, SeatStatus
from arena.hosting.launcher import HostedBot, LaunchSettings
from arena.ladder.jobs import Errored, MatchJob, Played
from arena.ladder.warm import WarmBots, warm_run_dir
from arena.plugins import MatchContext, PluginSet, load_plugins
from arena.plugins.bot_references import host_bots, seat_problem
from arena.privatefiles import private_folder
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.results import MatchResult

__all__ = ["play_job", "watch_runner"]


_PLUGINS: dict[tuple[tuple[str, ...], bool], PluginSet] = {}  # per worker process
_WARM: WarmBots | None = None  # this worker's warm bots (``[run] reuse_bots``)


def warm_bots() -> WarmBots:
    """This worker process's pool of warm bots."""
    global _WARM
    if _WARM is None:
        _WARM = WarmBots()
    return _WARM


def _plugins(modules: tuple[str, ...], autoload: bool) -> PluginSet:
    key = (modules, autoload)
    if key not in _PLUGINS:
        _PLUGINS[key] = load_plugins(modules, autoload=autoload)
    return _PLUGINS[key]


def watch_runner(runner: int) -> None:
    """Pool initializer: end this worker, and the bots of the match it is playing, when
    the runner dies, even by ``kill -9``, or when the runner terminates it.  (An orphaned worker would otherwise finish its
    match and then wait for work forever; bots below the ``limits`` sandbox level do not
    die with it.)  A thread, not a signal: it acts whatever the match is doing.

    The runner is watched through a pidfd, not as this process's parent: a worker
    forked from a fork server is the server's child, and the server lives as long as
    any worker does (each holds its end of the server's alive pipe)."""
    try:
        handle = os.pidfd_open(runner)
    except ProcessLookupError:  # gone already
        _kill_children()
        os._exit(1)
    threading.Thread(target=_watch, args=(handle,), name="watch-runner", daemon=True).start()
    # A stopping runner whose grace is over terminates its workers: end the bots too.
    signal.signal(signal.SIGTERM, _end_on_sigterm)


class _Terminated(BaseException):
    """Raised in a worker's match by SIGTERM, so that its bots are closed on the way out."""


_playing = False  # whether this worker is inside play_job


def _end_on_sigterm(signum: int, frame: object) -> None:
    if _playing:
        raise _Terminated
    _kill_children()
    os._exit(1)


def _watch(handle: int) -> None:
    select.select([handle], [], [])  # readable once the runner has exited
    _kill_children()
    os._exit(1)


def _kill_children() -> None:
    """SIGKILL this process's children and their process groups (each bot leads its own)."""
    me = os.getpid()
    proc = Path("/proc")
    for entry in proc.iterdir() if proc.is_dir() else ():
        try:
            stat = (entry / "stat").read_bytes()
            parent = int(stat[stat.rindex(b")") + 2 :].split()[1])
        except (OSError, ValueError):
            continue
        if parent == me:
            for kill in (os.killpg, os.kill):  # the group may not exist yet (just forked)
                with contextlib.suppress(OSError):
                    kill(int(entry.name), signal.SIGKILL)


def _remove_stale_bot_dirs(replays: Path, match_id: int, attempt: int) -> None:
    """Earlier attempts of this match were cut short (the runner was killed), so their
    bots could not remove their working directories: remove them now.  The logs and
    partial replays of those attempts stay, as evidence."""
    for earlier in range(1, attempt):
        folder = replays / f"m{match_id}-a{earlier}"
        if folder.is_dir():
            for entry in folder.iterdir():
                if entry.is_dir() and not entry.is_symlink():  # a bot's own directory
                    shutil.rmtree(entry, ignore_errors=True)


def _seat(bot: HostedBot, name: str, game_id: str, plugins: PluginSet) -> Seat:
    """The bot's seat; one that cannot take it (``seat_problem``: a manifest naming
    another bot than its handshake, a game it does not play) forfeits the match with
    the reason, as a protocol error: the ladder goes on."""
    problem = seat_problem(bot, game_id, plugins)
    if problem is None:
        return Seat.of(bot, name)
    return Seat.of(bot, name, fault=BotFault(SeatStatus.PROTOCOL_ERROR, problem))


def play_job(job: MatchJob) -> Played | Errored:
    """Play the match: ``Played``, or ``Errored`` for an error of the arena's own.

    Bot faults are part of the result.  An error here is the arena's own problem
    (a plugin gone missing, a full disk): the runner puts the match back in the queue.
    """
    global _playing
    _playing = True
    try:
        return _play(job)
    except _Terminated:
        _kill_children()  # whatever the bots' own cleanup missed
        os._exit(1)
    finally:
        _playing = False


def _play(job: MatchJob) -> Played | Errored:
    try:
        plugins = _plugins(job.plugins, job.autoload)
        spec = plugins.game(job.game)
        key = f"m{job.match_id}-a{job.attempt}"
        if job.replays:
            _remove_stale_bot_dirs(Path(job.replays), job.match_id, job.attempt)
        if job.reuse_bots:  # the bots' logs span matches: kept in the worker's folder
            run_dir = warm_run_dir(job.replays, os.getpid())
        else:
            run_dir = Path(job.replays) / key if job.replays else None
        if run_dir is not None:
            private_folder(run_dir)
        replay = Path(job.replays) / f"{key}.jsonl" if job.replays else None
        config = MatchConfig.of(
            spec, job.settings, seed=job.seed, match_id=key, reveal_seed=job.reveal_seed
        )
        settings = LaunchSettings(
            sandbox=job.sandbox,
            run_dir=run_dir,
            startup_seconds=job.settings.time_control.startup_ms / 1000,
            log_cap=job.log_cap,
        )
        if job.reuse_bots:
            pool = warm_bots()
            hosted = pool.take(job.references, settings, plugins, job.plugins, job.autoload)
        else:
            hosted = host_bots(job.references, settings, plugins, job.plugins, job.autoload)
        result: MatchResult | None = None
        try:
            seats = [
                _seat(bot, name, spec.id, plugins)
                for bot, name in zip(hosted, job.names, strict=True)
            ]
            result = play_match(
                config,
                seats,
                plugins.observers(MatchContext(key, spec.id, list(job.names), replay, live=True)),
            )
        finally:
            if job.reuse_bots:
                pool.give_back(hosted, result)
            else:
                for bot in hosted:
                    bot.close()
        return Played(result, str(replay) if replay else None)
    except Exception as error:
        return Errored(f"{type(error).__name__}: {error}", traceback.format_exc())
