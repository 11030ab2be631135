"""Re-rating a ladder from its recorded results (``arena ladder rerate``).

Every unit the ladder rated is rated again, in the order it was first rated, from the
seats' recorded games won and points (the same ranking the ladder used), by the system
asked for.  The new ratings are built beside the old ones and put in force in one
transaction:

1. A read snapshot: the rated units in order, their seats' totals, each bot's starting
   rating (before its first rated unit: the system's initial rating, or what a new
   version of a submitted bot inherited) and the newest rating change's id.
2. The rating changes are computed in memory and written to a new table,
   ``rating_history_next``, in batches (a table left by a killed re-rate is dropped
   first).  Nothing the ladder reads has changed yet.
3. One write transaction: the units a running ladder rated meanwhile are rated too (in
   their order, on top of the new ratings), the bots take their new ratings, the new
   table replaces ``rating_history`` (its indexes made again) and the ladder's config
   names the new system, which the runner uses from its next rating update on.

A re-rate killed before step 3 commits leaves the old ratings, history and system in
force; SQLite rolls back a step 3 that did not finish.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from arena.ratings import Rating, RatingSystem, RatingSystemName
from arena.storage.db import StorageError
from arena.storage.ladder_store import LadderStore, rate_unit

__all__ = ["NEXT_TABLE", "RerateSummary", "rerate"]

#: Where the new rating changes are written before they replace ``rating_history``.
NEXT_TABLE = "rating_history_next"

_BATCH = 5000  # rows a transaction while filling the new table: the runner waits no longer


@dataclass(frozen=True)
class RerateSummary:
    """What a re-rate did."""

    system: RatingSystemName
    previous: RatingSystemName
    units: int  # rating updates replayed, caught_up included
    caught_up: int  # of them, units the running ladder rated while this one computed
    bots: int  # bots whose rating was replaced


@dataclass(frozen=True)
class _Change:
    unit_id: int
    bot_id: int
    rank: int
    before: Rating
    after: Rating
    at: str


class _Replay:
    """The ratings as the units are replayed, and the changes made so far."""

    def __init__(self, store: LadderStore, system: RatingSystem) -> None:
        self.store = store
        self.system = system
        self.current: dict[int, Rating] = {}  # bot id -> rating
        self.changes: list[_Change] = []

    def starts(self) -> None:
        """Each bot not yet seen starts from the rating it had before its first rated unit
        (its present one if it has none)."""
        rows = self.store.db.execute(
            "SELECT b.id, b.mu, b.sigma, h.mu_before, h.sigma_before FROM bots b "
            "LEFT JOIN rating_history h ON h.id = "
            "(SELECT MIN(id) FROM rating_history WHERE bot_id = b.id)"
        ).fetchall()
        for row in rows:
            if row["id"] in self.current:
                continue
            if row["mu_before"] is None:
                self.current[row["id"]] = Rating(row["mu"], row["sigma"])
            else:
                self.current[row["id"]] = Rating(row["mu_before"], row["sigma_before"])

    def units(self, after_id: int, up_to: int | None) -> int:
        """Replay the units first rated after rating change ``after_id`` (up to ``up_to``
        included), in that order; how many."""
        window = "HAVING MIN(id) > ?" + (" AND MIN(id) <= ?" if up_to is not None else "")
        params = (after_id,) if up_to is None else (after_id, up_to)
        order = self.store.db.execute(
            f"SELECT unit_id, MIN(id) AS first, MIN(at) AS at FROM rating_history "
            f"GROUP BY unit_id {window} ORDER BY first",
            params,
        ).fetchall()
        if not order:
            return 0
        seats = self.store.db.execute(
            "SELECT m.unit_id, b.name, s.bot_id, SUM(s.game_wins) AS wins, SUM(s.points) AS points "
            "FROM match_seats s JOIN matches m ON m.id = s.match_id JOIN bots b ON b.id = s.bot_id "
            "WHERE m.status = 'finished' AND m.unit_id IN "
            f"(SELECT unit_id FROM rating_history GROUP BY unit_id {window}) "
            "GROUP BY m.unit_id, s.bot_id",
            params,
        ).fetchall()
        totals: dict[int, dict[str, tuple[int, int]]] = {}
        ids: dict[str, int] = {}
        for row in seats:
            totals.setdefault(row["unit_id"], {})[row["name"]] = (row["wins"], row["points"])
            ids[row["name"]] = row["bot_id"]
        for unit in order:
            unit_totals = totals.get(unit["unit_id"], {})
            names = sorted(unit_totals)
            if len(names) < 2:
                raise StorageError(
                    f"{self.store.path}: unit {unit['unit_id']} was rated but has fewer than "
                    "two bots' finished seats; not re-rating"
                )
            before = {name: self.current[ids[name]] for name in names}
            ranks, after = rate_unit(self.system, names, unit_totals, before)
            for name, rank, new in zip(names, ranks, after, strict=True):
                self.current[ids[name]] = new
                self.changes.append(
                    _Change(unit["unit_id"], ids[name], rank, before[name], new, unit["at"])
                )
        return len(order)


def rerate(
    store: LadderStore,
    system: RatingSystem,
    *,
    on_computed: Callable[[int], None] | None = None,
) -> RerateSummary:
    """Rate every rated unit of the ladder again with ``system``, in order, and put the
    result in force in one transaction (see the module's docstring).  ``on_computed``
    is called with the number of units replayed, before the switch."""
    db = store.db
    previous = store.rating_system().name
    replay = _Replay(store, system)
    db.execute("BEGIN")  # a read snapshot: the units, seats and starts agree
    try:
        newest = int(db.execute("SELECT COALESCE(MAX(id), 0) FROM rating_history").fetchone()[0])
        replay.starts()
        units = replay.units(0, newest)
    finally:
        db.execute("COMMIT")
    _fill_next(store, replay.changes)
    written = len(replay.changes)
    if on_computed is not None:
        on_computed(units)
    with store.transaction():
        replay.starts()  # bots added meanwhile
        caught_up = replay.units(newest, None)
        _insert(store, replay.changes[written:])
        db.executemany(
            "UPDATE bots SET mu = ?, sigma = ? WHERE id = ?",
            [(rating.mu, rating.sigma, bot) for bot, rating in replay.current.items()],
        )
        indexes = [
            row[0]
            for row in db.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rating_history' "
                "AND sql IS NOT NULL"
            )
        ]
        db.execute("DROP TABLE rating_history")
        db.execute(f"ALTER TABLE {NEXT_TABLE} RENAME TO rating_history")
        for sql in indexes:
            db.execute(sql)
        db.execute(
            "UPDATE ladder SET config = json_set(config, '$.rating_system', ?)",
            (system.name.value,),
        )
    return RerateSummary(system.name, previous, units + caught_up, caught_up, len(replay.current))


def _fill_next(store: LadderStore, changes: list[_Change]) -> None:
    """The new table, shaped as ``rating_history`` is now, filled batch by batch."""
    sql = store.db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'rating_history'"
    ).fetchone()[0]
    create, count = re.subn(
        r"^CREATE TABLE\s+\"?rating_history\"?", f"CREATE TABLE {NEXT_TABLE}", sql
    )
    if count != 1:
        raise StorageError(f"{store.path}: cannot read the rating_history table's definition")
    with store.transaction():
        store.db.execute(f"DROP TABLE IF EXISTS {NEXT_TABLE}")  # a killed re-rate's
        store.db.execute(create)
    for start in range(0, len(changes), _BATCH):
        with store.transaction():
            _insert(store, changes[start : start + _BATCH])


def _insert(store: LadderStore, changes: list[_Change]) -> None:
    store.db.executemany(
        f"INSERT INTO {NEXT_TABLE} (unit_id, bot_id, rank, mu_before, sigma_before, "
        "mu_after, sigma_after, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                c.unit_id,
                c.bot_id,
                c.rank,
                c.before.mu,
                c.before.sigma,
                c.after.mu,
                c.after.sigma,
                c.at,
            )
            for c in changes
        ],
    )
