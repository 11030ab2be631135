"""Checks run in the background, a few at a time, so an upload is answered at once."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from arena.storage import LadderStore
from arena.storage.submissions_store import SubmissionStore
from arena.submissions.layout import DataLayout
from arena.submissions.pipeline import CheckOptions, check_submission
from arena.submissions.report import SubmissionReport

__all__ = ["CheckQueue"]

_log = logging.getLogger(__name__)


class CheckQueue:
    """``concurrency`` worker threads (default 1) checking submissions in upload order.

    Threads, not processes: a check is mostly waiting on the bot's process, and each
    bot is started from the thread that later kills it (see arena.hosting.process)."""

    def __init__(self, db_path: Path, concurrency: int = 1, options: CheckOptions | None = None):
        if concurrency < 1:
            raise ValueError(f"concurrent checks must be at least 1, got {concurrency}")
        self.db_path = db_path
        self.options = options or CheckOptions()
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="check")
        self._lock = threading.Lock()
        self._futures: dict[int, Future[None]] = {}

    def recover(self) -> int:
        """Submissions left checking by a server that stopped are rejected: say so; the
        staging folder is emptied (no check runs yet)."""
        store = LadderStore.open(self.db_path)
        try:
            submissions = SubmissionStore(store)
            stale = submissions.checking()
            layout = DataLayout.of(self.db_path)
            for submission in stale:
                submissions.reject(
                    submission.id,
                    "the server stopped during the check: submit it again",
                    SubmissionReport(),
                )
            layout.sweep_staging()  # theirs, and anything else a stopped server left
            return len(stale)
        finally:
            store.close()

    def submit(self, submission_id: int) -> None:
        future = self._pool.submit(self._run, submission_id)
        with self._lock:
            self._futures[submission_id] = future

    def _run(self, submission_id: int) -> None:
        try:
            check_submission(self.db_path, submission_id, self.options)
        except Exception:
            _log.exception("checking submission %d failed", submission_id)
        finally:
            with self._lock:
                self._futures.pop(submission_id, None)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
