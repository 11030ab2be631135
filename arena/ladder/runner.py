"""Running a ladder: schedule, play matches side by side, record each as it finishes.

Crash safety: a match is marked running before it starts and finished (with its
result, faults and rating change) in one transaction when it ends.  After a
crash (even ``kill -9``), ``run`` again puts the running ones back in the queue:
finished matches are never lost or counted twice; matches in flight re-run.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaError
from arena.hosting.errors import HostingError
from arena.hosting.host import probe_host, strangers_level
from arena.hosting.logs import DEFAULT_LOG_CAP
from arena.hosting.lookup import is_address
from arena.hosting.sandbox import resolve_level
from arena.ladder.config import LadderConfig, ScheduleKind
from arena.ladder.deals import unit_seed
from arena.ladder.executors import open_executor
from arena.ladder.jobs import (
    MAX_ATTEMPTS,
    Errored,
    ExecutorLostError,
    Failed,
    Finished,
    Lost,
    MatchExecutor,
    MatchJob,
    Outcome,
    Played,
)
from arena.ladder.match_metrics import match_counts
from arena.ladder.progress import Progress, match_note
from arena.ladder.schedule import Unit, continuous_pick, gauntlet, lineups, round_robin
from arena.ladder.wakeup import DatabaseWatch, StopRequest
from arena.plugins import PluginError, UnknownBotError, load_plugins
from arena.privatefiles import private_folder
from arena.ratings import DEFAULT_ENV, RatingEnv
from arena.referee.results import MatchResult
from arena.storage.heartbeat import BEAT_SECONDS, RunnerState, write_heartbeat
from arena.storage.ladder_store import BotStatus, LadderStore, MatchStatus
from arena.storage.metric_counts import add_counts
from arena.storage.submissions_store import submitted_bot_names, submitted_versions
from arena.submissions.layout import DataLayout
from arena.submissions.stored import StoredVersionError, open_version

__all__ = [
    "DEFAULT_GRACE",
    "LadderError",
    "LadderRefused",
    "RunSummary",
    "check_sandbox",
    "check_stored_versions",
    "run_ladder",
]

log = logging.getLogger("arena.ladder")

#: Seconds a stopping runner gives the matches in flight to finish (``--grace``).
DEFAULT_GRACE = 30.0
_WAIT_SECONDS = 1.0  # between looks at a stop request while matches run


class LadderError(ArenaError, RuntimeError):
    """The ladder cannot run (a bot it needs is missing, the arena itself failed)."""


class LadderRefused(LadderError, ValueError):
    """This machine cannot run the ladder as its config says (bots it cannot confine as
    demanded, a replay folder it cannot make): the user's to fix, so the command line
    reports it in one line."""


@dataclass
class RunSummary:
    finished: int = 0
    suspended: list[str] = field(default_factory=list)
    cancelled: int = 0
    recovered: int = 0
    given_up: list[str] = field(default_factory=list)  # "match N: why", one per match
    failed: int = 0  # matches the arena could not play (recorded, counted for no bot)


def _config(store: LadderStore) -> LadderConfig:
    return LadderConfig.from_json(store.config_json())


def _active(store: LadderStore) -> list[str]:
    return [bot.name for bot in store.bots() if bot.status is BotStatus.ACTIVE]


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
    # The deals depend only on the ladder's secret and the unit's name.
    store.add_unit(unit.key, unit_seed(store.deal_secret(), config, unit.key), unit.lineups)


def _unit_number(store: LadderStore) -> int:
    return int(store.db.execute("SELECT COUNT(*) FROM units").fetchone()[0])


def _next_continuous(store: LadderStore, config: LadderConfig, env: RatingEnv) -> bool:
    """Queue the next most informative unit; False if there is none to play."""
    bots = {bot.name: bot.rating for bot in store.bots() if bot.status is BotStatus.ACTIVE}
    group = continuous_pick(bots, store.played_counts(), config.seats, env)
    if group is None:
        return False
    number = _unit_number(store)
    _queue(store, config, Unit(f"cont:{number}", lineups(group, config.duplicate, number)))
    return True


def _settled(store: LadderStore, until_sigma: float | None) -> bool:
    if until_sigma is None:
        return False
    return all(
        bot.rating.sigma < until_sigma for bot in store.bots() if bot.status is BotStatus.ACTIVE
    )


def _whose(config: LadderConfig, submitted: list[str]) -> str:
    """Why a ladder's bots are strangers' (for refusals)."""
    if config.untrusted:
        return "is marked untrusted = true"
    return f"has submitted bots ({', '.join(submitted)})"


def _submitted_active(store: LadderStore) -> list[str]:
    """The active bots that came in as submissions (strangers' code)."""
    return sorted(submitted_bot_names(store) & set(_active(store)))


def check_sandbox(store: LadderStore, config: LadderConfig, progress: bool) -> str:
    """The sandbox level to play at.  Strangers' bots (a ladder marked ``untrusted``, or
    any active submitted bot) play only at a level fit for strangers on this host
    (:mod:`arena.hosting.host`: bwrap, else Landlock ``limits``), and stay warm
    (``reuse_bots``) only where the operator set ``persistent_strangers``; say so when
    bots share the user's identity."""
    submitted = _submitted_active(store)
    try:
        if config.untrusted or submitted:
            level = strangers_level(config.sandbox)
        else:
            level = resolve_level(config.sandbox)
    except HostingError as error:
        if config.untrusted or submitted:
            raise LadderRefused(
                f"ladder {config.name} {_whose(config, submitted)}: {error}"
            ) from None
        raise LadderRefused(f"ladder {config.name}: {error}") from None
    if (config.untrusted or submitted) and config.reuse_bots and not config.persistent_strangers:
        raise LadderRefused(
            f"ladder {config.name} {_whose(config, submitted)} and sets reuse_bots = true: a "
            "warm bot keeps its process, memory and files from one match to the next (what "
            "it saw of the bots it met), which strangers' bots may not unless the operator "
            "says so; the sandbox is fresh only for a bot started for its match: set "
            "reuse_bots = false, or [run] persistent_strangers = true to keep them warm"
        )
    warning = probe_host().warning(level.value)
    if warning and progress:
        print(f"warning: {warning}", file=sys.stderr)
    return level.value


def check_stored_versions(store: LadderStore, config: LadderConfig) -> None:
    """Every active submitted bot starts from the archive that was vetted: its digest is
    checked (and its folder unpacked again if missing) before anything is played."""
    active = set(_active(store))
    versions = {name: sha for name, sha in submitted_versions(store).items() if name in active}
    if not versions:
        return
    layout = DataLayout.of(Path(store.path))
    for name, sha256 in sorted(versions.items()):
        try:
            open_version(layout, sha256)
        except StoredVersionError as error:
            raise LadderRefused(f"ladder {config.name}: bot {name}: {error}") from None


class _LogBudget:
    """The ladder's total for bot logs (``[run] log_budget_mb``), shared out match by
    match: each bot's stream gets at most the default cap, and together no more than
    what is left."""

    def __init__(self, config: LadderConfig) -> None:
        self.left = config.log_budget_mb * 1024 * 1024
        self._counted: dict[Path, int] = {}  # bytes of each log already taken off
        if config.replays and Path(config.replays).is_dir():
            for log in Path(config.replays).rglob("*.log"):
                self._count(log)

    def cap_per_stream(self, seats: int) -> int:
        return max(0, min(DEFAULT_LOG_CAP, self.left // (2 * seats)))

    def spent(self, result: MatchResult) -> None:
        """Take a finished match's logs off the budget: what they grew by since last
        counted (a warm bot's log spans many matches)."""
        for seat in result.seats:
            stderr = seat.stderr_path
            if stderr:
                for stream in (Path(stderr), Path(stderr.replace(".stderr.log", ".stdout.log"))):
                    self._count(stream)

    def _count(self, log: Path) -> None:
        try:
            size = log.stat().st_size
        except OSError:
            return
        self.left -= size - self._counted.get(log, 0)
        self._counted[log] = size


def _give_up(store: LadderStore, summary: RunSummary, match_id: int, error: str) -> None:
    reason = f"given up after {MAX_ATTEMPTS} attempts: {error}"
    store.give_up(match_id, reason)
    summary.given_up.append(f"match {match_id}: {reason}")


@contextmanager
def _requeue_if_lost(store: LadderStore, pending: set[int], summary: RunSummary) -> Iterator[None]:
    """When the executor is lost (the Dask scheduler gone), put the matches in flight back
    in the queue and stop with a LadderError saying how to resume."""
    try:
        yield
    except ExecutorLostError as error:
        for match_id in pending:
            store.requeue(match_id)
        raise LadderError(
            f"{error}; {len(pending)} match(es) in flight put back in the queue, "
            f"{summary.finished} recorded this run: run `arena ladder run` again to resume"
        ) from None


@dataclass
class _Run:
    """One run of a ladder: what it plays with and how far it has got."""

    store: LadderStore
    config: LadderConfig
    sandbox: str
    env: RatingEnv
    logs: _LogBudget
    summary: RunSummary
    max_matches: int | None
    until_sigma: float | None
    bar: Progress | None
    pending: set[int] = field(default_factory=set)
    started: int = 0
    problem: str | None = None  # the local pool broke: take no more matches

    def fill(self, executor: MatchExecutor) -> None:
        """Start matches until the executor is full or nothing is left to start."""
        store, config = self.store, self.config
        while (
            self.problem is None
            and len(self.pending) < executor.capacity()
            and (self.max_matches is None or self.started < self.max_matches)
            and not _settled(store, self.until_sigma)
        ):
            match = store.take_next()
            if (
                match is None
                and config.schedule is ScheduleKind.CONTINUOUS
                and _next_continuous(store, config, self.env)
            ):
                match = store.take_next()
            if match is None:
                _plan(store, config)  # bots added meanwhile
                match = store.take_next()
            if match is None:
                return
            if match.attempts > MAX_ATTEMPTS:  # earlier runs died on it: never again
                _give_up(store, self.summary, match.id, f"{MAX_ATTEMPTS} attempts never finished")
                continue
            bots = {bot.name: bot for bot in store.bots()}
            job = MatchJob(
                match_id=match.id,
                attempt=match.attempts,
                game=config.game,
                references=tuple(bots[name].reference for name in match.seats),
                names=match.seats,
                seed=match.seed,
                # The other matches of its unit play the same deals.
                reveal_seed=match.unit_matches == 1,
                settings=config.match_settings,
                sandbox=self.sandbox,
                replays=config.replays,
                plugins=config.plugins,
                autoload=config.autoload_plugins,
                log_cap=self.logs.cap_per_stream(len(match.seats)),
                reuse_bots=config.reuse_bots,
            )
            self.pending.add(match.id)
            try:
                executor.submit(job)
            except BaseException:
                self.pending.discard(match.id)
                store.requeue(match.id)
                raise
            self.started += 1

    def _count(self, outcome: Outcome) -> None:
        """Add the match to the metric counts, once it is recorded (a crash in between
        loses its counts, never its result)."""
        try:
            add_counts(self.store.db, match_counts(outcome))
        except sqlite3.Error as error:  # metrics never stop a ladder
            log.warning("metric counts not written: %s", error)

    def collect(self, finished: Finished, executor: MatchExecutor) -> None:
        """Record what became of one match."""
        store, summary, match_id = self.store, self.summary, finished.match_id
        self.pending.discard(match_id)
        status = store.match_status(match_id)
        if status is not MatchStatus.RUNNING:
            log.warning(
                "match %d: a late result (attempt %d) ignored: the match is %s",
                match_id, finished.attempt, status,
            )  # fmt: skip
            return
        match finished.outcome:
            case Lost(reason):  # the local pool broke: it cannot play any more
                store.requeue(match_id)
                self.problem = self.problem or reason
            case Failed(reason):
                store.record_failure(match_id, reason)
                summary.failed += 1
                log.warning("match %d failed: %s", match_id, reason)
            case Errored(error):
                if finished.attempt >= MAX_ATTEMPTS:
                    _give_up(store, summary, match_id, error)
                else:
                    store.requeue(match_id)  # taken again next, up to MAX_ATTEMPTS
                if self.bar:
                    self.bar.update(summary.finished, f"match {match_id}: {error}")
            case Played(result, replay):
                # Rated by the ladder's system in force (read in the same transaction).
                recorded = store.record(match_id, result, replay, self.config.suspend_after)
                self.logs.spent(result)
                summary.finished += 1
                summary.suspended.extend(recorded.suspended)
                if self.bar:
                    notes = [match_note(match_id, result), executor.status()]
                    if recorded.suspended:
                        notes.append(f"suspended: {', '.join(recorded.suspended)}")
                    faulty = bool(result.faults()) or bool(recorded.suspended)
                    self.bar.update(summary.finished, "  ".join(filter(None, notes)), keep=faulty)
        self._count(finished.outcome)


def _prepare(
    store: LadderStore,
    config: LadderConfig,
    progress: bool,
    max_matches: int | None,
    until_sigma: float | None,
    forever: bool,
) -> tuple[str, RunSummary]:
    """Check that the ladder can run here as its config says, put back the matches a
    crash left running and queue what the schedule lacks: the sandbox level to play
    at, and the run's summary so far."""
    sandbox = check_sandbox(store, config, progress)
    check_stored_versions(store, config)
    summary = RunSummary(recovered=store.recover_running())
    plugins = load_plugins(config.plugins, autoload=config.autoload_plugins)
    plugins.game(config.game)  # refuse to start without the game
    for bot in store.bots():
        if (
            bot.status is BotStatus.ACTIVE
            and not is_address(bot.reference)
            and not bot.reference.endswith(".toml")
        ):
            try:
                plugins.bot(bot.reference)
            except (PluginError, UnknownBotError) as error:
                raise LadderError(f"ladder {config.name}: bot {bot.name}: {error}") from None
    if forever and max_matches is not None:
        raise LadderRefused("--forever plays until stopped: it takes no --matches")
    if (
        config.schedule is ScheduleKind.CONTINUOUS
        and not forever
        and max_matches is None
        and until_sigma is None
    ):
        raise LadderError(
            "a continuous ladder needs a stopping rule: --matches N or --until-sigma S "
            "(or --forever, to play until stopped)"
        )
    if config.replays:
        try:
            private_folder(Path(config.replays))  # replays and bots' logs: owner-only
        except OSError as error:
            raise LadderRefused(
                f"ladder {config.name}: cannot make its replay folder {config.replays}: "
                f"{error.strerror or error}"
            ) from None
    _plan(store, config)
    summary.cancelled += store.cancel_inactive()
    return sandbox, summary


def run_ladder(
    store: LadderStore,
    *,
    max_matches: int | None = None,
    until_sigma: float | None = None,
    progress: bool = True,
    env: RatingEnv = DEFAULT_ENV,
    dask: str | None = None,
    forever: bool = False,
    stop: StopRequest | None = None,
    grace: float = DEFAULT_GRACE,
) -> RunSummary:
    """Play queued and scheduled matches until the schedule is done, ``max_matches``
    have finished, or every active bot's sigma is below ``until_sigma``.  ``dask``
    runs them on Dask workers (a scheduler's address, or "local") whatever the config
    says.

    ``forever``: when there is nothing to play, wait (without polling) for another
    process to change the ladder (a bot added, enabled or accepted) and go on, until
    ``stop`` is requested.  A stop, forever or not, takes no more matches, gives those
    in flight ``grace`` seconds to finish, and puts the rest back in the queue."""
    config = _config(store)
    sandbox, summary = _prepare(store, config, progress, max_matches, until_sigma, forever)
    total = max_matches if max_matches is not None else (store.scheduled_count() or None)
    run = _Run(
        store,
        config,
        sandbox,
        env,
        _LogBudget(config),
        summary,
        max_matches,
        until_sigma,
        Progress(total) if progress and not forever else None,
    )
    pulse = _Pulse(store)
    watch = DatabaseWatch(Path(store.path), store.db)
    try:
        with (
            _requeue_if_lost(store, run.pending, summary),
            open_executor(
                config, dask, strangers=config.untrusted or bool(_submitted_active(store))
            ) as executor,
        ):
            _play(run, executor, pulse, watch, forever, stop, grace)
    finally:
        watch.close()
        pulse.beat(RunnerState.STOPPED, 0, force=True)
    if run.bar:
        run.bar.finish()
    if run.problem:
        raise LadderError(run.problem)
    return summary


def _play(
    run: _Run,
    executor: MatchExecutor,
    pulse: _Pulse,
    watch: DatabaseWatch,
    forever: bool,
    stop: StopRequest | None,
    grace: float,
) -> None:
    """The run's loop: fill the executor, take back what finishes, beat, and wait when
    there is nothing to do."""
    store = run.store
    while True:
        stopping = stop is not None and stop.requested
        if not stopping:
            run.summary.cancelled += store.cancel_inactive()  # bots disabled meanwhile
            run.fill(executor)
        if run.pending:
            pulse.beat(RunnerState.STOPPING if stopping else RunnerState.PLAYING, len(run.pending))
            if stopping and stop is not None and stop.at is not None:
                left = stop.at + grace - time.monotonic()
                if left <= 0:
                    _abandon(run, executor)
                    return
                timeout = min(_WAIT_SECONDS, left)
            else:
                timeout = _WAIT_SECONDS
            for finished in executor.wait(timeout):
                run.collect(finished, executor)
            continue
        if stopping or not forever or run.problem is not None:
            return
        pulse.beat(RunnerState.IDLE, 0)
        watch.wait(BEAT_SECONDS, stop)


def _abandon(run: _Run, executor: MatchExecutor) -> None:
    """The grace is over: stop the matches in flight and put them back in the queue (an
    attempt cut short is not counted against the match)."""
    log.warning(
        "grace over: %d match(es) in flight stopped and put back in the queue", len(run.pending)
    )
    executor.abandon()
    for match_id in sorted(run.pending):
        run.store.requeue(match_id, count_attempt=False)
    run.pending.clear()


class _Pulse:
    """Writes the runner's heartbeat when its state changes, and every few seconds."""

    def __init__(self, store: LadderStore) -> None:
        self.store = store
        self.started = time.time()
        self.last: tuple[RunnerState, int] | None = None
        self.at = 0.0

    def beat(self, state: RunnerState, running: int, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or (state, running) != self.last or now - self.at >= BEAT_SECONDS:
            write_heartbeat(self.store.db, self.started, state, running)
            self.last, self.at = (state, running), now
