"""The ladder's records in SQLite: bots, scheduled and finished matches, ratings.

Everything a finished match changes (its result, its seats, the bots' counts and
fault streaks, and the rating update it completes) is written in one transaction,
so a crash at any moment leaves either all of it or none of it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.ratings import Rating, RatingSystem, RatingSystemName, rating_system
from arena.referee.results import MatchResult
from arena.storage.db import StorageError, connect, write_transaction

__all__ = [
    "BotRow",
    "BotStatus",
    "DealSecret",
    "FinishedMatch",
    "LadderStore",
    "MatchRow",
    "MatchStatus",
    "RatingChange",
    "RecordedMatch",
    "SeatFault",
    "UnplayedMatch",
    "rate_unit",
]


class BotStatus(StrEnum):
    """A ladder bot's standing, as the ``bots.status`` column stores it (a ``StrEnum``:
    it is its text in SQL, JSON and comparisons)."""

    ACTIVE = "active"
    DISABLED = "disabled"  # by its owner or an operator
    SUSPENDED = "suspended"  # by the ladder, after a streak of faults
    REMOVED = "removed"


class MatchStatus(StrEnum):
    """Where a ladder match stands, as the ``matches.status`` column stores it."""

    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"  # its bots were disabled, or the arena gave up on it
    FAILED = "failed"  # the arena could not play it (it took down every worker it ran on)


ACTIVE = BotStatus.ACTIVE
STATUSES = tuple(BotStatus)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class BotRow:
    id: int
    name: str
    reference: str
    status: BotStatus
    rating: Rating
    matches: int
    wins: int
    draws: int
    games: int
    game_wins: int
    points: int
    faults: int
    fault_streak: int

    @classmethod
    def of(cls, row: sqlite3.Row) -> BotRow:
        return cls(
            row["id"], row["name"], row["reference"], BotStatus(row["status"]), Rating(row["mu"], row["sigma"]),
            row["matches"], row["wins"], row["draws"], row["games"], row["game_wins"], row["points"],
            row["faults"], row["fault_streak"],
        )  # fmt: skip

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0


@dataclass(frozen=True)
class MatchRow:
    id: int
    unit_id: int
    seats: tuple[str, ...]
    seed: int
    attempts: int
    unit_matches: int = 1  # matches in its unit: more than one play the same deals


@dataclass(frozen=True)
class DealSecret:
    """What a ladder's deal seeds derive from: ``random`` (drawn at creation: nobody
    can predict the deals) or ``config`` (the config's fixed seed: anyone who reads
    the config can)."""

    secret: bytes = field(repr=False)
    source: str


@dataclass(frozen=True)
class RecordedMatch:
    match_id: int
    rated: bool  # this match completed its unit, and the ratings moved
    suspended: tuple[str, ...]  # bots suspended by this match's faults


@dataclass(frozen=True)
class SeatFault:
    """A fault in a finished match, by the bot that made it."""

    bot: str
    status: str
    game: int  # from 0, as recorded; -1 before the first game
    reason: str


@dataclass(frozen=True)
class FinishedMatch:
    """A finished match as ``arena ladder history`` and the export list it: its unit,
    seats, and each seat's game wins, points, faults and sandbox level."""

    match: int
    unit: int
    schedule: str  # the unit's key
    seed: int
    seats: tuple[str, ...]
    finished: str
    replay: str | None
    wins: tuple[int, ...]
    points: tuple[int, ...]
    faults: tuple[int, ...]
    games: int
    sandbox: tuple[str, ...]
    fault_reasons: tuple[SeatFault, ...]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)  # tuples go out as JSON arrays, the faults as objects


@dataclass(frozen=True)
class UnplayedMatch:
    """A match the arena could not play: failed, or given up (cancelled with the error)."""

    match: int
    unit: int
    seats: tuple[str, ...]
    status: MatchStatus
    finished: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)  # the status is a StrEnum: its text in JSON


@dataclass(frozen=True)
class RatingChange:
    """One bot's rating before and after a unit was rated (``rank`` from 0)."""

    unit_id: int
    name: str
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    at: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class LadderStore:
    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db = db
        self.path = path

    @classmethod
    def create(
        cls,
        path: Path,
        name: str,
        config_json: str,
        config_path: str | None,
        deal_secret: DealSecret,
    ) -> LadderStore:
        store = cls(connect(path, create=True), path)
        with store.transaction():
            store.db.execute(
                "INSERT INTO ladder (id, name, config, config_path, created) VALUES (1, ?, ?, ?, ?)",
                (name, config_json, config_path, _now()),
            )
            store.db.execute(
                "INSERT INTO deal_secret (id, secret, source) VALUES (1, ?, ?)",
                (deal_secret.secret, deal_secret.source),
            )
        return store

    @classmethod
    def open(cls, path: Path) -> LadderStore:
        store = cls(connect(path), path)
        if store.db.execute("SELECT COUNT(*) FROM ladder").fetchone()[0] != 1:
            raise StorageError(f"{path}: holds no ladder")
        return store

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (taken at once, so two writers never interleave)."""
        with write_transaction(self.db):
            yield self.db

    # -- the ladder and its bots ---------------------------------------------

    def deal_secret(self) -> DealSecret | None:
        """The ladder's deal secret; None for a ladder made before there were any."""
        row = self.db.execute("SELECT secret, source FROM deal_secret").fetchone()
        return None if row is None else DealSecret(bytes(row["secret"]), row["source"])

    def config_path(self) -> str | None:
        """The config file the ladder was created from (``None``: made another way)."""
        value = self.db.execute("SELECT config_path FROM ladder").fetchone()[0]
        return str(value) if value else None

    def frozen(self) -> str | None:
        """When the ladder was frozen for its final (None: open to submissions)."""
        value = self.db.execute("SELECT frozen FROM ladder").fetchone()[0]
        return None if value is None else str(value)

    def set_frozen(self, frozen: bool) -> None:
        """Freeze the ladder (no submissions, no new versions) or open it again; a
        ladder already so is refused (``StorageError``), nothing changed."""
        with self.transaction():
            since = self.frozen()
            if frozen and since is not None:
                raise StorageError(f"{self.path}: the ladder is already frozen (since {since})")
            if not frozen and since is None:
                raise StorageError(f"{self.path}: the ladder is not frozen")
            self.db.execute("UPDATE ladder SET frozen = ?", (_now() if frozen else None,))

    def config_json(self) -> str:
        return str(self.db.execute("SELECT config FROM ladder").fetchone()[0])

    def rating_system(self) -> RatingSystem:
        """The rating system in force: the config's ``[ratings] system`` (TrueSkill in a
        ladder made before there was a choice), changed only by ``arena ladder rerate``.
        Read from the database at every rating update, so a re-rate that switches
        systems takes effect in a running ladder at its next update."""
        name = self.db.execute(
            "SELECT json_extract(config, '$.rating_system') FROM ladder"
        ).fetchone()[0]
        return rating_system(name or RatingSystemName.TRUESKILL)

    def set_config_json(self, config_json: str) -> None:
        with self.transaction():
            self.db.execute("UPDATE ladder SET config = ?", (config_json,))

    def bots(self, *, include_removed: bool = False) -> list[BotRow]:
        rows = self.db.execute("SELECT * FROM bots ORDER BY name").fetchall()
        return [BotRow.of(row) for row in rows if include_removed or row["status"] != "removed"]

    def bot(self, name: str) -> BotRow:
        row = self.db.execute("SELECT * FROM bots WHERE name = ?", (name,)).fetchone()
        if row is None:
            known = ", ".join(bot.name for bot in self.bots(include_removed=True)) or "none"
            raise StorageError(f"{self.path}: no bot {name!r} in this ladder (bots: {known})")
        return BotRow.of(row)

    def add_bot(self, name: str, reference: str, rating: Rating) -> None:
        with self.transaction():
            existing = self.db.execute("SELECT status FROM bots WHERE name = ?", (name,)).fetchone()
            if existing is not None and existing["status"] != "removed":
                raise StorageError(f"{self.path}: the ladder already has a bot {name!r}")
            if existing is not None:  # a removed bot comes back with its history
                self.db.execute(
                    "UPDATE bots SET status = ?, reference = ? WHERE name = ?",
                    (ACTIVE, reference, name),
                )
            else:
                self.db.execute(
                    "INSERT INTO bots (name, reference, status, mu, sigma, added) VALUES (?, ?, ?, ?, ?, ?)",
                    (name, reference, ACTIVE, rating.mu, rating.sigma, _now()),
                )

    def set_status(self, name: str, status: BotStatus | str) -> None:
        if status not in STATUSES:
            raise ValueError(f"bot status must be one of {', '.join(STATUSES)}, got {status!r}")
        status = BotStatus(status)
        self.bot(name)  # names the ladder's bots if there is no such one
        with self.transaction():
            streak = "" if status != ACTIVE else ", fault_streak = 0"
            self.db.execute(f"UPDATE bots SET status = ?{streak} WHERE name = ?", (status, name))

    # -- scheduling ------------------------------------------------------------

    def recover_running(self) -> int:
        """Matches left running by a crashed runner go back to the queue (they re-run)."""
        with self.transaction():
            return self.db.execute(
                "UPDATE matches SET status = 'scheduled' WHERE status = 'running'"
            ).rowcount

    def unit_exists(self, key: str) -> bool:
        return self.db.execute("SELECT 1 FROM units WHERE key = ?", (key,)).fetchone() is not None

    def reopen_unit(self, key: str) -> int:
        """Queue again the cancelled matches of a unit cancelled when one of its bots
        was disabled, suspended or removed (the caller knows they are all back)."""
        row = self.db.execute("SELECT id FROM units WHERE key = ? AND cancelled = 1", (key,))
        unit = row.fetchone()
        if unit is None:
            return 0
        with self.transaction():
            self.db.execute("UPDATE units SET cancelled = 0 WHERE id = ?", (unit["id"],))
            return self.db.execute(
                "UPDATE matches SET status = 'scheduled' WHERE unit_id = ? AND status = 'cancelled'",
                (unit["id"],),
            ).rowcount

    def add_unit(self, key: str, seed: int, lineups: Sequence[Sequence[str]]) -> int:
        with self.transaction():
            cursor = self.db.execute("INSERT INTO units (key, seed) VALUES (?, ?)", (key, seed))
            unit_id = int(cursor.lastrowid or 0)
            for lineup in lineups:
                self.db.execute(
                    "INSERT INTO matches (unit_id, seats, status) VALUES (?, ?, 'scheduled')",
                    (unit_id, json.dumps(list(lineup))),
                )
        return unit_id

    def cancel_inactive(self) -> int:
        """Cancel the queued matches of units that involve a bot no longer active."""
        active = {bot.name for bot in self.bots() if bot.status == ACTIVE}
        cancelled = 0
        with self.transaction():
            rows = self.db.execute(
                "SELECT id, unit_id, seats FROM matches WHERE status = 'scheduled'"
            ).fetchall()
            units = {row["unit_id"] for row in rows if not set(json.loads(row["seats"])) <= active}
            for unit in units:
                cancelled += self.db.execute(
                    "UPDATE matches SET status = 'cancelled' WHERE unit_id = ? AND status = 'scheduled'",
                    (unit,),
                ).rowcount
                self.db.execute("UPDATE units SET cancelled = 1 WHERE id = ?", (unit,))
        return cancelled

    def scheduled_count(self) -> int:
        return int(
            self.db.execute("SELECT COUNT(*) FROM matches WHERE status = 'scheduled'").fetchone()[0]
        )

    def take_next(self) -> MatchRow | None:
        """The oldest queued match, now marked running (one more attempt)."""
        with self.transaction():
            row = self.db.execute(
                "SELECT m.id, m.unit_id, m.seats, m.attempts, u.seed, "
                "(SELECT COUNT(*) FROM matches o WHERE o.unit_id = m.unit_id) AS unit_matches "
                "FROM matches m JOIN units u ON u.id = m.unit_id "
                "WHERE m.status = 'scheduled' ORDER BY m.id LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            self.db.execute(
                "UPDATE matches SET status = 'running', attempts = attempts + 1, started = ? WHERE id = ?",
                (_now(), row["id"]),
            )
        return MatchRow(
            row["id"],
            row["unit_id"],
            tuple(json.loads(row["seats"])),
            row["seed"],
            row["attempts"] + 1,
            row["unit_matches"],
        )

    def requeue(self, match_id: int, *, count_attempt: bool = True) -> None:
        """Put a running match back in the queue.  ``count_attempt=False``: the attempt
        was stopped by the arena (a runner stopping), not lost to a crash, so it does not
        count towards giving the match up."""
        with self.transaction():
            self.db.execute(
                "UPDATE matches SET status = 'scheduled', "
                "attempts = attempts - CASE WHEN ? THEN 0 ELSE 1 END "
                "WHERE id = ? AND status = 'running'",
                (count_attempt, match_id),
            )

    def give_up(self, match_id: int, reason: str) -> None:
        """A match the arena failed to play, attempt after attempt: cancelled, with the
        reason kept in its result, so the queue moves on (re-enabling one of its bots
        queues it again, like any cancelled match)."""
        with self.transaction():
            self.db.execute(
                "UPDATE matches SET status = 'cancelled', finished = ?, result = ? "
                "WHERE id = ? AND status IN ('running', 'scheduled')",
                (_now(), json.dumps({"error": reason}), match_id),
            )

    def match_status(self, match_id: int) -> MatchStatus | None:
        row = self.db.execute("SELECT status FROM matches WHERE id = ?", (match_id,)).fetchone()
        return None if row is None else MatchStatus(row["status"])

    def record_failure(self, match_id: int, reason: str) -> bool:
        """End a running match as 'failed': the arena could not play it (it counts for
        neither bot, and its unit is not rated).  False if it had already ended."""
        with self.transaction():
            return (
                self.db.execute(
                    "UPDATE matches SET status = 'failed', finished = ?, failure = ? "
                    "WHERE id = ? AND status IN ('scheduled', 'running')",
                    (_now(), reason, match_id),
                ).rowcount
                == 1
            )

    def played_counts(self) -> dict[str, int]:
        return {bot.name: bot.matches for bot in self.bots()}

    # -- results ---------------------------------------------------------------

    def record(
        self,
        match_id: int,
        result: MatchResult,
        replay: str | None,
        suspend_after: int,
        system: RatingSystem | None = None,
    ) -> RecordedMatch:
        """Store a finished match, and rate its unit if this completes it (one transaction).
        ``system``: rate with this one instead of the ladder's (:meth:`rating_system`)."""
        with self.transaction():
            row = self.db.execute(
                "SELECT status, unit_id, seats FROM matches WHERE id = ?", (match_id,)
            ).fetchone()
            if row is None or row["status"] == MatchStatus.FINISHED:
                return RecordedMatch(match_id, False, ())  # already counted: never twice
            seats = json.loads(row["seats"])
            bots = {name: self.bot(name) for name in seats}
            summaries = result.summaries()
            ranks = _match_ranks(
                [summary.wins for summary in summaries], [summary.points for summary in summaries]
            )
            self.db.execute(
                "UPDATE matches SET status = 'finished', finished = ?, result = ?, replay = ? WHERE id = ?",
                (_now(), json.dumps(result.to_json()), replay, match_id),
            )
            suspended = []
            for seat, (name, summary) in enumerate(zip(seats, summaries, strict=True)):
                bot = bots[name]
                faults = summary.faults
                streak = bot.fault_streak + 1 if faults else 0
                status = (
                    "suspended" if streak >= suspend_after and bot.status == ACTIVE else bot.status
                )
                if status == "suspended" and bot.status != "suspended":
                    suspended.append(name)
                self.db.execute(
                    "INSERT INTO match_seats (match_id, seat, bot_id, rank, games, game_wins, points, faults, status) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        match_id,
                        seat,
                        bot.id,
                        ranks[seat],
                        len(result.games),
                        summary.wins,
                        summary.points,
                        faults,
                        summary.status.value,
                    ),
                )
                self.db.execute(
                    "UPDATE bots SET matches = matches + 1, wins = wins + ?, draws = draws + ?, games = games + ?, "
                    "game_wins = game_wins + ?, points = points + ?, faults = faults + ?, fault_streak = ?, status = ? "
                    "WHERE id = ?",
                    (
                        int(ranks[seat] == 0 and ranks.count(0) == 1), int(ranks[seat] == 0 and ranks.count(0) > 1),
                        len(result.games), summary.wins, summary.points, faults, streak, status, bot.id,
                    ),
                )  # fmt: skip
            rated = self._rate_unit_if_complete(row["unit_id"], system or self.rating_system())
        return RecordedMatch(match_id, rated, tuple(suspended))

    def _rate_unit_if_complete(self, unit_id: int, system: RatingSystem) -> bool:
        unit = self.db.execute("SELECT rated FROM units WHERE id = ?", (unit_id,)).fetchone()
        open_matches = self.db.execute(
            "SELECT COUNT(*) FROM matches WHERE unit_id = ? AND status IN ('scheduled', 'running')",
            (unit_id,),
        ).fetchone()[0]
        failed = self.db.execute(
            "SELECT COUNT(*) FROM matches WHERE unit_id = ? AND status = 'failed'", (unit_id,)
        ).fetchone()[0]
        if unit["rated"] or open_matches or failed:  # a unit with a match missing is not rated
            return False
        seats = self.db.execute(
            "SELECT b.name, b.id, b.mu, b.sigma, s.game_wins, s.points FROM match_seats s "
            "JOIN matches m ON m.id = s.match_id JOIN bots b ON b.id = s.bot_id "
            "WHERE m.unit_id = ? AND m.status = 'finished'",
            (unit_id,),
        ).fetchall()
        if not seats:
            return False
        totals: dict[str, list[int]] = {}
        ids: dict[str, int] = {}
        before: dict[str, Rating] = {}
        for seat in seats:
            total = totals.setdefault(seat["name"], [0, 0])
            total[0] += seat["game_wins"]
            total[1] += seat["points"]
            ids[seat["name"]] = seat["id"]
            before[seat["name"]] = Rating(seat["mu"], seat["sigma"])
        names = sorted(totals)
        if len(names) < 2:
            return False
        ranks, after = rate_unit(system, names, totals, before)
        now = _now()
        for name, rank, new in zip(names, ranks, after, strict=True):
            old = before[name]
            self.db.execute(
                "UPDATE bots SET mu = ?, sigma = ? WHERE id = ?", (new.mu, new.sigma, ids[name])
            )
            self.db.execute(
                "INSERT INTO rating_history (unit_id, bot_id, rank, mu_before, sigma_before, mu_after, sigma_after, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (unit_id, ids[name], rank, old.mu, old.sigma, new.mu, new.sigma, now),
            )
        self.db.execute("UPDATE units SET rated = 1 WHERE id = ?", (unit_id,))
        return True

    # -- reports ---------------------------------------------------------------

    def finished_matches(self, name: str | None = None) -> list[FinishedMatch]:
        """Finished matches, oldest first (of one bot, if named), with their unit."""
        rows = self.db.execute(
            "SELECT m.id, m.unit_id, u.key, u.seed, m.seats, m.finished, m.replay, m.result FROM matches m "
            "JOIN units u ON u.id = m.unit_id WHERE m.status = 'finished' ORDER BY m.finished, m.id"
        ).fetchall()
        out = []
        for row in rows:
            seats = tuple(json.loads(row["seats"]))
            if name is not None and name not in seats:
                continue
            result = json.loads(row["result"])
            bots = result["bots"]
            out.append(
                FinishedMatch(
                    match=row["id"],
                    unit=row["unit_id"],
                    schedule=row["key"],
                    seed=row["seed"],
                    seats=seats,
                    finished=row["finished"],
                    replay=row["replay"],
                    wins=tuple(bot["wins"] for bot in bots),
                    points=tuple(bot["points"] for bot in bots),
                    faults=tuple(bot["faults"] for bot in bots),
                    games=result["games"],
                    sandbox=tuple(bot.get("sandbox", "") for bot in bots),
                    fault_reasons=tuple(
                        SeatFault(
                            seats[fault["seat"]], fault["status"], fault["game"], fault["reason"]
                        )
                        for fault in result.get("faults", [])
                    ),
                )
            )
        return out

    def unplayed_matches(self) -> list[UnplayedMatch]:
        """Matches the arena could not play, oldest first: failed, or given up after
        attempt after attempt (cancelled with the error), with the reason."""
        rows = self.db.execute(
            "SELECT id, unit_id, seats, status, finished, failure, result FROM matches "
            "WHERE status = 'failed' OR (status = 'cancelled' AND result IS NOT NULL) "
            "ORDER BY finished, id"
        ).fetchall()
        return [
            UnplayedMatch(
                match=row["id"],
                unit=row["unit_id"],
                seats=tuple(json.loads(row["seats"])),
                status=MatchStatus(row["status"]),
                finished=row["finished"],
                reason=row["failure"] or json.loads(row["result"] or "{}").get("error", ""),
            )
            for row in rows
        ]

    def rating_history(self, name: str | None = None) -> list[RatingChange]:
        """Every rating change, in order (of one bot, if named)."""
        rows = self.db.execute(
            "SELECT h.unit_id, b.name, h.rank, h.mu_before, h.sigma_before, h.mu_after, h.sigma_after, h.at "
            "FROM rating_history h JOIN bots b ON b.id = h.bot_id ORDER BY h.id"
        ).fetchall()
        return [RatingChange(**dict(row)) for row in rows if name is None or row["name"] == name]

    def counts(self) -> dict[str, int]:
        rows = self.db.execute(
            "SELECT status, COUNT(*) AS n FROM matches GROUP BY status"
        ).fetchall()
        return {row["status"]: row["n"] for row in rows}


def rate_unit(
    system: RatingSystem,
    names: Sequence[str],
    totals: Mapping[str, Sequence[int]],
    before: Mapping[str, Rating],
) -> tuple[list[int], list[Rating]]:
    """One unit's rating update: its bots (``names``, in name order) ranked by their
    totals over the unit's matches (games won, then points), and their new ratings.
    The ladder rates each unit so, and ``arena ladder rerate`` again in the same order."""
    ranks = _match_ranks([totals[name][0] for name in names], [totals[name][1] for name in names])
    return ranks, system.rate([before[name] for name in names], ranks)


def _match_ranks(wins: Sequence[int], points: Sequence[int]) -> list[int]:
    """Finishing order: more games won first, then more points; equal both: shared rank."""
    keys = [(w, p) for w, p in zip(wins, points, strict=True)]
    ordered = sorted(set(keys), reverse=True)
    return [ordered.index(key) for key in keys]
