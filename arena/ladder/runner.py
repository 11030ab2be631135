"""Running a ladder: schedule, play matches side by side, record each as it finishes.

Crash safety: a match is marked running before it starts and finished (with its
result, faults and rating change) in one transaction when it ends.  After a
crash (even ``kill -9``), ``run`` again puts the running ones back in the queue:
finished matches are never lost or counted twice; matches in flight re-run.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from arena.cards import derive_seed
from arena.hosting.errors import HostingError
from arena.hosting.sandbox import resolve_level
from arena.ladder.config import LadderConfig, ScheduleKind
from arena.ladder.progress import Progress
from arena.ladder.schedule import Unit, continuous_pick, gauntlet, round_robin
from arena.ladder.worker import MatchJob, play_job, watch_runner
from arena.plugins import PluginError, load_plugins
from arena.ratings import DEFAULT_ENV, RatingEnv
from arena.storage.ladder_store import LadderStore
from arena.storage.submissions_store import submitted_bot_names

__all__ = ["LadderError", "RunSummary", "run_ladder"]


class LadderError(RuntimeError):
    """The ladder cannot run (a bot it needs is missing, the arena itself failed)."""


@dataclass
class RunSummary:
    finished: int = 0
    suspended: list[str] = field(default_factory=list)
    cancelled: int = 0
    recovered: int = 0


def _config(store: LadderStore) -> LadderConfig:
    return LadderConfig.from_json(store.config_json())


def _active(store: LadderStore) -> list[str]:
    return [bot.name for bot in store.bots() if bot.status == "active"]


def _plan(store: LadderStore, config: LadderConfig) -> None:
    """Queue the units a finite schedule still lacks (new bots get their games too, and
    bots enabled again the games cancelled when they were disabled)."""
    active = _active(store)
    if config.schedule is ScheduleKind.ROUND_ROBIN:
        units = round_robin(active, config.seats, config.repeat, config.duplicate)
    elif config.schedule is ScheduleKind.GAUNTLET:
        if config.champion not in active:
            return
        units = gauntlet(config.champion, active, config.seats, config.repeat, config.duplicate)
    else:
        return
    for unit in units:
        if not store.unit_exists(unit.key):
            _queue(store, config, unit)
        else:
            store.reopen_unit(unit.key)


def _queue(store: LadderStore, config: LadderConfig, unit: Unit) -> None:
    # The deals depend only on the ladder's seed and the unit's name.
    digest = int.from_bytes(hashlib.sha256(unit.key.encode()).digest()[:8], "big")
    store.add_unit(
        unit.key, derive_seed(config.seed, 3, digest) >> 1, unit.lineups
    )  # SQLite: signed 64-bit


def _unit_number(store: LadderStore) -> int:
    return int(store.db.execute("SELECT COUNT(*) FROM units").fetchone()[0])


def _next_continuous(store: LadderStore, config: LadderConfig, env: RatingEnv) -> bool:
    """Queue the next most informative unit; False if there is none to play."""
    bots = {bot.name: bot.rating for bot in store.bots() if bot.status == "active"}
    group = continuous_pick(bots, store.played_counts(), config.seats, env)
    if group is None:
        return False
    number = _unit_number(store)
    _queue(
        store, config, Unit(f"cont:{number}", tuple(_rotations(group, config.duplicate, number)))
    )
    return True


def _rotations(group: tuple[str, ...], duplicate: bool, number: int) -> list[tuple[str, ...]]:
    rotations = [group[i:] + group[:i] for i in range(len(group))]
    return rotations if duplicate else [rotations[number % len(group)]]


def _settled(store: LadderStore, until_sigma: float | None) -> bool:
    if until_sigma is None:
        return False
    return all(bot.rating.sigma < until_sigma for bot in store.bots() if bot.status == "active")


def _sandbox_for(store: LadderStore, config: LadderConfig) -> str:
    """The level to play at: submitted bots are strangers' code, so a ladder that has
    any active never plays below bwrap (where each bot is an unprivileged uid)."""
    submitted = submitted_bot_names(store) & set(_active(store))
    if not submitted:
        return config.sandbox
    if config.sandbox not in ("auto", "bwrap"):
        raise LadderError(
            f"ladder {config.name}: submitted bots ({', '.join(sorted(submitted))}) play only "
            f"under bwrap, and [run] sandbox is {config.sandbox!r}"
        )
    try:
        resolve_level("bwrap")
    except HostingError as error:
        raise LadderError(
            f"ladder {config.name}: submitted bots ({', '.join(sorted(submitted))}) play only "
            f"under bwrap: {error}"
        ) from None
    return "bwrap"


def run_ladder(
    store: LadderStore,
    *,
    max_matches: int | None = None,
    until_sigma: float | None = None,
    progress: bool = True,
    env: RatingEnv = DEFAULT_ENV,
) -> RunSummary:
    """Play queued and scheduled matches until the schedule is done, ``max_matches``
    have finished, or every active bot's sigma is below ``until_sigma``."""
    config = _config(store)
    summary = RunSummary(recovered=store.recover_running())
    plugins = load_plugins(config.plugins, autoload=config.autoload_plugins)
    plugins.game(config.game)  # refuse to start without the game
    for bot in store.bots():
        if (
            bot.status == "active"
            and not bot.reference.startswith(("grpc://", "unix:"))
            and not bot.reference.endswith(".toml")
        ):
            try:
                plugins.bot(bot.reference)
            except PluginError as error:
                raise LadderError(f"ladder {config.name}: bot {bot.name}: {error}") from None
    sandbox = _sandbox_for(store, config)
    if config.schedule is ScheduleKind.CONTINUOUS and max_matches is None and until_sigma is None:
        raise LadderError(
            "a continuous ladder needs a stopping rule: --matches N or --until-sigma S"
        )
    _plan(store, config)
    summary.cancelled += store.cancel_inactive()
    total = max_matches if max_matches is not None else (store.scheduled_count() or None)
    bar = Progress(total) if progress else None
    pending: dict[Future[dict[str, Any]], int] = {}
    started = 0
    problem: str | None = None
    context = multiprocessing.get_context("spawn")  # no fork: the referee runs gRPC threads
    with ProcessPoolExecutor(
        max_workers=config.workers,
        mp_context=context,
        initializer=watch_runner,  # workers (and their bots) die with the runner
        initargs=(os.getpid(),),
    ) as pool:
        while True:
            summary.cancelled += store.cancel_inactive()  # bots disabled or removed meanwhile
            while (
                problem is None
                and len(pending) < config.workers
                and (max_matches is None or started < max_matches)
            ):
                if _settled(store, until_sigma):
                    break
                match = store.take_next()
                if (
                    match is None
                    and config.schedule is ScheduleKind.CONTINUOUS
                    and _next_continuous(store, config, env)
                ):
                    match = store.take_next()
                if match is None:
                    _plan(store, config)  # bots added meanwhile
                    match = store.take_next()
                if match is None:
                    break
                bots = {bot.name: bot for bot in store.bots()}
                job = MatchJob(
                    match_id=match.id,
                    attempt=match.attempts,
                    game=config.game,
                    references=tuple(bots[name].reference for name in match.seats),
                    names=match.seats,
                    seed=match.seed,
                    games=config.games,
                    hands_only=config.hands_only,
                    time_control=config.time_control,
                    faults=config.faults,
                    sandbox=sandbox,
                    replays=config.replays,
                    plugins=config.plugins,
                    autoload=config.autoload_plugins,
                )
                pending[pool.submit(play_job, job)] = match.id
                started += 1
            if not pending:
                break
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                match_id = pending.pop(future)
                outcome = future.result()
                if "error" in outcome:
                    store.requeue(match_id)
                    problem = problem or f"match {match_id} could not be played: {outcome['error']}"
                    continue
                recorded = store.record(
                    match_id, outcome["result"], outcome.get("replay"), config.suspend_after, env
                )
                summary.finished += 1
                summary.suspended.extend(recorded.suspended)
                if bar:
                    note = (
                        f"suspended: {', '.join(recorded.suspended)}" if recorded.suspended else ""
                    )
                    bar.update(summary.finished, note)
    if bar:
        bar.finish()
    if problem:
        raise LadderError(problem)
    return summary
