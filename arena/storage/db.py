"""SQLite connections and versioned schema migrations (``PRAGMA user_version``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "StorageError", "connect"]


class StorageError(ValueError):
    """A database that cannot be used: names the file and why."""


_V1 = """
CREATE TABLE ladder (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    config TEXT NOT NULL,            -- the ladder's settings as JSON
    config_path TEXT,
    created TEXT NOT NULL
);
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    reference TEXT NOT NULL,         -- plugin name, manifest path or address
    status TEXT NOT NULL CHECK (status IN ('active', 'disabled', 'suspended', 'removed')),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    matches INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,  -- matches won
    draws INTEGER NOT NULL DEFAULT 0,
    games INTEGER NOT NULL DEFAULT 0,
    game_wins INTEGER NOT NULL DEFAULT 0,
    points INTEGER NOT NULL DEFAULT 0,
    faults INTEGER NOT NULL DEFAULT 0,
    fault_streak INTEGER NOT NULL DEFAULT 0,  -- matches in a row with a fault
    added TEXT NOT NULL
);
CREATE TABLE units (                 -- what one rating update covers: a duplicate set, or one match
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,        -- the schedule's name for it, e.g. rr:greedy:random:0
    seed INTEGER NOT NULL,
    rated INTEGER NOT NULL DEFAULT 0,
    cancelled INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES units(id),
    seats TEXT NOT NULL,             -- JSON list of bot names, by seat
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'running', 'finished', 'cancelled')),
    attempts INTEGER NOT NULL DEFAULT 0,
    started TEXT,
    finished TEXT,
    replay TEXT,
    result TEXT                      -- the match result as JSON
);
CREATE INDEX matches_status ON matches(status);
CREATE TABLE match_seats (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id),
    rank INTEGER NOT NULL,           -- 0: won the match
    games INTEGER NOT NULL,
    game_wins INTEGER NOT NULL,
    points INTEGER NOT NULL,
    faults INTEGER NOT NULL,
    status TEXT NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE rating_history (
    id INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES units(id),
    bot_id INTEGER NOT NULL REFERENCES bots(id),
    rank INTEGER NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL,
    at TEXT NOT NULL
);
"""


def _statements(script: str) -> Callable[[sqlite3.Connection], None]:
    """Run a script statement by statement, inside the caller's transaction
    (``executescript`` would commit first, so a failed migration could half-apply)."""

    def migrate(db: sqlite3.Connection) -> None:
        for statement in script.split(";\n"):
            if statement.strip():
                db.execute(statement)

    return migrate


# Bot submissions (issue 18): authors with hashed tokens, submissions with their check
# reports, and each accepted submission as a version of its author's bot.
_SUBMISSIONS = """
CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_sha256 TEXT NOT NULL UNIQUE,  -- hex SHA-256 of the token; the token is never stored
    created TEXT NOT NULL,
    revoked TEXT                     -- set: it can submit no more, its bots stay
);
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    bot_name TEXT,                   -- the manifest's name, once read
    status TEXT NOT NULL CHECK (status IN ('checking', 'accepted', 'rejected')),
    reason TEXT,                     -- one line: why it was rejected
    report TEXT,                     -- the build output and check report as JSON
    archive_sha256 TEXT NOT NULL,
    archive_bytes INTEGER NOT NULL,
    created TEXT NOT NULL,
    finished TEXT
);
CREATE INDEX submissions_author ON submissions(author_id, created);
CREATE TABLE bot_versions (
    id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    bot_name TEXT NOT NULL,          -- the manifest's name: it belongs to its first author
    version INTEGER NOT NULL,
    ladder_name TEXT NOT NULL UNIQUE,  -- its row in bots: NAME.vVERSION
    archive_sha256 TEXT NOT NULL,
    path TEXT NOT NULL,              -- the unpacked, built bot
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    created TEXT NOT NULL,
    UNIQUE (bot_name, version)
)
"""

# Migration N takes a database from version N-1 to N.  Append, never edit.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _statements(_V1),
    _statements(_SUBMISSIONS),
]
SCHEMA_VERSION = len(MIGRATIONS)


def connect(path: Path, *, create: bool = False) -> sqlite3.Connection:
    """Open (or with ``create``, make) a ladder database and bring its schema up to date."""
    if not create and not path.exists():
        raise StorageError(
            f"{path}: no such ladder database (create one with `arena ladder create`)"
        )
    if create and path.exists():
        raise StorageError(f"{path}: already exists; not overwriting it")
    db = sqlite3.connect(path, timeout=30, isolation_level=None)  # explicit transactions only
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("PRAGMA journal_mode = WAL")  # readers (leaderboard) never block the runner
    db.execute("PRAGMA synchronous = FULL")  # a finished match survives a crash or power cut
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as error:
        db.close()
        raise StorageError(f"{path}: not a ladder database: {error}") from None
    if version > SCHEMA_VERSION:
        db.close()
        raise StorageError(
            f"{path}: schema version {version} is newer than this arena's {SCHEMA_VERSION}"
        )
    for target in range(version + 1, SCHEMA_VERSION + 1):
        db.execute("BEGIN IMMEDIATE")
        try:
            MIGRATIONS[target - 1](db)
            db.execute(f"PRAGMA user_version = {target}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return db
