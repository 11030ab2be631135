"""A season's finals in SQLite (schema 10): the finals, their bots, rounds, matches, and
the standings read from them.

Finals matches live in tables of their own (``finals_*``): the ladder's runner never
sees them, and they move no rating.  As in the ladder, a finished match's result,
seats and game ranks are written in one transaction, once; a match left running by a
crash goes back to the queue when the finals resume.

The secret the finals' seeds derive from is stored when the finals start (a resumed
finals needs it) but read out only by :meth:`FinalsStore.secret`; a :class:`FinalsRow`
carries it (``secret``, in hex) only once the finals have finished, so a page or an answer
built from a running finals cannot show it.

The read methods take any connection, a read-only one too (the web view's).
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from itertools import pairwise
from pathlib import Path

from arena.referee.results import MatchResult
from arena.stats import sign_test
from arena.storage.db import write_transaction

__all__ = [
    "SEPARATION_LEVEL",
    "Finalist",
    "FinalsMatch",
    "FinalsMatchLine",
    "FinalsMatchStatus",
    "FinalsReport",
    "FinalsRow",
    "FinalsStandings",
    "FinalsStatus",
    "FinalsStore",
    "Gap",
    "HeadToHead",
    "NewFinalist",
    "RoundUnit",
    "Standing",
    "round_games",
]

#: A pair of neighbours in the final order is separated when the sign test on their
#: head-to-head games gives p below this (and favours the one placed higher).
SEPARATION_LEVEL = 0.05


class FinalsStatus(StrEnum):
    RUNNING = "running"  # being played, or stopped before its end: the same command resumes it
    FINISHED = "finished"  # its order is final and its secret revealed


class FinalsMatchStatus(StrEnum):
    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"  # the arena could not play it: counted for nobody


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def round_games(bots: int, seats: int, games: int) -> int:
    """Head-to-head games each pair plays in one round: the line-ups holding both
    (``C(bots - 2, seats - 2)``), each played in every rotation of its seats, each
    match ``games`` games."""
    return math.comb(bots - 2, seats - 2) * seats * games


@dataclass(frozen=True)
class FinalsRow:
    """One finals: its parameters, where it stands, and (once finished) its secret."""

    id: int
    status: FinalsStatus
    top: int  # as asked
    games: int  # games a match
    max_games: int  # head-to-head games a pair plays at most
    seats: int  # a line-up's seats
    commitment: str  # hex SHA-256 of the secret, published at the start
    replays: str  # the folder its replays are written in
    rounds: int  # rounds queued
    started: str
    finished: str | None
    secret: str | None  # the secret in hex, once the finals have finished; else None

    @property
    def verified(self) -> bool | None:
        """Does the revealed secret hash to the commitment (None: not revealed yet)?"""
        if self.secret is None:
            return None
        return hashlib.sha256(bytes.fromhex(self.secret)).hexdigest() == self.commitment

    @property
    def label(self) -> str:
        return f"finals-{self.id}"


@dataclass(frozen=True)
class NewFinalist:
    """A bot entering a finals: its ladder place (``seed``) and rating when it starts."""

    bot_id: int
    seed: int
    mu: float
    sigma: float


@dataclass(frozen=True)
class Finalist:
    name: str
    bot_id: int
    reference: str  # how to start it (as the ladder's bots table has it)
    seed: int  # its place on the ladder when the finals started
    mu: float
    sigma: float
    place: int | None  # its final place, once the finals have finished


@dataclass(frozen=True)
class RoundUnit:
    """One line-up of a round: its seed's label and seed, and the seatings it plays."""

    label: str
    seed: int
    lineups: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class FinalsMatch:
    id: int
    unit_id: int
    round: int
    label: str  # its unit's: what its seed derives from
    seed: int
    seats: tuple[str, ...]
    status: FinalsMatchStatus
    attempts: int
    unit_matches: int  # matches of its unit: more than one deal the same cards
    replay: str | None
    finished: str | None
    wins: tuple[int, ...]  # games won by seat (empty until finished)
    points: tuple[int, ...]
    failure: str | None


@dataclass(frozen=True)
class HeadToHead:
    """The games two finalists both played: ``wins`` where ``first`` ranked above
    ``second``, ``losses`` where below, ``ties`` where equal (not counted by the test)."""

    first: str
    second: str
    wins: int
    losses: int
    ties: int

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.ties

    @property
    def p_value(self) -> float:
        """The exact two-sided sign test on the decided games."""
        return sign_test(self.wins, self.losses)


@dataclass(frozen=True)
class Standing:
    place: int  # from 1; bots a gap does not separate share one
    name: str
    seed: int  # its ladder place when the finals started
    matches: int
    games: int
    game_wins: int
    points: int
    faults: int


@dataclass(frozen=True)
class Gap:
    """Two neighbours of the order and whether the finals separate them."""

    upper: str
    lower: str
    wins: int  # head-to-head games the upper bot won against the lower
    losses: int
    ties: int
    p_value: float  # exact two-sided sign test on wins against losses
    separated: bool  # p < 0.05 and the upper bot ahead head to head
    exhausted: bool  # another round would take the pair past --max-games

    @property
    def resolved(self) -> bool:
        return self.separated or self.exhausted


@dataclass(frozen=True)
class FinalsStandings:
    """A finals' order as it stands (final once ``finals.status`` is finished)."""

    finals: FinalsRow
    standings: tuple[Standing, ...]
    gaps: tuple[Gap, ...]  # gaps[i]: between standings[i] and standings[i + 1]
    round_games: int  # head-to-head games a pair plays a round
    matches: int  # finished matches
    failed: int  # matches the arena could not play

    @property
    def decided(self) -> bool:
        """Every neighbouring pair separated, or out of games: no round is left to play."""
        return all(gap.resolved for gap in self.gaps)


@dataclass(frozen=True)
class FinalsMatchLine:
    """A finals match as the standings list it (the web page and ``standings --finals``)."""

    id: int
    round: int
    label: str  # what its seed derives from
    seats: tuple[str, ...]
    status: FinalsMatchStatus
    wins: tuple[int, ...]  # games won by seat, once finished
    points: tuple[int, ...]
    replay: str | None  # its replay, under the ladder's replay folder (finals-ID/mN-aK.jsonl)
    seed: int | None  # its deals' seed, shown once the finals have finished


@dataclass(frozen=True)
class FinalsReport:
    """A finals for the page and its JSON twin: the standings, each match, and the ids
    of every finals the ladder has held (``finals`` None, and the rest empty, before
    the ladder's first finals)."""

    finals: FinalsRow | None
    standings: tuple[Standing, ...]
    gaps: tuple[Gap, ...]
    round_games: int
    finished_matches: int
    failed_matches: int
    matches: tuple[FinalsMatchLine, ...]
    held: tuple[int, ...]  # every finals of the ladder, oldest first
    test: str = (
        "exact two-sided binomial sign test on the pair's head-to-head decided games "
        "(tied games left out), separated at p < 0.05"
    )


_FINALS_COLUMNS = (
    "id, status, top, games, max_games, seats, commitment, replays, rounds, started, finished, "
    "CASE WHEN status = 'finished' THEN secret END AS revealed"
)


def _finals_row(row: sqlite3.Row) -> FinalsRow:
    revealed = row["revealed"]
    return FinalsRow(
        row["id"], FinalsStatus(row["status"]), row["top"], row["games"], row["max_games"],
        row["seats"], row["commitment"], row["replays"], row["rounds"], row["started"],
        row["finished"], None if revealed is None else bytes(revealed).hex(),
    )  # fmt: skip


def _under(replay: str | None, folder: str) -> str | None:
    """A replay's path from the ladder's replay folder: ``finals-ID/mN-aK.jsonl`` (a
    server's own paths are not a visitor's business)."""
    if replay is None:
        return None
    path = Path(replay)
    return str(Path(Path(folder).name) / path.name) if path.parent == Path(folder) else path.name


class FinalsStore:
    """The finals of the ladder in ``db`` (a connection opened by ``arena.storage.connect``
    for writing; any connection to read)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.db.row_factory = sqlite3.Row

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        return write_transaction(self.db)

    # -- reading ---------------------------------------------------------------

    def has_tables(self) -> bool:
        """False for a database older than schema 10 that could not be upgraded (a
        read-only file the web view shows): it has no finals."""
        row = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'finals'"
        ).fetchone()
        return row is not None

    def latest(self) -> FinalsRow | None:
        if not self.has_tables():
            return None
        row = self.db.execute(
            f"SELECT {_FINALS_COLUMNS} FROM finals ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else _finals_row(row)

    def get(self, finals_id: int) -> FinalsRow | None:
        if not self.has_tables():
            return None
        row = self.db.execute(
            f"SELECT {_FINALS_COLUMNS} FROM finals WHERE id = ?", (finals_id,)
        ).fetchone()
        return None if row is None else _finals_row(row)

    def all(self) -> list[FinalsRow]:
        if not self.has_tables():
            return []
        rows = self.db.execute(f"SELECT {_FINALS_COLUMNS} FROM finals ORDER BY id").fetchall()
        return [_finals_row(row) for row in rows]

    def secret(self, finals_id: int) -> bytes:
        """The secret the finals' seeds derive from, for the process that plays it."""
        row = self.db.execute("SELECT secret FROM finals WHERE id = ?", (finals_id,)).fetchone()
        return bytes(row["secret"])

    def finalists(self, finals_id: int) -> list[Finalist]:
        """The finals' bots, in their ladder order when it started."""
        rows = self.db.execute(
            "SELECT b.name, b.id, b.reference, f.seed, f.mu, f.sigma, f.place FROM finals_bots f "
            "JOIN bots b ON b.id = f.bot_id WHERE f.finals_id = ? ORDER BY f.seed",
            (finals_id,),
        ).fetchall()
        return [Finalist(*row) for row in rows]

    def matches(self, finals_id: int) -> list[FinalsMatch]:
        rows = self.db.execute(
            "SELECT m.*, u.round, u.label, u.seed, "
            "(SELECT COUNT(*) FROM finals_matches o WHERE o.unit_id = m.unit_id) AS unit_matches "
            "FROM finals_matches m JOIN finals_units u ON u.id = m.unit_id "
            "WHERE u.finals_id = ? ORDER BY m.id",
            (finals_id,),
        ).fetchall()
        return [self._match(row) for row in rows]

    @staticmethod
    def _match(row: sqlite3.Row) -> FinalsMatch:
        wins: tuple[int, ...] = ()
        points: tuple[int, ...] = ()
        if row["result"]:
            bots = json.loads(row["result"])["bots"]
            wins = tuple(bot["wins"] for bot in bots)
            points = tuple(bot["points"] for bot in bots)
        return FinalsMatch(
            row["id"], row["unit_id"], row["round"], row["label"], row["seed"],
            tuple(json.loads(row["seats"])), FinalsMatchStatus(row["status"]), row["attempts"],
            row["unit_matches"], row["replay"], row["finished"], wins, points, row["failure"],
        )  # fmt: skip

    def open_matches(self, finals_id: int) -> int:
        """Matches queued or running."""
        return int(
            self.db.execute(
                "SELECT COUNT(*) FROM finals_matches m JOIN finals_units u ON u.id = m.unit_id "
                "WHERE u.finals_id = ? AND m.status IN ('scheduled', 'running')",
                (finals_id,),
            ).fetchone()[0]
        )

    def head_to_head(self, finals_id: int) -> dict[tuple[str, str], HeadToHead]:
        """Every pair's head-to-head games, keyed both ways round."""
        rows = self.db.execute(
            "SELECT ba.name AS a, bb.name AS b, "
            "SUM(ga.rank < gb.rank) AS wins, SUM(ga.rank > gb.rank) AS losses, "
            "SUM(ga.rank = gb.rank) AS ties "
            "FROM finals_games ga JOIN finals_games gb "
            "ON gb.match_id = ga.match_id AND gb.game = ga.game AND gb.seat != ga.seat "
            "JOIN finals_seats sa ON sa.match_id = ga.match_id AND sa.seat = ga.seat "
            "JOIN finals_seats sb ON sb.match_id = gb.match_id AND sb.seat = gb.seat "
            "JOIN bots ba ON ba.id = sa.bot_id JOIN bots bb ON bb.id = sb.bot_id "
            "JOIN finals_matches m ON m.id = ga.match_id JOIN finals_units u ON u.id = m.unit_id "
            "WHERE u.finals_id = ? AND m.status = 'finished' GROUP BY ba.name, bb.name",
            (finals_id,),
        ).fetchall()
        return {
            (row["a"], row["b"]): HeadToHead(
                row["a"], row["b"], row["wins"], row["losses"], row["ties"]
            )
            for row in rows
        }

    def standings(self, finals: FinalsRow) -> FinalsStandings:
        """The order as it stands: by games won over every finals match, then points,
        then ladder place; each pair of neighbours tested head to head."""
        finalists = self.finalists(finals.id)
        totals = {
            row["name"]: row
            for row in self.db.execute(
                "SELECT b.name, COUNT(*) AS matches, SUM(s.game_wins) AS game_wins, "
                "SUM(s.points) AS points, SUM(s.faults) AS faults, "
                "SUM(json_extract(m.result, '$.games')) AS games "
                "FROM finals_seats s JOIN bots b ON b.id = s.bot_id "
                "JOIN finals_matches m ON m.id = s.match_id JOIN finals_units u ON u.id = m.unit_id "
                "WHERE u.finals_id = ? AND m.status = 'finished' GROUP BY b.name",
                (finals.id,),
            ).fetchall()
        }

        def total(name: str, column: str) -> int:
            row = totals.get(name)
            return 0 if row is None else int(row[column] or 0)

        order = sorted(
            finalists,
            key=lambda bot: (-total(bot.name, "game_wins"), -total(bot.name, "points"), bot.seed),
        )
        pairs = self.head_to_head(finals.id)
        per_round = round_games(len(finalists), finals.seats, finals.games)
        exhausted = (finals.rounds + 1) * per_round > finals.max_games
        gaps = []
        for upper, lower in pairwise(order):
            duel = pairs.get((upper.name, lower.name), HeadToHead(upper.name, lower.name, 0, 0, 0))
            p_value = duel.p_value
            separated = p_value < SEPARATION_LEVEL and duel.wins > duel.losses
            gaps.append(
                Gap(upper.name, lower.name, duel.wins, duel.losses, duel.ties, p_value,
                    separated, exhausted)
            )  # fmt: skip
        places = [1]
        for index, gap in enumerate(gaps, start=1):
            places.append(index + 1 if gap.separated else places[-1])
        if finals.status is FinalsStatus.FINISHED:  # as published when the finals ended
            places = [bot.place if bot.place is not None else place for bot, place in zip(order, places, strict=True)]  # fmt: skip
        standings = tuple(
            Standing(
                place,
                bot.name,
                bot.seed,
                total(bot.name, "matches"),
                total(bot.name, "games"),
                total(bot.name, "game_wins"),
                total(bot.name, "points"),
                total(bot.name, "faults"),
            )
            for place, bot in zip(places, order, strict=True)
        )
        counts = dict(
            self.db.execute(
                "SELECT m.status, COUNT(*) FROM finals_matches m "
                "JOIN finals_units u ON u.id = m.unit_id WHERE u.finals_id = ? GROUP BY m.status",
                (finals.id,),
            ).fetchall()
        )
        return FinalsStandings(
            finals, standings, tuple(gaps), per_round,
            int(counts.get("finished", 0)), int(counts.get("failed", 0)),
        )  # fmt: skip

    def latest_report(self) -> FinalsReport:
        """The latest finals' report; an empty one before the ladder's first finals."""
        latest = self.latest()
        if latest is None:
            return FinalsReport(None, (), (), 0, 0, 0, (), ())
        return self.report(latest)

    def report(self, finals: FinalsRow) -> FinalsReport:
        """The standings with every match; seeds only once the finals have finished
        (before, a seed would tell the deals of a match still to be played)."""
        standings = self.standings(finals)
        done = finals.status is FinalsStatus.FINISHED
        lines = tuple(
            FinalsMatchLine(
                match.id,
                match.round,
                match.label,
                match.seats,
                match.status,
                match.wins,
                match.points,
                _under(match.replay, finals.replays),
                match.seed if done else None,
            )
            for match in self.matches(finals.id)
        )
        return FinalsReport(
            finals, standings.standings, standings.gaps, standings.round_games,
            standings.matches, standings.failed, lines, tuple(row.id for row in self.all()),
        )  # fmt: skip

    # -- writing ---------------------------------------------------------------

    def create(
        self,
        *,
        top: int,
        games: int,
        max_games: int,
        seats: int,
        secret: bytes,
        commitment: str,
        replays: Callable[[int], str],
        finalists: Sequence[NewFinalist],
    ) -> int:
        """A new finals with its bots, in one transaction: its id.  ``replays`` names its
        replay folder from its id."""
        with self._transaction():
            cursor = self.db.execute(
                "INSERT INTO finals (status, top, games, max_games, seats, secret, commitment, "
                "replays, started) VALUES ('running', ?, ?, ?, ?, ?, ?, '', ?)",
                (top, games, max_games, seats, secret, commitment, _now()),
            )
            finals_id = int(cursor.lastrowid or 0)
            self.db.execute(
                "UPDATE finals SET replays = ? WHERE id = ?", (replays(finals_id), finals_id)
            )
            for bot in finalists:
                self.db.execute(
                    "INSERT INTO finals_bots (finals_id, bot_id, seed, mu, sigma) VALUES (?, ?, ?, ?, ?)",
                    (finals_id, bot.bot_id, bot.seed, bot.mu, bot.sigma),
                )
        return finals_id

    def queue_round(self, finals_id: int, number: int, units: Sequence[RoundUnit]) -> bool:
        """Queue round ``number`` (its units and their matches) in one transaction; False
        if it already was."""
        with self._transaction():
            rounds = self.db.execute(
                "SELECT rounds FROM finals WHERE id = ?", (finals_id,)
            ).fetchone()[0]
            if rounds >= number:
                return False
            for unit in units:
                cursor = self.db.execute(
                    "INSERT INTO finals_units (finals_id, round, label, seed) VALUES (?, ?, ?, ?)",
                    (finals_id, number, unit.label, unit.seed),
                )
                for lineup in unit.lineups:
                    self.db.execute(
                        "INSERT INTO finals_matches (unit_id, seats, status) VALUES (?, ?, 'scheduled')",
                        (cursor.lastrowid, json.dumps(list(lineup))),
                    )
            self.db.execute("UPDATE finals SET rounds = ? WHERE id = ?", (number, finals_id))
        return True

    def recover_running(self, finals_id: int) -> int:
        """Matches a killed finals left running go back to the queue (they play again)."""
        with self._transaction():
            return self.db.execute(
                "UPDATE finals_matches SET status = 'scheduled' WHERE status = 'running' "
                "AND unit_id IN (SELECT id FROM finals_units WHERE finals_id = ?)",
                (finals_id,),
            ).rowcount

    def take_next(self, finals_id: int) -> FinalsMatch | None:
        """The oldest queued match, now marked running (one more attempt)."""
        with self._transaction():
            row = self.db.execute(
                "SELECT m.id FROM finals_matches m JOIN finals_units u ON u.id = m.unit_id "
                "WHERE u.finals_id = ? AND m.status = 'scheduled' ORDER BY m.id LIMIT 1",
                (finals_id,),
            ).fetchone()
            if row is None:
                return None
            self.db.execute(
                "UPDATE finals_matches SET status = 'running', attempts = attempts + 1, "
                "started = ? WHERE id = ?",
                (_now(), row["id"]),
            )
            match = self.db.execute(
                "SELECT m.*, u.round, u.label, u.seed, "
                "(SELECT COUNT(*) FROM finals_matches o WHERE o.unit_id = m.unit_id) AS unit_matches "
                "FROM finals_matches m JOIN finals_units u ON u.id = m.unit_id WHERE m.id = ?",
                (row["id"],),
            ).fetchone()
        return self._match(match)

    def requeue(self, match_id: int, *, count_attempt: bool = True) -> None:
        """Put a running match back in the queue (``count_attempt=False``: the finals
        stopped it, so the attempt does not count)."""
        with self._transaction():
            self.db.execute(
                "UPDATE finals_matches SET status = 'scheduled', "
                "attempts = attempts - CASE WHEN ? THEN 0 ELSE 1 END "
                "WHERE id = ? AND status = 'running'",
                (count_attempt, match_id),
            )

    def record(self, match_id: int, result: MatchResult, replay: str | None) -> bool:
        """Store a finished match: its result, each seat's totals and each game's ranks,
        in one transaction.  False (and nothing written) if it is not running: a match is
        counted once."""
        with self._transaction():
            row = self.db.execute(
                "SELECT status, seats FROM finals_matches WHERE id = ?", (match_id,)
            ).fetchone()
            if row is None or row["status"] != FinalsMatchStatus.RUNNING:
                return False
            seats = json.loads(row["seats"])
            ids = {
                name: self.db.execute("SELECT id FROM bots WHERE name = ?", (name,)).fetchone()[0]
                for name in seats
            }
            self.db.execute(
                "UPDATE finals_matches SET status = 'finished', finished = ?, result = ?, replay = ? "
                "WHERE id = ?",
                (_now(), json.dumps(result.to_json()), replay, match_id),
            )
            for seat, (name, summary) in enumerate(zip(seats, result.summaries(), strict=True)):
                self.db.execute(
                    "INSERT INTO finals_seats (match_id, seat, bot_id, game_wins, points, faults) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (match_id, seat, ids[name], summary.wins, summary.points, summary.faults),
                )
            for game in result.games:
                for seat, rank in enumerate(game.ranks):
                    self.db.execute(
                        "INSERT INTO finals_games (match_id, game, seat, rank) VALUES (?, ?, ?, ?)",
                        (match_id, game.number, seat, rank),
                    )
        return True

    def record_failure(self, match_id: int, reason: str) -> bool:
        """End a match the arena could not play as 'failed' (it counts for nobody)."""
        with self._transaction():
            return (
                self.db.execute(
                    "UPDATE finals_matches SET status = 'failed', finished = ?, failure = ? "
                    "WHERE id = ? AND status IN ('scheduled', 'running')",
                    (_now(), reason, match_id),
                ).rowcount
                == 1
            )

    def finish(self, finals_id: int, places: Mapping[str, int]) -> None:
        """Publish the final order (each bot's place) and end the finals, which reveals
        its secret: one transaction."""
        with self._transaction():
            for name, place in places.items():
                self.db.execute(
                    "UPDATE finals_bots SET place = ? WHERE finals_id = ? "
                    "AND bot_id = (SELECT id FROM bots WHERE name = ?)",
                    (place, finals_id, name),
                )
            self.db.execute(
                "UPDATE finals SET status = 'finished', finished = ? WHERE id = ? AND status = 'running'",
                (_now(), finals_id),
            )
