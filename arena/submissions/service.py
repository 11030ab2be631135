"""What ``arena serve DB --submissions`` keeps for one ladder, apart from HTTP: the
database, the data folder, the session key, the check queue, the wrong-token count per
address, and the steps of taking an upload (a quota slot, then the stored submission).

The web pages and API that use it are :mod:`arena.web.submissions`; this package never
imports the web layer.

Quotas hold under concurrency: an upload takes a slot (:meth:`SubmissionService.reserve`)
in the same ``BEGIN IMMEDIATE`` transaction that checks the hourly limit, the uploads in
flight (the author's and everyone's) and the author's disk quota, before its body is
read; a refused upload frees its slot (:meth:`SubmissionService.release`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from arena.storage import LadderStore
from arena.storage.submissions_store import Author, Quotas, Refusal, SubmissionStore
from arena.submissions.layout import DataLayout
from arena.submissions.pipeline import CheckOptions
from arena.submissions.report import SubmissionReport
from arena.submissions.sessions import DEFAULT_LIFETIME, Session, SessionKeys
from arena.submissions.throttle import FailureLimit
from arena.submissions.upload import Received
from arena.submissions.worker import CheckQueue

__all__ = ["SubmissionService", "SubmissionSettings"]


@dataclass(frozen=True)
class SubmissionSettings:
    per_hour: int = 10  # submissions per author per hour
    concurrency: int = 1  # checks at once
    secure_cookies: bool = False  # set behind HTTPS
    options: CheckOptions = field(default_factory=CheckOptions)
    uploads_per_author: int = 2  # uploads being received at once, per author
    uploads: int = 16  # uploads being received at once, everyone together
    disk_mb: int = 1024  # per author: the stored versions' archives and built trees
    session_seconds: int = DEFAULT_LIFETIME  # a session's lifetime
    auth_failures: int = 20  # wrong tokens per client address...
    auth_window: float = 60.0  # ...within this many seconds, then 429

    @property
    def quotas(self) -> Quotas:
        return Quotas(
            per_hour=self.per_hour,
            in_flight_per_author=self.uploads_per_author,
            in_flight=self.uploads,
            disk_bytes=self.disk_mb * 1024 * 1024,
        )


class SubmissionService:
    """The database, the data folder, the session key and the check queue of one ladder.

    ``start`` and ``stop`` belong in the web application's lifespan."""

    def __init__(self, db_path: Path, settings: SubmissionSettings | None = None) -> None:
        self.db_path = Path(db_path)
        self.settings = settings or SubmissionSettings()
        LadderStore.open(self.db_path).close()  # a clear error now, not at the first request
        self.layout = DataLayout.of(self.db_path)
        self.keys = SessionKeys.load(
            self.layout.root / "session.key", self.settings.session_seconds
        )
        self.queue = CheckQueue(self.db_path, self.settings.concurrency, self.settings.options)
        self.failures = FailureLimit(self.settings.auth_failures, self.settings.auth_window)
        self.uploads = self.layout.root / "uploads"  # bodies being received

    def start(self) -> None:
        """A server that starts has no upload in flight: free their slots and files."""
        with self.store() as store:
            store.clear_uploads()
        shutil.rmtree(self.uploads, ignore_errors=True)
        self.uploads.mkdir(mode=0o700, exist_ok=True)
        self.queue.recover()

    def stop(self) -> None:
        self.queue.close()

    @contextlib.contextmanager
    def store(self) -> Iterator[SubmissionStore]:
        ladder = LadderStore.open(self.db_path)
        try:
            yield SubmissionStore(ladder)
        finally:
            ladder.close()

    @property
    def max_archive(self) -> int:
        return self.settings.options.unpack.compressed_bytes

    # -- who is asking -------------------------------------------------------------

    def authenticate(self, token: str) -> Author | None:
        """The author whose token this is (None: no such token; nothing is counted)."""
        with self.store() as store:
            return store.authenticate(token)

    def signed_in(self, cookie: str | None) -> tuple[Session, Author] | None:
        """The author of a session cookie: it must be the server's, and its session still
        recorded (not signed out, not ended by a new token, not expired)."""
        session = self.keys.read(cookie)
        if session is None:
            return None
        with self.store() as store:
            author = store.session_author(session.author_id, session.nonce)
        return None if author is None else (session, author)

    def open_session(self, author: Author) -> str:
        """A new session of ``author``, recorded: its cookie."""
        cookie, session = self.keys.issue(author.id)
        with self.store() as store:
            store.open_session(author.id, session.nonce, session.expires)
        return cookie

    def end_session(self, session: Session) -> None:
        with self.store() as store:
            store.end_session(session.nonce)  # the cookie opens nothing any more

    # -- taking an upload ------------------------------------------------------------

    def reserve(self, author: Author) -> int | Refusal:
        """A slot for one upload of ``author``, or the quota that refuses it."""
        with self.store() as store:
            return store.reserve_upload(author.id, self.settings.quotas)

    def release(self, slot: int) -> None:
        """An upload refused or cut off: its slot is free again."""
        with self.store() as store:
            store.release_upload(slot)

    def upload_path(self, slot: int) -> Path:
        """Where the body of the upload holding ``slot`` is written as it arrives."""
        return self.uploads / f"{slot}.upload"

    def admit(self, author: Author, received: Received, slot: int) -> int | None:
        """The received archive becomes a submission (its slot with it) and is queued for
        its check: the submission's id, or None when the server could not store it (the
        submission is then recorded as rejected, saying so)."""
        with self.store() as store:
            submission_id: int = store.add_submission(
                author.id, received.sha256, received.size, slot=slot
            )
            staging = self.layout.staging(submission_id)
            try:
                staging.mkdir(mode=0o700)
                os.replace(received.path, staging / "archive")
            except OSError as error:
                received.path.unlink(missing_ok=True)
                store.reject(
                    submission_id,
                    f"the server could not store it: {error.strerror}",
                    SubmissionReport(),
                )
                return None
        self.queue.submit(submission_id)
        return submission_id
