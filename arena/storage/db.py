"""SQLite connections and versioned schema migrations (``PRAGMA user_version``).

A ladder database holds the secret its deals come from, so it is owner-only
(0600), and so are SQLite's ``-wal`` and ``-shm`` files beside it (SQLite gives them
the database file's mode).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

from arena.errors import ArenaError
from arena.privatefiles import FILE_MODE

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "StorageError",
    "check_ladder_file",
    "connect",
    "write_transaction",
]

_SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite 3 database


class StorageError(ArenaError, ValueError):
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


# Version 2: the secret a ladder's deals derive from (one-way, per unit: see
# arena.ladder.runner), random unless the config fixed a seed.  A database from
# version 1 has none: its units keep the seeds its config's seed gave them.
_V2 = """
CREATE TABLE deal_secret (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    secret BLOB NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('random', 'config'))
);
"""

# Version 3: a match can end 'failed' (the arena, not its bots, could not play it: e.g. it took
# down every Dask worker it ran on), with the reason.  SQLite cannot change a CHECK
# constraint, so the table is rebuilt, and match_seats with it (renaming a table
# rewrites the references to it while foreign keys are on, as they are here).
_V3 = """
ALTER TABLE matches RENAME TO matches_v1;
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES units(id),
    seats TEXT NOT NULL,             -- JSON list of bot names, by seat
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'running', 'finished', 'cancelled', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    started TEXT,
    finished TEXT,
    replay TEXT,
    result TEXT,                     -- the match result as JSON
    failure TEXT                     -- why a 'failed' match could not be played
);
INSERT INTO matches (id, unit_id, seats, status, attempts, started, finished, replay, result)
    SELECT id, unit_id, seats, status, attempts, started, finished, replay, result FROM matches_v1;
ALTER TABLE match_seats RENAME TO match_seats_v1;
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
INSERT INTO match_seats SELECT * FROM match_seats_v1;
DROP TABLE match_seats_v1;
DROP TABLE matches_v1;
CREATE INDEX matches_status ON matches(status)
"""

# Version 4: indexes for the web view's pages of one bot (its matches, its ratings) and
# for the newest matches; without them a bot's page of a 100,000-match ladder scans
# every seat ever played (benchmarks/bench_web.py).
_V4 = """
CREATE INDEX match_seats_bot ON match_seats(bot_id, match_id);
CREATE INDEX rating_history_bot ON rating_history(bot_id, id);
CREATE INDEX matches_finished ON matches(status, finished);
"""

# Version 5: bot submissions (issue 18): authors with hashed tokens, submissions with their check
# reports, and each accepted submission as a version of its author's bot.
_V5 = """
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

# Version 6: what the submission server needs to hold a hostile author (issue 36): sessions
# it can end (sign-out, token rotation, expiry), upload slots reserved in the same
# transaction as the quota check before a body is read, and the disk each version takes
# (NULL for versions stored before: counted from the disk when first needed).
_V6 = """
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    nonce_sha256 TEXT NOT NULL UNIQUE,  -- hex SHA-256 of the cookie's nonce
    created TEXT NOT NULL,
    expires INTEGER NOT NULL         -- Unix time; the cookie says the same, signed
);
CREATE INDEX sessions_author ON sessions(author_id);
CREATE TABLE upload_slots (          -- an upload being received: counted by every quota
    id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    created TEXT NOT NULL
);
ALTER TABLE bot_versions ADD COLUMN stored_bytes INTEGER
"""

# Version 7: the runner's heartbeat (issue 28), one row, rewritten every few seconds by the
# process that runs the ladder, read by ``/healthz`` and the pages.
_V7 = """
CREATE TABLE runner (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started REAL NOT NULL,           -- Unix time the run began
    beat REAL NOT NULL,              -- Unix time of the latest heartbeat
    state TEXT NOT NULL CHECK (state IN ('playing', 'idle', 'stopping', 'stopped')),
    running INTEGER NOT NULL         -- matches in flight at that heartbeat
)
"""

# Version 8: counts the runner keeps for ``/metrics`` (issue 29): what only the runner sees
# (each decision's time, each bot start), added up by metric and labels.
_V8 = """
CREATE TABLE metric_counts (
    metric TEXT NOT NULL,            -- a Prometheus sample name, e.g. arena_decision_seconds_bucket
    labels TEXT NOT NULL,            -- its labels as sorted JSON pairs, e.g. [["le","0.1"]]
    value REAL NOT NULL,
    PRIMARY KEY (metric, labels)
)
"""

# Version 9: a season's end (issue 29): the ladder frozen for its final (no submissions, no
# new versions) since this time, or NULL.
_V9 = """
ALTER TABLE ladder ADD COLUMN frozen TEXT
"""

# Version 10: a season's finals (issue 29, arena.ladder.finals): the top bots' duplicate
# round-robins under a secret of their own (stored at once, shown only when the finals
# end; its SHA-256 is published at the start), in tables of their own: finals matches
# are not ladder matches, and touch no rating.
_V10 = """
CREATE TABLE finals (
    id INTEGER PRIMARY KEY,
    status TEXT NOT NULL CHECK (status IN ('running', 'finished')),
    top INTEGER NOT NULL,            -- the bots asked for (--top)
    games INTEGER NOT NULL,          -- games a match
    max_games INTEGER NOT NULL,      -- head-to-head games a pair plays at most (--max-games)
    seats INTEGER NOT NULL,          -- a line-up's seats
    secret BLOB NOT NULL,            -- 32 bytes the seeds derive from; shown once finished
    commitment TEXT NOT NULL,        -- hex SHA-256 of the secret, published at the start
    replays TEXT NOT NULL,           -- the folder of its replays
    rounds INTEGER NOT NULL DEFAULT 0,  -- rounds queued so far
    started TEXT NOT NULL,
    finished TEXT
);
CREATE TABLE finals_bots (
    finals_id INTEGER NOT NULL REFERENCES finals(id),
    bot_id INTEGER NOT NULL REFERENCES bots(id),
    seed INTEGER NOT NULL,           -- its place on the ladder when the finals started
    mu REAL NOT NULL,                -- its ladder rating then
    sigma REAL NOT NULL,
    place INTEGER,                   -- its final place (tied bots share one), once finished
    PRIMARY KEY (finals_id, bot_id)
);
CREATE TABLE finals_units (          -- one line-up of one round: its matches deal the same cards
    id INTEGER PRIMARY KEY,
    finals_id INTEGER NOT NULL REFERENCES finals(id),
    round INTEGER NOT NULL,
    label TEXT NOT NULL,             -- what its seed is derived from, e.g. finals-1/round-2/a|b
    seed INTEGER NOT NULL,
    UNIQUE (finals_id, label)
);
CREATE TABLE finals_matches (
    id INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES finals_units(id),
    seats TEXT NOT NULL,             -- JSON list of bot names, by seat
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'running', 'finished', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    started TEXT,
    finished TEXT,
    replay TEXT,
    result TEXT,                     -- the match result as JSON
    failure TEXT                     -- why a 'failed' match could not be played
);
CREATE INDEX finals_matches_unit ON finals_matches(unit_id, status);
CREATE TABLE finals_seats (
    match_id INTEGER NOT NULL REFERENCES finals_matches(id),
    seat INTEGER NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id),
    game_wins INTEGER NOT NULL,
    points INTEGER NOT NULL,
    faults INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE finals_games (          -- each seat's rank in each game: the head-to-head counts
    match_id INTEGER NOT NULL REFERENCES finals_matches(id),
    game INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    rank INTEGER NOT NULL,           -- 0 first; equal ranks: neither beat the other
    PRIMARY KEY (match_id, game, seat)
)
"""

# Version 11: the matches of a unit, by index: taking a match, recording one and rating its
# unit each count the unit's matches, which scanned every match of the ladder (recording
# slowed from 709 to 163 results a second as a ladder grew from 1,000 to 6,000 matches:
# benchmarks/bench_service.py).
_V11 = """
CREATE INDEX matches_unit ON matches(unit_id, status)
"""

# Migration N takes a database from version N-1 to N.  Append, never edit.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _statements(_V1),
    _statements(_V2),
    _statements(_V3),
    _statements(_V4),
    _statements(_V5),
    _statements(_V6),
    _statements(_V7),
    _statements(_V8),
    _statements(_V9),
    _statements(_V10),
    _statements(_V11),
]
SCHEMA_VERSION = len(MIGRATIONS)


def _owner_only(path: Path) -> None:
    """Take group and others' access away from the database and its WAL files (a
    database made before this arena did so keeps working, but closed).  Only the
    owner may change the mode; anyone else (a reader of the leaderboard) leaves it."""
    for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(OSError):
            if file.stat().st_mode & 0o077 and file.stat().st_uid == os.geteuid():
                os.chmod(file, FILE_MODE)


def check_ladder_file(path: Path) -> int:
    """That ``path`` is a ladder database, checked without changing it (a user may give a
    ladder command a config, a replay, a folder): its schema version.  ``StorageError``
    names what it is instead."""
    create = f"(make one from a ladder config with `arena ladder create CONFIG --db {path}`)"
    if not path.exists():
        raise StorageError(f"{path}: no such ladder database {create}")
    if not path.is_file():
        raise StorageError(f"{path}: a folder, not a ladder database {create}")
    try:
        with open(path, "rb") as file:
            head = file.read(len(_SQLITE_HEADER))
    except OSError as error:
        raise StorageError(f"{path}: cannot read it: {error.strerror}") from None
    if head != _SQLITE_HEADER:
        what = "an empty file" if not head else "not an SQLite file"
        raise StorageError(f"{path}: {what}, not a ladder database {create}")
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=30)) as db:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            has_ladder = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ladder'"
            ).fetchone()
    except sqlite3.DatabaseError as error:
        raise StorageError(f"{path}: not a ladder database: {error}") from None
    if not has_ladder:
        raise StorageError(f"{path}: an SQLite database, but not a ladder's {create}")
    if version > SCHEMA_VERSION:
        raise StorageError(
            f"{path}: schema version {version} is newer than this arena's {SCHEMA_VERSION}"
        )
    return version


def connect(path: Path, *, create: bool = False) -> sqlite3.Connection:
    """Open (or with ``create``, make) a ladder database and bring its schema up to date.
    An existing file is checked to be a ladder database before anything is changed."""
    if create and path.exists():
        raise StorageError(f"{path}: already exists; not overwriting it")
    if create:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    else:
        check_ladder_file(path)
    _owner_only(path)
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
        with write_transaction(db):
            MIGRATIONS[target - 1](db)
            db.execute(f"PRAGMA user_version = {target}")
    return db


@contextlib.contextmanager
def write_transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction, taken at once (``BEGIN IMMEDIATE``: two writers never
    interleave, and a check and the write it guards see the same rows), committed when
    the block ends, rolled back if it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
