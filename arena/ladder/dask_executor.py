"""Matches on Dask distributed: the runner's side.

Each match is one task, never pure, keyed by ladder, run, match and attempt, asking
for one unit of the resource that admitted workers carry (``dask_worker``).  Dask
schedules and retries: a task whose worker dies is run again elsewhere; one that took
down ``MAX_ATTEMPTS`` workers (``KilledWorker``), or whose referee process died as
many times, comes back ``Failed``.  Results, replays and bot logs come back here and
only the runner writes them (the database once per match id, by the runner's check).

Manifest bots travel as content-addressed archives (``bundles``), packed once per run
and sent with each match task: the scheduler keeps a task's data, so no worker's death
can lose a bot (data scattered to a worker dies with it), and a worker unpacks each
archive once into its cache.
"""

from __future__ import annotations

import secrets
import sys
import time
from concurrent.futures import CancelledError
from dataclasses import replace
from pathlib import Path

import dask
from distributed import Client, Future, KilledWorker, LocalCluster, wait

from arena.hosting.lookup import is_address
from arena.ladder.bundles import BundleError, pack_manifest
from arena.ladder.config import LadderConfig
from arena.ladder.dask_worker import (
    RefereeDiedError,
    admit_worker,
    requirement_resource,
    run_match,
    schedule_waiting_matches,
    worker_profile,
)
from arena.ladder.jobs import (
    MAX_ATTEMPTS,
    Errored,
    ExecutorLostError,
    Failed,
    Finished,
    MatchJob,
    Outcome,
    Played,
)

__all__ = ["DaskExecutor"]

_WAIT_SECONDS = 1.0  # between looks at the workers while matches run
_LOOK_SECONDS = 1.0  # at most one look at the workers per this (the list can be long)
_CONNECT_SECONDS = 20


class DaskExecutor:
    def __init__(self, config: LadderConfig, address: str, strangers: bool = False) -> None:
        self.config = config
        self.strangers = strangers  # strangers' bots: a worker's level must be fit for them
        self.address = address or "a LocalCluster"
        self.cluster: LocalCluster | None = None
        if address:
            try:
                self.client = Client(address, timeout=_CONNECT_SECONDS)
            except (OSError, TimeoutError) as error:
                raise ExecutorLostError(
                    f"cannot reach the Dask scheduler at {address}: {error}"
                ) from None
        else:
            # The scheduler is ours: it gives up on a match after MAX_ATTEMPTS dead workers.
            with dask.config.set({"distributed.scheduler.allowed-failures": MAX_ATTEMPTS - 1}):
                self.cluster = LocalCluster(
                    n_workers=config.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                )
            self.client = Client(self.cluster)
        self.run = f"arena-{config.name}-{secrets.token_hex(4)}"
        self.profile = worker_profile(config.plugins, config.autoload_plugins)
        self.resource = requirement_resource(self.profile, config.sandbox, strangers)
        self.admitted: dict[str, int] = {}  # worker address -> threads
        self.refused: dict[str, str] = {}  # worker address -> why
        self.bundles: dict[str, tuple[str, str, bytes]] = {}
        self.pending: dict[Future[Played | Errored], MatchJob] = {}
        self.looked = -_LOOK_SECONDS

    # -- workers ---------------------------------------------------------------

    def _workers(self) -> set[str]:
        try:
            info = self.client.scheduler_info(n_workers=-1)
        except (OSError, TimeoutError) as error:
            raise ExecutorLostError(self._lost(error)) from None
        return set(info.get("workers", {}))

    def _admit_new(self) -> None:
        if time.monotonic() - self.looked < _LOOK_SECONDS:
            return
        self.looked = time.monotonic()
        present = self._workers()
        for gone in set(self.admitted) - present:
            del self.admitted[gone]
        new = sorted(present - set(self.admitted) - set(self.refused))
        if not new:
            return
        try:
            answers = self.client.run(
                admit_worker,
                self.profile,
                self.config.sandbox,
                self.config.plugins,
                self.config.autoload_plugins,
                workers=new,
                on_error="return",
                strangers=self.strangers,
            )
        except (OSError, TimeoutError) as error:
            raise ExecutorLostError(self._lost(error)) from None
        admitted = []
        for address, answer in answers.items():
            if isinstance(answer, BaseException):
                self.refused[address] = f"the check failed: {type(answer).__name__}: {answer}"
            elif answer.problem:
                self.refused[address] = answer.problem
            else:
                self.admitted[address] = answer.nthreads
                admitted.append(address)
                continue
            print(f"arena: Dask worker {address} refused: {self.refused[address]}", file=sys.stderr)
        if admitted:
            try:
                self.client.run_on_scheduler(schedule_waiting_matches, admitted)
            except (OSError, TimeoutError) as error:
                raise ExecutorLostError(self._lost(error)) from None

    def capacity(self) -> int:
        self._admit_new()
        threads = sum(self.admitted.values())
        # One queued match per worker beyond its threads hides the round trip; at least
        # one, which waits at the scheduler until a worker is admitted.
        return max(1, threads + len(self.admitted))

    def status(self) -> str:
        threads = sum(self.admitted.values())
        note = f"{len(self.admitted)} Dask workers ({threads} threads)"
        if self.refused:
            note += f", {len(self.refused)} refused"
        return note

    # -- matches -------------------------------------------------------------

    def _bundle(self, reference: str) -> tuple[str, str, bytes] | None:
        if is_address(reference) or not Path(reference).is_file():
            return None  # an address, or a registered bot that each worker has
        if reference not in self.bundles:
            try:
                bundle = pack_manifest(Path(reference))
            except (OSError, BundleError) as error:
                raise BundleError(f"cannot ship bot {reference}: {error}") from None
            self.bundles[reference] = (bundle.sha256, bundle.manifest, bundle.data)
        return self.bundles[reference]

    def submit(self, job: MatchJob) -> None:
        bundles = {
            reference: bundle
            for reference in job.references
            if (bundle := self._bundle(reference)) is not None
        }
        future = self.client.submit(
            run_match,
            job,
            bundles,
            key=f"{self.run}-m{job.match_id}-a{job.attempt}",
            pure=False,  # identical calls must not be merged into one result
            resources={self.resource: 1},
            retries=MAX_ATTEMPTS - 1,  # when the referee's process died (RefereeDiedError)
        )
        self.pending[future] = job

    def wait(self, timeout: float | None = None) -> list[Finished]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            step = _WAIT_SECONDS
            if deadline is not None:
                step = min(step, deadline - time.monotonic())
                if step <= 0:
                    return []
            try:
                done, _ = wait(list(self.pending), timeout=step, return_when="FIRST_COMPLETED")
            except TimeoutError:
                done = set()
            except (OSError, CancelledError) as error:
                raise ExecutorLostError(self._lost(error)) from None
            try:  # the scheduler may die between the wait and the gather, too
                if done:
                    return [self._finished(future) for future in done]
                if self.client.status not in ("running", "connecting"):
                    raise ExecutorLostError(self._lost(None))
                self._admit_new()
            except (OSError, CancelledError) as error:
                raise ExecutorLostError(self._lost(error)) from None

    def _finished(self, future: Future[Played | Errored]) -> Finished:
        job = self.pending.pop(future)
        outcome: Outcome
        if future.status == "finished":
            outcome = future.result()
            if isinstance(outcome, Played):
                outcome = self._keep_files(job, outcome)
        elif future.status == "error":
            error = future.exception()
            if isinstance(error, KilledWorker):
                outcome = Failed(f"it took down {MAX_ATTEMPTS} Dask workers ({error})")
            elif isinstance(error, RefereeDiedError):
                outcome = Failed(f"{error}, {MAX_ATTEMPTS} times")
            else:
                outcome = Errored(f"{type(error).__name__}: {error}")
        else:  # cancelled: the scheduler forgot it (restarted, or lost)
            raise ExecutorLostError(self._lost(None))
        future.release()
        return Finished(job.match_id, job.attempt, outcome)

    def _keep_files(self, job: MatchJob, played: Played) -> Played:
        """Write the replay and the bot logs where the local executor would have."""
        files = played.files
        if files is None or not self.config.replays:
            return replace(played, files=None)
        key = f"m{job.match_id}-a{job.attempt}"
        folder = Path(self.config.replays)
        folder.mkdir(parents=True, exist_ok=True)
        replay = None
        if files.replay is not None:
            replay = folder / f"{key}.jsonl"
            replay.write_bytes(files.replay)
        logs = folder / key
        kept = set()
        for name, data in files.logs.items():
            if Path(name).name != name or name.startswith("."):
                continue  # only plain file names, written inside this match's folder
            logs.mkdir(exist_ok=True)
            (logs / name).write_bytes(data)
            kept.add(name)
        seats = [  # the worker's paths are gone
            replace(seat, stderr_path=_kept_log(logs, seat.stderr_path, kept))
            for seat in played.result.seats
        ]
        result = replace(played.result, seats=seats)
        return Played(result, str(replay) if replay else played.replay)

    def _lost(self, error: BaseException | None) -> str:
        why = f": {type(error).__name__}: {error}" if error else ""
        return f"lost the Dask scheduler at {self.address}{why}"

    def abandon(self) -> None:
        # Cancelled here, a match still runs on its worker to its end; its result is
        # dropped, and the match, put back in the queue, is played again.
        for future in self.pending:
            future.cancel()
        self.pending.clear()

    def close(self) -> None:
        for future in self.pending:
            future.cancel()
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _kept_log(folder: Path, worker_path: str | None, kept: set[str]) -> str | None:
    """Where a bot's log that the worker sent back was written here (None if it was not)."""
    if not worker_path:
        return None
    name = Path(worker_path).name
    return str(folder / name) if name in kept else None
