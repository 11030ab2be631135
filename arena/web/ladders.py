"""The ladder databases a server shows, each read through short read-only transactions.

A request opens its own ``mode=ro`` connection and one read transaction, and closes
both before the response goes out: a page is one consistent snapshot, no lock outlives
a request, and under WAL the runner writing meanwhile is never blocked.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from arena.storage import SCHEMA_VERSION, StorageError, connect
from arena.storage.db import check_ladder_file

__all__ = ["Ladder", "LadderSet", "open_ladders"]

_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Ladder:
    key: str  # its name in URLs: /ladders/KEY/...
    name: str
    game: str
    path: Path

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read-only connection in one read transaction, closed on leaving."""
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True, timeout=10, isolation_level=None)) as db:
            db.row_factory = sqlite3.Row
            db.execute("BEGIN")  # deferred: the snapshot starts at the first read
            try:
                yield db
            finally:
                db.execute("ROLLBACK")

    def replay_root(self) -> Path:
        """Where relative replay paths in the database are read from."""
        return self.path.resolve().parent


@dataclass(frozen=True)
class LadderSet:
    ladders: tuple[Ladder, ...]  # in the order given; the first is the default

    @property
    def default(self) -> Ladder:
        return self.ladders[0]

    def get(self, key: str) -> Ladder | None:
        return next((ladder for ladder in self.ladders if ladder.key == key), None)


def _upgrade(path: Path) -> None:
    """Check that ``path`` is a ladder database and bring an older one's schema up to
    date (as every ``arena ladder`` command does): the web view's queries rely on its
    indexes.  Where the file cannot be written, the pages still work, only slower."""
    if check_ladder_file(path) < SCHEMA_VERSION:
        with suppress(sqlite3.OperationalError):
            connect(path).close()


def open_ladders(paths: Sequence[Path]) -> LadderSet:
    """The ladders in ``paths``; ``StorageError`` (one line) for a file that is not one."""
    if not paths:
        raise StorageError("no ladder database given")
    ladders: list[Ladder] = []
    for path in paths:
        if not path.is_file():
            raise StorageError(f"{path}: no such ladder database")
        _upgrade(path)
        probe = Ladder("", "", "", path)
        try:
            with probe.read() as db:
                row = db.execute("SELECT name, config FROM ladder").fetchone()
        except sqlite3.DatabaseError as error:
            raise StorageError(f"{path}: not a ladder database: {error}") from None
        if row is None:
            raise StorageError(f"{path}: holds no ladder")
        game = str(json.loads(row["config"]).get("game", ""))
        key = _SLUG.sub("-", row["name"]).strip("-") or "ladder"
        taken = {ladder.key for ladder in ladders}
        unique, number = key, 2
        while unique in taken:
            unique, number = f"{key}-{number}", number + 1
        ladders.append(Ladder(unique, str(row["name"]), game, path))
    return LadderSet(tuple(ladders))
