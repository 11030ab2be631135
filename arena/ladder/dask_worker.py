"""What runs on a Dask worker: the admission check and one match per task.

A worker is admitted to a ladder when its arena version and plugins (names and
versions: the registered Python bots come from them) are the runner's, and it can
give the sandbox level the ladder demands.  Admission sets a Dask *resource* named
after those requirements on the worker; every match task asks for one unit of it,
so the scheduler never sends a match to a worker that was refused.

A match is played by ``worker.play_job`` in a process pool the worker keeps (one
process per worker thread): the referee gets its own interpreter, and that process
watches the worker, so a worker killed with ``kill -9`` takes the match's bots with
it whatever the sandbox level.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import multiprocessing
import os
import shutil
import tempfile
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from importlib.metadata import entry_points, packages_distributions, version
from pathlib import Path

from distributed import Scheduler, Worker, WorkerPlugin, get_worker

import arena
from arena.errors import ArenaError
from arena.hosting.errors import HostingError
from arena.hosting.host import strangers_level
from arena.hosting.process import arena_folder
from arena.hosting.sandbox import resolve_level
from arena.ladder.bundles import unpack
from arena.ladder.jobs import Errored, MatchFiles, MatchJob, Played
from arena.ladder.worker import play_job, watch_runner
from arena.plugins import load_plugins
from arena.plugins.manager import ENTRY_POINT_GROUP

__all__ = [
    "Admission",
    "RefereeDiedError",
    "WorkerProfile",
    "admit_worker",
    "describe_difference",
    "requirement_resource",
    "run_match",
    "schedule_waiting_matches",
    "worker_profile",
]

LOG_TAIL_BYTES = 1024 * 1024  # of each bot log sent back to the runner

_POOL_LOCK = threading.Lock()
_POOL: ProcessPoolExecutor | None = None
_PROFILES: dict[tuple[tuple[str, ...], bool], WorkerProfile] = {}  # this worker's, by plugins


class RefereeDiedError(ArenaError, RuntimeError):
    """The process playing a match died (the match took it down); Dask retries the task."""


@dataclass(frozen=True)
class WorkerProfile:
    """What must be the same on the runner and every worker: the arena's version, the
    plugins with their distributions' versions, and the bots they register."""

    arena: str
    plugins: dict[str, str]  # plugin (entry point or module) -> "distribution version"
    bots: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"arena": self.arena, "plugins": self.plugins, "bots": list(self.bots)}


@dataclass(frozen=True)
class Admission:
    """A worker's answer to ``admit_worker``: why it was refused (None: admitted), the
    sandbox level it will play at, and its threads."""

    problem: str | None
    sandbox: str
    nthreads: int


def worker_profile(modules: tuple[str, ...], autoload: bool) -> WorkerProfile:
    """What must be the same on the runner and every worker: the arena's version, the
    plugins with their distributions' versions, and the bots they register."""
    plugins = load_plugins(modules, autoload=autoload)
    versions: dict[str, str] = {}
    if autoload:
        for entry in entry_points(group=ENTRY_POINT_GROUP):
            dist = entry.dist
            versions[entry.name] = f"{dist.name} {dist.version}" if dist else "unpackaged"
    owners = packages_distributions()
    for module in modules:
        top = module.partition(".")[0]
        names = owners.get(top, [])
        if names:
            versions[module] = f"{names[0]} {version(names[0])}"
        else:
            try:
                loaded = importlib.import_module(module)
            except Exception:
                versions[module] = "cannot be imported"
                continue
            versions[module] = str(getattr(loaded, "__version__", "unversioned"))
    return WorkerProfile(
        arena.__version__, dict(sorted(versions.items())), tuple(sorted(plugins.bots))
    )


def describe_difference(runner: WorkerProfile, worker: WorkerProfile) -> str | None:
    """The differences between the runner's profile and a worker's, or None."""
    problems = []
    if runner.arena != worker.arena:
        problems.append(f"arena {worker.arena} (the runner has {runner.arena})")
    mine, theirs = runner.plugins, worker.plugins
    for name in sorted(set(mine) | set(theirs)):
        if name not in theirs:
            problems.append(f"plugin {name} missing (the runner has {mine[name]})")
        elif name not in mine:
            problems.append(f"plugin {name} ({theirs[name]}) that the runner does not have")
        elif mine[name] != theirs[name]:
            problems.append(f"plugin {name}: {theirs[name]} (the runner has {mine[name]})")
    missing = sorted(set(runner.bots) - set(worker.bots))
    extra = sorted(set(worker.bots) - set(runner.bots))
    if missing:
        problems.append(f"bots missing: {', '.join(missing)}")
    if extra:
        problems.append(f"bots the runner does not have: {', '.join(extra)}")
    return "; ".join(problems) or None


def requirement_resource(profile: WorkerProfile, sandbox: str, strangers: bool = False) -> str:
    """The Dask resource admitted workers carry: one name per set of requirements."""
    text = json.dumps(
        {"profile": profile.to_json(), "sandbox": sandbox, "strangers": strangers}, sort_keys=True
    )
    return "arena-" + hashlib.sha256(text.encode()).hexdigest()[:16]


async def admit_worker(
    expected: WorkerProfile,
    sandbox: str,
    modules: tuple[str, ...],
    autoload: bool,
    dask_worker: Worker,
    strangers: bool = False,
) -> Admission:
    """Run on each worker by the runner (``client.run``): check it and, if it passes,
    give it the ladder's resource.  With ``strangers`` (the ladder plays strangers'
    bots), the level must be fit for them on this worker's host, which may lack what the
    runner's has (bwrap, Landlock)."""
    key = (modules, autoload)
    if key not in _PROFILES:  # a worker's plugins do not change while it lives
        _PROFILES[key] = await asyncio.to_thread(worker_profile, modules, autoload)
    profile = _PROFILES[key]
    problem = describe_difference(expected, profile)
    level = ""
    if problem is None:
        try:
            choose = strangers_level if strangers else resolve_level
            level = (await asyncio.to_thread(choose, sandbox)).value
        except HostingError as error:
            problem = str(error)
    if problem is None:
        nthreads = dask_worker.state.nthreads
        await dask_worker.plugin_add(plugin=_PoolCloser(), name="arena-referee-pool")
        resource = requirement_resource(expected, sandbox, strangers)
        await dask_worker.set_resources(**{resource: nthreads})
    return Admission(problem, level, dask_worker.state.nthreads)


class _PoolCloser(WorkerPlugin):
    """Ends the referee processes when the worker closes (else the worker's exit waits
    on them, and a nanny kills it after a few seconds)."""

    def teardown(self, worker: Worker) -> None:
        global _POOL
        with _POOL_LOCK:
            pool, _POOL = _POOL, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def schedule_waiting_matches(workers: list[str], dask_scheduler: Scheduler) -> None:
    """Run on the scheduler after workers were admitted: a task that found no worker
    with the ladder's resource waits as "no-worker", and Dask looks at those again only
    when a worker joins, not when one gains a resource, so look now (the same call the
    scheduler makes for a new worker)."""
    for address in workers:
        state = dask_scheduler.workers.get(address)
        if state is not None:
            dask_scheduler.transitions(
                dask_scheduler.bulk_schedule_unrunnable_after_adding_worker(state),
                f"arena-admitted-{address}",
            )


def _pool(worker: Worker) -> ProcessPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            # A nanny starts its worker as a daemonic process, and multiprocessing refuses
            # daemonic processes children lest they outlive it.  Ours cannot: each one
            # watches this worker and ends, with its bots, when the worker does.
            vars(multiprocessing.current_process())["_config"]["daemon"] = False
            _POOL = ProcessPoolExecutor(
                max_workers=worker.state.nthreads,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=watch_runner,  # the referee and its bots die with this worker
                initargs=(os.getpid(),),
            )
        return _POOL


def _drop_pool(broken: ProcessPoolExecutor) -> None:
    global _POOL
    with _POOL_LOCK:
        if _POOL is broken:
            _POOL = None
    broken.shutdown(wait=False, cancel_futures=True)


def run_match(job: MatchJob, bundles: dict[str, tuple[str, str, bytes]]) -> Played | Errored:
    """The Dask task: play one match here; the result, replay and bot logs go back.

    ``bundles`` maps a manifest reference (the runner's path) to its archive's digest,
    the manifest's path inside it and the archive itself.
    """
    worker = get_worker()
    # Not the worker's own scratch folder (mode 700): the bots' uids must reach their files.
    cache = arena_folder() / "arena-bots"
    try:
        references = tuple(
            str(unpack(bundles[ref][2], bundles[ref][0], cache) / bundles[ref][1])
            if ref in bundles
            else ref
            for ref in job.references
        )
    except (OSError, ValueError) as error:
        return Errored(f"{worker.address}: cannot unpack a bot: {error}")
    local = Path(worker.local_directory)  # the match's logs and replay, until sent back
    scratch = Path(tempfile.mkdtemp(prefix="arena-match-", dir=local)) if job.replays else None
    try:
        pool = _pool(worker)
        local_job = replace(job, references=references, replays=str(scratch) if scratch else None)
        try:
            outcome = pool.submit(play_job, local_job).result()
        except BrokenProcessPool:
            _drop_pool(pool)
            raise RefereeDiedError(
                f"the process playing match {job.match_id} on worker {worker.address} died"
            ) from None
        if scratch is not None and isinstance(outcome, Played):
            return replace(outcome, files=_collect(scratch, f"m{job.match_id}-a{job.attempt}"))
        return outcome
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _collect(scratch: Path, key: str) -> MatchFiles:
    """The replay and the bots' logs (their tails), as bytes by file name."""
    replay = scratch / f"{key}.jsonl"
    logs: dict[str, bytes] = {}
    folder = scratch / key
    for entry in sorted(folder.iterdir()) if folder.is_dir() else ():
        if entry.is_file() and not entry.is_symlink():
            with entry.open("rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, size - LOG_TAIL_BYTES))
                logs[entry.name] = handle.read()
    return MatchFiles(replay.read_bytes() if replay.is_file() else None, logs)
