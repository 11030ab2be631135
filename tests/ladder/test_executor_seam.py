"""The runner behind the executor seam: one record per match id whatever comes back, and
'failed' matches (schema v2, migrated from v1 without losing a row)."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.ladder import runner
from arena.ladder.config import LadderConfig
from arena.ladder.executors import Finished, LocalExecutor
from arena.referee.results import GameRecord, MatchResult, SeatRecord
from arena.storage import LadderStore
from arena.storage.db import MIGRATIONS, connect

CONFIG = """\
name = "seam"
game = "gin-rummy/standard"
[match]
games = 1
hands_only = true
[run]
concurrency = 1
sandbox = "none"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""


class Echoing(LocalExecutor):
    """The process pool, but every result comes back twice: the second copy arrives after
    the first was recorded, as a late duplicate would."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.seen: list[Finished] = []

    def wait(self, timeout: float | None = None) -> list[Finished]:
        finished = super().wait(timeout)
        self.seen.extend(finished)
        return finished + finished


@pytest.fixture
def db(tmp_path: Path) -> Path:
    (tmp_path / "seam.toml").write_text(CONFIG)
    path = tmp_path / "seam.sqlite"
    assert main(["ladder", "create", str(tmp_path / "seam.toml"), "--db", str(path)]) == 0
    return path


@pytest.mark.slow
def test_a_duplicate_result_is_ignored_and_logged(
    db: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    made: list[Echoing] = []

    @contextmanager
    def echoing(
        config: LadderConfig, dask: str | None = None, strangers: bool = False
    ) -> Iterator[Echoing]:
        made.append(Echoing(config.workers))
        try:
            yield made[0]
        finally:
            made[0].close()

    monkeypatch.setattr(runner, "open_executor", echoing)
    store = LadderStore.open(db)
    try:
        with caplog.at_level(logging.WARNING, logger="arena.ladder"):
            summary = runner.run_ladder(store, progress=False)
        assert summary.finished == 2 and len(made[0].seen) == 2
        rows = store.db.execute("SELECT status, COUNT(*) FROM matches GROUP BY status")
        assert dict(rows.fetchall()) == {"finished": 2}
        assert store.db.execute("SELECT COUNT(*) FROM match_seats").fetchone()[0] == 4
        assert sum(bot.matches for bot in store.bots()) == 4
    finally:
        store.close()
    ignored = [r.getMessage() for r in caplog.records if "late result" in r.getMessage()]
    assert sorted(ignored) == [
        "match 1: a late result (attempt 1) ignored: the match is finished",
        "match 2: a late result (attempt 1) ignored: the match is finished",
    ]


def test_a_failed_match_counts_for_no_bot(db: Path) -> None:
    store = LadderStore.open(db)
    try:
        store.add_unit("dup:0", 7, [("greedy", "random"), ("random", "greedy")])
        first, second = store.take_next(), store.take_next()
        assert first is not None and second is not None
        assert store.record_failure(first.id, "it took down 3 Dask workers")
        assert not store.record_failure(first.id, "again")  # ended already: not twice
        job_result = _play(store, second.id)
        store.record(second.id, job_result, None, 3, runner.DEFAULT_ENV)
        row = store.db.execute("SELECT status, failure FROM matches WHERE id = ?", (first.id,))
        assert tuple(row.fetchone()) == ("failed", "it took down 3 Dask workers")
        # The unit (both seatings of one deal) misses a match: it is not rated.
        assert store.db.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0] == 0
        assert {bot.name: bot.matches for bot in store.bots()} == {"greedy": 1, "random": 1}
    finally:
        store.close()


def _play(store: LadderStore, match_id: int) -> MatchResult:
    """A one-game result for the match's seats: the first seat won 25 points."""
    seats = json.loads(
        store.db.execute("SELECT seats FROM matches WHERE id = ?", (match_id,)).fetchone()[0]
    )
    game = GameRecord(0, 7, (25, 0), (0, 1), 0, "gin", 1)
    return MatchResult(
        f"m{match_id}", "gin-rummy/standard", 7, [SeatRecord(n) for n in seats], [game]
    )


def test_a_version_1_database_is_migrated_without_losing_a_row(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path, isolation_level=None)
    old.execute("PRAGMA foreign_keys = ON")
    old.execute("BEGIN")
    MIGRATIONS[0](old)
    old.execute("PRAGMA user_version = 1")
    old.execute("INSERT INTO ladder VALUES (1, 'old', '{}', NULL, 'now')")
    old.execute("INSERT INTO bots (id, name, reference, status, mu, sigma, added) "
                "VALUES (1, 'a', 'a', 'active', 25, 8, 'now'), (2, 'b', 'b', 'active', 25, 8, 'now')")  # fmt: skip
    old.execute("INSERT INTO units (id, key, seed) VALUES (1, 'u', 7)")
    old.execute("INSERT INTO matches (id, unit_id, seats, status, attempts, result) "
                "VALUES (1, 1, '[\"a\", \"b\"]', 'finished', 1, '{}'), (2, 1, '[\"b\", \"a\"]', 'running', 2, NULL)")  # fmt: skip
    old.execute(
        "INSERT INTO match_seats VALUES (1, 0, 1, 0, 1, 1, 25, 0, 'ok'), (1, 1, 2, 1, 1, 0, 0, 0, 'ok')"
    )
    old.execute("COMMIT")
    old.close()

    db = connect(path)
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) >= 2
        assert [tuple(r) for r in db.execute("SELECT id, status, attempts FROM matches")] == [
            (1, "finished", 1),
            (2, "running", 2),
        ]
        assert db.execute("SELECT COUNT(*) FROM match_seats").fetchone()[0] == 2
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        db.execute("UPDATE matches SET status = 'failed', failure = 'x' WHERE id = 2")
        with pytest.raises(sqlite3.IntegrityError):  # seats still point at real matches
            db.execute("INSERT INTO match_seats VALUES (9, 0, 1, 0, 1, 1, 25, 0, 'ok')")
        schema = " ".join(
            r[0] for r in db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")
        )
        assert "_v1" not in schema
    finally:
        db.close()
