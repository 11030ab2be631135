"""Where a ladder's matches run: a process pool here, or Dask distributed workers.

The runner hands an executor one ``MatchJob`` at a time and takes back whatever has
finished, each with its ``Outcome`` (``arena.ladder.jobs``); it alone writes the
database.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

from arena.errors import ArenaError
from arena.ladder.config import LadderConfig
from arena.ladder.jobs import (
    Errored,
    ExecutorLostError,
    Finished,
    Lost,
    MatchExecutor,
    MatchJob,
    Outcome,
    Played,
)
from arena.ladder.worker import play_job, watch_runner

__all__ = [
    "DaskUnavailableError",
    "ExecutorLostError",
    "Finished",
    "LocalExecutor",
    "MatchExecutor",
    "open_executor",
]

DASK_INSTALL = "pip install 'rummy-arena[dask]'"


class DaskUnavailableError(ArenaError, ValueError):
    """Dask distributed is asked for but not installed (a user error: exit status 2)."""


class LocalExecutor:
    """A process pool on this machine; its workers (and their bots) die with the runner."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        # Workers are forked from a fork server that has imported the worker's modules
        # once (the referee, gRPC, the games): a worker is up at once, where each
        # spawned one spent most of a second importing them, a good part of a short
        # ladder.  Not forked from the runner itself: it may run gRPC threads (in
        # tests, or serving a web view), which a fork does not survive.  Importing
        # them starts none.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([watch_runner.__module__])
        self.pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=watch_runner,
            initargs=(os.getpid(),),
        )
        self.pending: dict[Future[Played | Errored], MatchJob] = {}

    def capacity(self) -> int:
        return self.workers

    def submit(self, job: MatchJob) -> None:
        self.pending[self.pool.submit(play_job, job)] = job

    def wait(self, timeout: float | None = None) -> list[Finished]:
        done, _ = wait(self.pending, timeout=timeout, return_when=FIRST_COMPLETED)
        finished = []
        for future in done:
            job = self.pending.pop(future)
            outcome: Outcome
            try:
                outcome = future.result()
            except BrokenProcessPool as error:  # a worker died: the pool is gone
                outcome = Lost(f"a match worker died during match {job.match_id}: {error}")
            finished.append(Finished(job.match_id, job.attempt, outcome))
        return finished

    def status(self) -> str:
        return ""

    def abandon(self) -> None:
        # A worker ends its match's bots before it exits on SIGTERM (worker.watch_runner).
        # The pool keeps its processes in a private attribute, the only handle on them.
        for process in list((self.pool._processes or {}).values()):
            process.terminate()
        self.pending.clear()

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)
        # The fork server outlives the pool and keeps the environment it started with;
        # the next ladder run in this process (tests, a web view) starts its own.
        stop = getattr(multiprocessing.forkserver._forkserver, "_stop", None)
        if stop is not None:
            stop()


@contextmanager
def open_executor(
    config: LadderConfig, dask: str | None = None, strangers: bool = False
) -> Iterator[MatchExecutor]:
    """The executor the config asks for; ``dask`` (an address, or "local" for a
    LocalCluster) overrides it, as ``arena ladder run --dask`` does.  ``strangers``: the
    ladder plays strangers' bots, so a Dask worker is admitted only where its sandbox
    level is fit for them."""
    if dask is None and config.executor == "local":
        local = LocalExecutor(config.workers)
        try:
            yield local
        finally:
            local.close()
        return
    address = config.scheduler if dask is None else ("" if dask == "local" else dask)
    try:
        from arena.ladder.dask_executor import DaskExecutor
    except ImportError as error:
        if error.name not in ("distributed", "dask"):
            raise
        raise DaskUnavailableError(
            f"running matches on Dask needs the distributed package: {DASK_INSTALL}"
        ) from None
    remote = DaskExecutor(config, address, strangers)
    try:
        yield remote
    finally:
        remote.close()
