"""Authors, their submissions, and the versions of their bots, beside the ladder's records.

A token is shown once, when its author is made, and only its SHA-256 is stored: a
copy of the database gives nobody a way in.  Tokens are 32 random bytes, so a plain
hash (no salt, no slow hash) is enough; the lookup by hash cannot leak the token.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from arena.ratings import Rating
from arena.storage.db import StorageError
from arena.storage.ladder_store import LadderStore

__all__ = [
    "FROZEN",
    "Author",
    "BotVersion",
    "Quotas",
    "Refusal",
    "Submission",
    "SubmissionStatus",
    "SubmissionStore",
    "hash_token",
    "new_token",
    "submitted_bot_names",
    "submitted_versions",
    "tree_bytes",
]

_AUTHOR_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_token() -> str:
    """A fresh author token: 43 URL-safe characters, never starting with ``-`` (a command
    line would read ``--token -x...`` as an option with its value missing)."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def tree_bytes(path: Path) -> int:
    """The bytes of the files under ``path`` (links not followed; 0 if it is gone)."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):  # gone while counting: it takes no space
                total += os.lstat(os.path.join(folder, name)).st_size
    return total


_MIB = 1024 * 1024


@dataclass(frozen=True)
class Quotas:
    """What one author, and everyone together, may have under way and stored."""

    per_hour: int = 10  # submissions per author in any hour (uploads in flight count)
    in_flight_per_author: int = 2  # uploads being received at once, per author
    in_flight: int = 16  # uploads being received at once, all authors together
    disk_bytes: int = 1024 * _MIB  # per author: the stored versions' archives and trees


@dataclass(frozen=True)
class Refusal:
    """An upload refused by a quota: the one-line reason, which names the quota and
    when it frees, and that time in seconds (None: waiting does not free it)."""

    reason: str
    retry_after: int | None
    everyone: bool = False  # the server's quota for all authors, not this author's
    closed: bool = False  # the ladder takes no submissions now (frozen for its final)

    @property
    def http_status(self) -> int:
        """403 while the ladder is closed, 503 over the server's quota, else 429."""
        return 403 if self.closed else 503 if self.everyone else 429


#: Why an upload or a new version is refused while the ladder is frozen.
FROZEN = "the ladder is frozen for its final: it takes no submissions or new versions"


@dataclass(frozen=True)
class Author:
    id: int
    name: str
    created: str
    revoked: str | None


class Report(Protocol):
    """What a submission's check found (``arena.submissions.report``), stored as its JSON."""

    def to_json(self) -> dict[str, Any]: ...


class SubmissionStatus(StrEnum):
    """Where a submission stands, as the ``submissions.status`` column stores it."""

    CHECKING = "checking"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


@dataclass(frozen=True)
class Submission:
    id: int
    author_id: int
    bot_name: str | None
    status: SubmissionStatus
    reason: str | None
    report: dict[str, Any] | None  # SubmissionReport.to_json(), as stored
    archive_sha256: str
    archive_bytes: int
    created: str
    finished: str | None

    @classmethod
    def of(cls, row: sqlite3.Row) -> Submission:
        report = json.loads(row["report"]) if row["report"] else None
        return cls(
            row["id"], row["author_id"], row["bot_name"], SubmissionStatus(row["status"]), row["reason"], report,
            row["archive_sha256"], row["archive_bytes"], row["created"], row["finished"],
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "bot": self.bot_name,
            "status": self.status.value,
            "reason": self.reason,
            "report": self.report,
            "archive_sha256": self.archive_sha256,
            "archive_bytes": self.archive_bytes,
            "created": self.created,
            "finished": self.finished,
        }


@dataclass(frozen=True)
class BotVersion:
    author_id: int
    bot_name: str
    version: int
    ladder_name: str
    archive_sha256: str
    path: str
    submission_id: int
    created: str


def submitted_versions(store: LadderStore) -> dict[str, str]:
    """The bots that came in as submissions (strangers' code): ladder name -> the
    SHA-256 of the archive that was vetted."""
    rows = store.db.execute("SELECT ladder_name, archive_sha256 FROM bot_versions")
    return {name: sha256 for name, sha256 in rows}


def submitted_bot_names(store: LadderStore) -> set[str]:
    """The ladder names of bots that came in as submissions (strangers' code)."""
    return set(submitted_versions(store))


class SubmissionStore:
    """The submission tables of one ladder database (uses the ladder's connection)."""

    def __init__(self, ladder: LadderStore) -> None:
        self.ladder = ladder
        self.db = ladder.db

    # -- authors ---------------------------------------------------------------

    def add_author(self, name: str) -> str:
        """Create an author; returns its new token (the only time it is seen)."""
        if not _AUTHOR_NAME.fullmatch(name):
            raise StorageError(
                f"author name must be 1-64 letters, digits, '.', '_' or '-', got {name!r}"
            )
        token = new_token()
        with self.ladder.transaction():
            if self.db.execute("SELECT 1 FROM authors WHERE name = ?", (name,)).fetchone():
                raise StorageError(f"{self.ladder.path}: there is already an author {name!r}")
            self.db.execute(
                "INSERT INTO authors (name, token_sha256, created) VALUES (?, ?, ?)",
                (name, hash_token(token), _now()),
            )
        return token

    def authors(self) -> list[Author]:
        rows = self.db.execute("SELECT * FROM authors ORDER BY name").fetchall()
        return [Author(r["id"], r["name"], r["created"], r["revoked"]) for r in rows]

    def author(self, author_id: int) -> Author | None:
        row = self.db.execute("SELECT * FROM authors WHERE id = ?", (author_id,)).fetchone()
        return (
            None if row is None else Author(row["id"], row["name"], row["created"], row["revoked"])
        )

    def revoke(self, name: str) -> None:
        """The author submits no more, and every session of theirs ends."""
        with self.ladder.transaction():
            changed = self.db.execute(
                "UPDATE authors SET revoked = ? WHERE name = ? AND revoked IS NULL", (_now(), name)
            ).rowcount
            if not changed:
                self._no_active_author(name)
            self._end_sessions(name)

    def _end_sessions(self, name: str) -> None:
        """Every session of the author ends (inside the caller's transaction)."""
        self.db.execute(
            "DELETE FROM sessions WHERE author_id = (SELECT id FROM authors WHERE name = ?)",
            (name,),
        )

    def rotate(self, name: str) -> str:
        """A new token for the author; the old one stops working and every session
        opened with it ends, in one transaction.  Returns the token (shown once)."""
        token = new_token()
        with self.ladder.transaction():
            changed = self.db.execute(
                "UPDATE authors SET token_sha256 = ? WHERE name = ? AND revoked IS NULL",
                (hash_token(token), name),
            ).rowcount
            if not changed:
                self._no_active_author(name)
            self._end_sessions(name)
        return token

    def _no_active_author(self, name: str) -> None:
        row = self.db.execute("SELECT revoked FROM authors WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise StorageError(f"{self.ladder.path}: no author {name!r}")
        raise StorageError(f"{self.ladder.path}: author {name!r} is revoked")

    # -- web sessions (see arena.submissions.sessions) ---------------------------

    def open_session(self, author_id: int, nonce: str, expires: int) -> None:
        """Record a session the server issued (ended ones are swept at the same time)."""
        with self.ladder.transaction():
            self.db.execute("DELETE FROM sessions WHERE expires <= ?", (int(time.time()),))
            self.db.execute(
                "INSERT INTO sessions (author_id, nonce_sha256, created, expires) "
                "VALUES (?, ?, ?, ?)",
                (author_id, hash_token(nonce), _now(), expires),
            )

    def session_author(self, author_id: int, nonce: str) -> Author | None:
        """The author of a live session: recorded, not ended, not expired, and its author
        not revoked (None otherwise)."""
        row = self.db.execute(
            "SELECT a.* FROM sessions s JOIN authors a ON a.id = s.author_id "
            "WHERE s.nonce_sha256 = ? AND s.author_id = ? AND s.expires > ? "
            "AND a.revoked IS NULL",
            (hash_token(nonce), author_id, int(time.time())),
        ).fetchone()
        return None if row is None else Author(row["id"], row["name"], row["created"], None)

    def end_session(self, nonce: str) -> None:
        with self.ladder.transaction():
            self.db.execute("DELETE FROM sessions WHERE nonce_sha256 = ?", (hash_token(nonce),))

    def authenticate(self, token: str) -> Author | None:
        """The author whose token this is, if it is not revoked."""
        digest = hash_token(token)
        row = self.db.execute("SELECT * FROM authors WHERE token_sha256 = ?", (digest,)).fetchone()
        if row is None or not hmac.compare_digest(row["token_sha256"], digest):
            return None
        if row["revoked"] is not None:
            return None
        return Author(row["id"], row["name"], row["created"], row["revoked"])

    # -- submissions -----------------------------------------------------------

    def submissions_since(self, author_id: int, hours: float) -> int:
        since = (datetime.now(UTC) - timedelta(hours=hours)).isoformat(timespec="seconds")
        row = self.db.execute(
            "SELECT COUNT(*) FROM submissions WHERE author_id = ? AND created >= ?",
            (author_id, since),
        ).fetchone()
        return int(row[0])

    # -- quotas: a slot is reserved before an upload's body is read -----------------

    def reserve_upload(self, author_id: int, quotas: Quotas) -> int | Refusal:
        """Check every quota and take an upload slot in one ``BEGIN IMMEDIATE``
        transaction, so that concurrent uploads cannot all pass the check before any
        counts: the slot's id, or why not.  The slot counts as a submission of the hour
        until :meth:`add_submission` turns it into one or :meth:`release_upload` frees it."""
        self._count_unmeasured_versions(author_id)
        now = datetime.now(UTC)
        with self.ladder.transaction():
            if self.ladder.frozen() is not None:
                return Refusal(FROZEN, None, closed=True)
            everyone = int(self.db.execute("SELECT COUNT(*) FROM upload_slots").fetchone()[0])
            if everyone >= quotas.in_flight:
                return Refusal(
                    f"at most {quotas.in_flight} uploads at once on this server: "
                    "one frees when an upload ends; try again in a minute",
                    60,
                    everyone=True,
                )
            mine = int(
                self.db.execute(
                    "SELECT COUNT(*) FROM upload_slots WHERE author_id = ?", (author_id,)
                ).fetchone()[0]
            )
            if mine >= quotas.in_flight_per_author:
                return Refusal(
                    f"at most {quotas.in_flight_per_author} uploads at once per author: "
                    "one frees when one of yours ends",
                    10,
                )
            since = (now - timedelta(hours=1)).isoformat(timespec="seconds")
            counted = [  # the hour's submissions and the uploads in flight, oldest first
                row[0]
                for row in self.db.execute(
                    "SELECT created FROM submissions WHERE author_id = ? AND created >= ? "
                    "UNION ALL SELECT created FROM upload_slots WHERE author_id = ? "
                    "ORDER BY 1",
                    (author_id, since, author_id),
                )
            ]
            if len(counted) >= quotas.per_hour:
                frees = max(now, datetime.fromisoformat(counted[0]) + timedelta(hours=1))
                wait = max(1, math.ceil((frees - now).total_seconds()))
                soon = ", or when an upload of yours in flight is refused" if mine else ""
                return Refusal(
                    f"at most {quotas.per_hour} submissions an hour: the next one frees at "
                    f"{frees.strftime('%H:%M:%S')} UTC (in {wait} s){soon}",
                    wait,
                )
            stored = self.stored_bytes(author_id)
            if stored >= quotas.disk_bytes:
                return Refusal(
                    f"at most {quotas.disk_bytes // _MIB} MiB stored per author: your "
                    f"versions take {stored / _MIB:.1f} MiB; it frees only when the ladder's "
                    "keeper removes versions",
                    None,
                )
            cursor = self.db.execute(
                "INSERT INTO upload_slots (author_id, created) VALUES (?, ?)",
                (author_id, now.isoformat(timespec="seconds")),
            )
        return int(cursor.lastrowid or 0)

    def release_upload(self, slot: int) -> None:
        """Free a slot whose upload was refused or abandoned: it counts for nothing."""
        with self.ladder.transaction():
            self.db.execute("DELETE FROM upload_slots WHERE id = ?", (slot,))

    def clear_uploads(self) -> int:
        """Free every slot: a server that starts has no upload in flight."""
        with self.ladder.transaction():
            return int(self.db.execute("DELETE FROM upload_slots").rowcount)

    def uploads_in_flight(self, author_id: int | None = None) -> int:
        if author_id is None:
            row = self.db.execute("SELECT COUNT(*) FROM upload_slots").fetchone()
        else:
            row = self.db.execute(
                "SELECT COUNT(*) FROM upload_slots WHERE author_id = ?", (author_id,)
            ).fetchone()
        return int(row[0])

    def stored_bytes(self, author_id: int) -> int:
        """What the author's versions take on disk (their archives and trees)."""
        row = self.db.execute(
            "SELECT COALESCE(SUM(stored_bytes), 0) FROM bot_versions WHERE author_id = ?",
            (author_id,),
        ).fetchone()
        return int(row[0])

    def _version_bytes(self, tree: Path, sha256: str, submission_id: int) -> int:
        """What a version takes: its whole folder when the tree sits in one of its own
        (``archives/SHA256/bot``, beside the archives kept with it), else the tree and
        the uploaded archive."""
        if tree.parent.name == sha256:
            return tree_bytes(tree.parent)
        row = self.db.execute(
            "SELECT archive_bytes FROM submissions WHERE id = ?", (submission_id,)
        ).fetchone()
        return tree_bytes(tree) + (int(row[0]) if row else 0)

    def _count_unmeasured_versions(self, author_id: int) -> None:
        """Versions stored before sizes were recorded: measure them once, from the disk."""
        rows = self.db.execute(
            "SELECT id, path, archive_sha256, submission_id FROM bot_versions "
            "WHERE author_id = ? AND stored_bytes IS NULL",
            (author_id,),
        ).fetchall()
        for row in rows:
            size = self._version_bytes(
                Path(row["path"]), row["archive_sha256"], row["submission_id"]
            )
            with self.ladder.transaction():
                self.db.execute(
                    "UPDATE bot_versions SET stored_bytes = ? WHERE id = ?", (size, row["id"])
                )

    def add_submission(
        self, author_id: int, sha256: str, size: int, *, slot: int | None = None
    ) -> int:
        """A new submission, checking; with ``slot``, the upload slot it was received
        under becomes it, in the same transaction (so it is counted once, throughout)."""
        with self.ladder.transaction():
            if slot is not None:
                self.db.execute("DELETE FROM upload_slots WHERE id = ?", (slot,))
            cursor = self.db.execute(
                "INSERT INTO submissions (author_id, status, archive_sha256, archive_bytes, created) "
                "VALUES (?, 'checking', ?, ?, ?)",
                (author_id, sha256, size, _now()),
            )
        return int(cursor.lastrowid or 0)

    def submission(self, submission_id: int) -> Submission | None:
        row = self.db.execute("SELECT * FROM submissions WHERE id = ?", (submission_id,)).fetchone()
        return None if row is None else Submission.of(row)

    def submissions_of(self, author_id: int) -> list[Submission]:
        rows = self.db.execute(
            "SELECT * FROM submissions WHERE author_id = ? ORDER BY id DESC", (author_id,)
        ).fetchall()
        return [Submission.of(row) for row in rows]

    def checking(self) -> list[Submission]:
        rows = self.db.execute("SELECT * FROM submissions WHERE status = 'checking'").fetchall()
        return [Submission.of(row) for row in rows]

    def set_bot_name(self, submission_id: int, name: str) -> None:
        with self.ladder.transaction():
            self.db.execute(
                "UPDATE submissions SET bot_name = ? WHERE id = ?", (name, submission_id)
            )

    def reject(self, submission_id: int, reason: str, report: Report) -> None:
        with self.ladder.transaction():
            self.db.execute(
                "UPDATE submissions SET status = 'rejected', reason = ?, report = ?, finished = ? "
                "WHERE id = ? AND status = 'checking'",
                (reason, json.dumps(report.to_json()), _now(), submission_id),
            )

    # -- bot names and versions -----------------------------------------------

    def name_problem(self, author_id: int, bot_name: str) -> str | None:
        """Why ``author_id`` may not submit a bot called ``bot_name`` (None: it may)."""
        owner = self.db.execute(
            "SELECT a.id, a.name FROM bot_versions v JOIN authors a ON a.id = v.author_id "
            "WHERE v.bot_name = ? LIMIT 1",
            (bot_name,),
        ).fetchone()
        if owner is not None:
            if owner["id"] == author_id:
                return None
            return f"the bot name {bot_name!r} belongs to another author"
        submitted = submitted_bot_names(self.ladder)
        taken = [
            bot.name
            for bot in self.ladder.bots(include_removed=True)
            if bot.name not in submitted
            and (bot.name == bot_name or bot.name.startswith(f"{bot_name}.v"))
        ]
        if taken:
            return f"the bot name {bot_name!r} is taken by the ladder's own bot {taken[0]!r}"
        return None

    def versions(self, author_id: int) -> list[BotVersion]:
        rows = self.db.execute(
            "SELECT * FROM bot_versions WHERE author_id = ? ORDER BY bot_name, version",
            (author_id,),
        ).fetchall()
        return [
            BotVersion(
                r["author_id"],
                r["bot_name"],
                r["version"],
                r["ladder_name"],
                r["archive_sha256"],
                r["path"],
                r["submission_id"],
                r["created"],
            )
            for r in rows
        ]

    def accept(
        self,
        submission_id: int,
        author_id: int,
        bot_name: str,
        sha256: str,
        path: str,
        manifest: str,
        report: Report,
        initial: Rating,
    ) -> BotVersion:
        """Record the new version and put it in the ladder in place of the last one, in one
        transaction: it starts from the last version's mu with sigma reset (docs/SUBMISSIONS.md).
        What it takes on disk (the tree at ``path`` and the archive) counts against its
        author's disk quota."""
        stored = self._version_bytes(Path(path), sha256, submission_id)
        with self.ladder.transaction():
            if self.ladder.frozen() is not None:  # frozen while it was checked
                raise StorageError(FROZEN)
            problem = self.name_problem(author_id, bot_name)
            if problem is not None:
                raise StorageError(problem)
            last = self.db.execute(
                "SELECT v.version, v.ladder_name, b.mu FROM bot_versions v "
                "LEFT JOIN bots b ON b.name = v.ladder_name WHERE v.bot_name = ? "
                "ORDER BY v.version DESC LIMIT 1",
                (bot_name,),
            ).fetchone()
            version = 1 if last is None else int(last["version"]) + 1
            ladder_name = f"{bot_name}.v{version}"
            mu = initial.mu if last is None or last["mu"] is None else float(last["mu"])
            if self.db.execute("SELECT 1 FROM bots WHERE name = ?", (ladder_name,)).fetchone():
                raise StorageError(f"the ladder already has a bot {ladder_name!r}")
            now = _now()
            self.db.execute(
                "INSERT INTO bots (name, reference, status, mu, sigma, added) VALUES (?, ?, 'active', ?, ?, ?)",
                (ladder_name, manifest, mu, initial.sigma, now),
            )
            if last is not None:
                self.db.execute(
                    "UPDATE bots SET status = 'disabled' WHERE name = ? AND status = 'active'",
                    (last["ladder_name"],),
                )
            self.db.execute(
                "INSERT INTO bot_versions (author_id, bot_name, version, ladder_name, archive_sha256, "
                "path, submission_id, created, stored_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    author_id,
                    bot_name,
                    version,
                    ladder_name,
                    sha256,
                    path,
                    submission_id,
                    now,
                    stored,
                ),
            )
            self.db.execute(
                "UPDATE submissions SET status = 'accepted', bot_name = ?, report = ?, finished = ? "
                "WHERE id = ?",
                (bot_name, json.dumps({**report.to_json(), "version": version, "ladder_name": ladder_name}),
                 now, submission_id),
            )  # fmt: skip
        return BotVersion(
            author_id, bot_name, version, ladder_name, sha256, path, submission_id, now
        )
