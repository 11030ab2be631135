"""Authors, their submissions, and the versions of their bots, beside the ladder's records.

A token is shown once, when its author is made, and only its SHA-256 is stored: a
copy of the database gives nobody a way in.  Tokens are 32 random bytes, so a plain
hash (no salt, no slow hash) is enough; the lookup by hash cannot leak the token.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from arena.ratings import Rating
from arena.storage.db import StorageError
from arena.storage.ladder_store import LadderStore

__all__ = [
    "Author",
    "BotVersion",
    "Submission",
    "SubmissionStore",
    "hash_token",
    "submitted_bot_names",
]

_AUTHOR_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Author:
    id: int
    name: str
    created: str
    revoked: str | None


@dataclass(frozen=True)
class Submission:
    id: int
    author_id: int
    bot_name: str | None
    status: str
    reason: str | None
    report: dict[str, Any] | None
    archive_sha256: str
    archive_bytes: int
    created: str
    finished: str | None

    @classmethod
    def of(cls, row: sqlite3.Row) -> Submission:
        report = json.loads(row["report"]) if row["report"] else None
        return cls(
            row["id"], row["author_id"], row["bot_name"], row["status"], row["reason"], report,
            row["archive_sha256"], row["archive_bytes"], row["created"], row["finished"],
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "bot": self.bot_name,
            "status": self.status,
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


def submitted_bot_names(store: LadderStore) -> set[str]:
    """The ladder names of bots that came in as submissions (strangers' code)."""
    return {row[0] for row in store.db.execute("SELECT ladder_name FROM bot_versions")}


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
        token = secrets.token_urlsafe(32)
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
        with self.ladder.transaction():
            changed = self.db.execute(
                "UPDATE authors SET revoked = ? WHERE name = ? AND revoked IS NULL", (_now(), name)
            ).rowcount
            if not changed:
                known = self.db.execute("SELECT revoked FROM authors WHERE name = ?", (name,))
                row = known.fetchone()
                if row is None:
                    raise StorageError(f"{self.ladder.path}: no author {name!r}")
                raise StorageError(f"{self.ladder.path}: author {name!r} is already revoked")

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

    def add_submission(self, author_id: int, sha256: str, size: int) -> int:
        with self.ladder.transaction():
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

    def reject(self, submission_id: int, reason: str, report: dict[str, Any]) -> None:
        with self.ladder.transaction():
            self.db.execute(
                "UPDATE submissions SET status = 'rejected', reason = ?, report = ?, finished = ? "
                "WHERE id = ? AND status = 'checking'",
                (reason, json.dumps(report), _now(), submission_id),
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
        report: dict[str, Any],
        initial: Rating,
    ) -> BotVersion:
        """Record the new version and put it in the ladder in place of the last one, in one
        transaction: it starts from the last version's mu with sigma reset (README)."""
        with self.ladder.transaction():
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
                "path, submission_id, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (author_id, bot_name, version, ladder_name, sha256, path, submission_id, now),
            )
            self.db.execute(
                "UPDATE submissions SET status = 'accepted', bot_name = ?, report = ?, finished = ? "
                "WHERE id = ?",
                (bot_name, json.dumps({**report, "version": version, "ladder_name": ladder_name}),
                 now, submission_id),
            )  # fmt: skip
        return BotVersion(
            author_id, bot_name, version, ladder_name, sha256, path, submission_id, now
        )
