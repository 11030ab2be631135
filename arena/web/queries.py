"""Every query the web view makes, each returning typed rows: the pages render them and
the JSON API returns them as they are, so a page and its JSON twin cannot disagree.

Each function takes a read-only connection inside one read transaction (see
``arena.web.ladders``), so a page sees one consistent snapshot while the runner writes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime
from typing import Any

from arena.stats import wilson_interval
from arena.web.rows import (
    BotPage,
    Crosstable,
    CrosstableCell,
    FaultEntry,
    FieldPlot,
    FieldSeries,
    Leaderboard,
    LeaderboardBot,
    MatchDetail,
    MatchList,
    MatchSeat,
    MatchSummary,
    OpponentRecord,
    PlayingMatch,
    Progress,
    RatingPoint,
)

__all__ = [
    "BotPage",
    "Crosstable",
    "CrosstableCell",
    "FaultEntry",
    "FieldPlot",
    "FieldSeries",
    "Leaderboard",
    "LeaderboardBot",
    "MatchDetail",
    "MatchList",
    "MatchSeat",
    "MatchSummary",
    "OpponentRecord",
    "PlayingMatch",
    "Progress",
    "RatingPoint",
    "Versions",
    "bot_page",
    "crosstable",
    "field_plot",
    "frozen_since",
    "leaderboard",
    "match_detail",
    "match_replay_path",
    "matches",
    "playing_now",
    "progress",
    "replay_withheld",
]

# How many recent finished matches the ETA's rate is measured over.
_RATE_WINDOW = 50


# -- the ladder and its leaderboard ----------------------------------------------------------


def ladder_info(db: sqlite3.Connection) -> tuple[str, str]:
    """The ladder's name and game id."""
    row = db.execute("SELECT name, config FROM ladder").fetchone()
    if row is None:
        raise LookupError("the database holds no ladder")
    config = json.loads(row["config"])
    return str(row["name"]), str(config.get("game", ""))


def _finished_count(db: sqlite3.Connection) -> tuple[int, dict[str, int]]:
    """Finished matches, and the count of each other state.  Matches are never deleted,
    so their ids run 1..N and the finished ones are N less the others: three small
    index lookups instead of counting 100,000 rows."""
    total = db.execute("SELECT MAX(id) FROM matches").fetchone()[0] or 0
    others = {
        row["status"]: row["n"]
        for row in db.execute(
            "SELECT status, COUNT(*) AS n FROM matches "
            "WHERE status IN ('scheduled', 'running', 'cancelled') GROUP BY status"
        )
    }
    return total - sum(others.values()), others


def progress(db: sqlite3.Connection) -> Progress:
    finished, counts = _finished_count(db)
    running, scheduled = counts.get("running", 0), counts.get("scheduled", 0)
    recent = [
        row["finished"]
        for row in db.execute(
            "SELECT finished FROM matches WHERE status = 'finished' ORDER BY id DESC LIMIT ?",
            (_RATE_WINDOW,),
        )
    ]
    times = sorted(datetime.fromisoformat(text) for text in recent if text)
    rate = None
    if len(times) >= 2 and times[-1] > times[0]:
        rate = (len(times) - 1) / (times[-1] - times[0]).total_seconds() * 60
    left = running + scheduled
    eta = left / rate * 60 if rate and running else None
    return Progress(
        finished,
        running,
        scheduled,
        counts.get("cancelled", 0),
        finished + left,
        rate,
        eta,
        times[-1].isoformat() if times else None,
    )


class Versions:
    """Each bot's version, as it reported it in its latest match.  Finding it means
    reading every bot's latest result (a third of a 1,000-bot leaderboard's time), and
    it can only change when a match finishes: so it is kept until one does."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._finished = -1
        self._versions: dict[int, str] = {}

    def of(self, db: sqlite3.Connection) -> dict[int, str]:
        finished, _ = _finished_count(db)
        with self._lock:
            if finished == self._finished:
                return self._versions
        versions = {
            row["id"]: str(row["version"] or "")
            for row in db.execute(f"SELECT b.id, {_VERSION} AS version FROM bots b")
        }
        with self._lock:
            self._finished, self._versions = finished, versions
        return versions


# The version a bot reported in its latest match (the index on match_seats(bot_id) makes
# this one lookup per bot).
_VERSION = (
    "(SELECT json_extract(m.result, '$.bots[' || s.seat || '].version') FROM match_seats s "
    "JOIN matches m ON m.id = s.match_id WHERE s.bot_id = b.id ORDER BY s.match_id DESC LIMIT 1)"
)
_BOT_COLUMNS = (
    "b.id, b.name, b.status, b.mu, b.sigma, b.matches, b.wins, b.draws, b.games, b.game_wins, "
    "b.points, b.faults, b.added"
)


def _bot(row: sqlite3.Row, place: int | None, version: str) -> LeaderboardBot:
    games = row["games"]
    return LeaderboardBot(
        place=place,
        name=row["name"],
        version=version,
        score=row["mu"] - 3 * row["sigma"],
        mu=row["mu"],
        sigma=row["sigma"],
        matches=row["matches"],
        wins=row["wins"],
        draws=row["draws"],
        games=games,
        game_wins=row["game_wins"],
        game_win_rate=row["game_wins"] / games if games else 0.0,
        points=row["points"],
        points_per_game=row["points"] / games if games else 0.0,
        faults=row["faults"],
        status=row["status"],
    )


def leaderboard(
    db: sqlite3.Connection,
    versions: Versions | None = None,
    *,
    offset: int = 0,
    limit: int | None = None,
) -> Leaderboard:
    """The active bots in places ``offset + 1`` to ``offset + limit`` (all by default)
    and every bot listed apart."""
    name, game = ladder_info(db)
    rows = db.execute(
        f"SELECT {_BOT_COLUMNS} FROM bots b ORDER BY b.mu - 3 * b.sigma DESC, b.name"
    ).fetchall()
    version = (versions or Versions()).of(db)
    active = [row for row in rows if row["status"] == "active"]
    apart = [row for row in rows if row["status"] != "active"]
    shown = active[offset : None if limit is None else offset + limit]
    bots = [
        _bot(row, place, version.get(row["id"], ""))
        for place, row in enumerate(shown, start=offset + 1)
    ]
    bots += [_bot(row, None, version.get(row["id"], "")) for row in apart]
    return Leaderboard(name, game, bots, len(active), offset, progress(db), playing_now(db))


def frozen_since(db: sqlite3.Connection) -> str | None:
    """When the ladder was frozen for its final (None: open, or a schema from before)."""
    try:
        row = db.execute("SELECT frozen FROM ladder").fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None or row[0] is None else str(row[0])


def playing_now(db: sqlite3.Connection) -> list[PlayingMatch]:
    """The matches being played, oldest first."""
    return [
        PlayingMatch(int(row["id"]), list(json.loads(row["seats"])), row["started"])
        for row in db.execute(
            "SELECT id, seats, started FROM matches WHERE status = 'running' ORDER BY id"
        )
    ]


# -- matches ---------------------------------------------------------------------------------


def _seats(result: dict[str, Any], ranks: dict[int, int]) -> list[MatchSeat]:
    return [
        MatchSeat(
            seat=index,
            name=str(bot.get("name", "")),
            rank=ranks.get(index, 0),
            game_wins=int(bot.get("wins", 0)),
            points=int(bot.get("points", 0)),
            faults=int(bot.get("faults", 0)),
            status=str(bot.get("status", "")),
            sandbox=str(bot.get("sandbox", "")),
            version=str(bot.get("version", "")),
        )
        for index, bot in enumerate(result.get("bots", []))
    ]


def _lineup(names: list[str]) -> list[MatchSeat]:
    """The seats of a match not played yet (or in play): its bots, nothing else known."""
    return [MatchSeat(index, str(name), 0, 0, 0, 0, "", "", "") for index, name in enumerate(names)]


def _summaries(db: sqlite3.Connection, ids: list[int]) -> list[MatchSummary]:
    """The finished matches ``ids``, in that order."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = {
        row["id"]: row
        for row in db.execute(
            f"SELECT id, finished, result FROM matches WHERE id IN ({marks})", ids
        )
    }
    ranks: dict[int, dict[int, int]] = {}
    for row in db.execute(
        f"SELECT match_id, seat, rank FROM match_seats WHERE match_id IN ({marks})", ids
    ):
        ranks.setdefault(row["match_id"], {})[row["seat"]] = row["rank"]
    out = []
    for match_id in ids:
        row = rows[match_id]
        result = json.loads(row["result"])
        seats = _seats(result, ranks.get(match_id, {}))
        out.append(
            MatchSummary(
                match_id,
                row["finished"],
                int(result.get("games", 0)),
                seats,
                sum(seat.faults for seat in seats),
            )
        )
    return out


def _bot_id(db: sqlite3.Connection, name: str) -> int | None:
    row = db.execute("SELECT id FROM bots WHERE name = ?", (name,)).fetchone()
    return None if row is None else int(row["id"])


def matches(db: sqlite3.Connection, *, limit: int = 50, bot: str | None = None) -> MatchList | None:
    """Finished matches, newest first (of ``bot``, if given); None if there is no such bot."""
    ladder, _ = ladder_info(db)
    if bot is None:
        rows = db.execute(
            "SELECT id FROM matches WHERE status = 'finished' ORDER BY finished DESC, id DESC LIMIT ?",
            (limit,),
        )
    else:
        bot_id = _bot_id(db, bot)
        if bot_id is None:
            return None
        rows = db.execute(
            "SELECT s.match_id AS id FROM match_seats s WHERE s.bot_id = ? "
            "ORDER BY s.match_id DESC LIMIT ?",
            (bot_id, limit),
        )
    return MatchList(ladder, bot, _summaries(db, [row["id"] for row in rows]))


def _faults(result: dict[str, Any], match_id: int) -> list[FaultEntry]:
    names = [str(bot.get("name", "")) for bot in result.get("bots", [])]
    return [
        FaultEntry(
            match=match_id,
            seat=int(fault["seat"]),
            bot=names[fault["seat"]] if 0 <= fault["seat"] < len(names) else "",
            status=str(fault.get("status", "")),
            reason=str(fault.get("reason", "")),
            game=int(fault.get("game", -1)),
            hand=int(fault.get("hand", -1)),
            consequence=str(fault.get("consequence", "")),
        )
        for fault in result.get("faults", [])
    ]


def match_detail(db: sqlite3.Connection, match_id: int) -> MatchDetail | None:
    ladder, game = ladder_info(db)
    row = db.execute(
        "SELECT m.id, m.status, m.attempts, m.started, m.finished, m.replay, m.result, m.seats, "
        "u.id AS unit, u.key, u.seed, "
        "(SELECT COUNT(*) FROM matches o WHERE o.unit_id = u.id "
        " AND o.status IN ('scheduled', 'running')) AS unplayed "
        "FROM matches m JOIN units u ON u.id = m.unit_id WHERE m.id = ?",
        (match_id,),
    ).fetchone()
    if row is None:
        return None
    result = json.loads(row["result"]) if row["result"] else {}
    ranks = {
        seat["seat"]: seat["rank"]
        for seat in db.execute("SELECT seat, rank FROM match_seats WHERE match_id = ?", (match_id,))
    }
    return MatchDetail(
        ladder=ladder,
        id=row["id"],
        game=str(result.get("game_id", game)),
        status=row["status"],
        schedule=row["key"],
        unit=row["unit"],
        # The deals' seed once no match of the unit is left to play: before, it would
        # tell the cards of this match (in play) or of its unit's others (same deals).
        seed=None if row["unplayed"] else row["seed"],
        attempts=row["attempts"],
        started=row["started"],
        finished=row["finished"],
        games=int(result.get("games", 0)),
        fault_policy=str(result.get("fault_policy", "")),
        seats=_seats(result, ranks) if result.get("bots") else _lineup(json.loads(row["seats"])),
        results=list(result.get("results", [])),
        faults=_faults(result, row["id"]),
        has_replay=bool(row["replay"]),
    )


def match_replay_path(db: sqlite3.Connection, match_id: int) -> str | None:
    """The replay file the database records for a finished match (None if it has none,
    or while it is withheld: see :func:`replay_withheld`)."""
    row = db.execute(
        "SELECT replay FROM matches WHERE id = ? AND status = 'finished'", (match_id,)
    ).fetchone()
    if row is None or not row["replay"] or replay_withheld(db, match_id):
        return None
    return str(row["replay"])


def replay_withheld(db: sqlite3.Connection, match_id: int) -> bool:
    """Whether a match of its unit is still to be played: the other matches of a
    duplicate unit play the same deals, which its replay reveals at its end."""
    row = db.execute(
        "SELECT COUNT(*) FROM matches o JOIN matches m ON o.unit_id = m.unit_id "
        "WHERE m.id = ? AND o.status IN ('scheduled', 'running')",
        (match_id,),
    ).fetchone()
    return bool(row[0])


# -- a bot's page ----------------------------------------------------------------------------

_RECENT = 20
_FAULTS = 50


def bot_page(db: sqlite3.Connection, name: str) -> BotPage | None:
    ladder, _ = ladder_info(db)
    row = db.execute(
        f"SELECT {_BOT_COLUMNS}, {_VERSION} AS version FROM bots b WHERE b.name = ?", (name,)
    ).fetchone()
    if row is None:
        return None
    place = None
    if row["status"] == "active":
        place = (
            1
            + db.execute(
                "SELECT COUNT(*) FROM bots WHERE status = 'active' AND "
                "(mu - 3 * sigma > ? OR (mu - 3 * sigma = ? AND name < ?))",
                (row["mu"] - 3 * row["sigma"], row["mu"] - 3 * row["sigma"], name),
            ).fetchone()[0]
        )
    bot_id = row["id"]
    return BotPage(
        ladder=ladder,
        bot=_bot(row, place, str(row["version"] or "")),
        added=row["added"],
        history=_history(db, bot_id),
        opponents=_opponents(db, bot_id),
        faults=_bot_faults(db, bot_id),
        recent=_summaries(
            db,
            [
                r["match_id"]
                for r in db.execute(
                    "SELECT match_id FROM match_seats WHERE bot_id = ? ORDER BY match_id DESC LIMIT ?",
                    (bot_id, _RECENT),
                )
            ],
        ),
    )


def _history(db: sqlite3.Connection, bot_id: int) -> list[RatingPoint]:
    # The bot's matches per unit, to put its rating updates on a scale of matches.
    per_unit: dict[int, int] = {}
    for row in db.execute(
        "SELECT m.unit_id, COUNT(*) AS n FROM match_seats s JOIN matches m ON m.id = s.match_id "
        "WHERE s.bot_id = ? GROUP BY m.unit_id",
        (bot_id,),
    ):
        per_unit[row["unit_id"]] = row["n"]
    points = []
    played = 0
    for row in db.execute(
        "SELECT unit_id, rank, mu_after, sigma_after, at FROM rating_history "
        "WHERE bot_id = ? ORDER BY id",
        (bot_id,),
    ):
        played += per_unit.get(row["unit_id"], 1)
        mu, sigma = row["mu_after"], row["sigma_after"]
        points.append(
            RatingPoint(row["unit_id"], played, row["rank"], mu, sigma, mu - 3 * sigma, row["at"])
        )
    return points


def _opponents(db: sqlite3.Connection, bot_id: int) -> list[OpponentRecord]:
    rows = db.execute(
        "SELECT b.name, COUNT(*) AS matches, SUM(me.games) AS games, SUM(me.game_wins) AS wins, "
        "SUM(them.game_wins) AS their_wins FROM match_seats me "
        "JOIN match_seats them ON them.match_id = me.match_id AND them.seat != me.seat "
        "JOIN bots b ON b.id = them.bot_id WHERE me.bot_id = ? AND them.bot_id != me.bot_id "
        "GROUP BY them.bot_id ORDER BY b.name",
        (bot_id,),
    )
    out = []
    for row in rows:
        games, wins = row["games"] or 0, row["wins"] or 0
        low, high = wilson_interval(wins, games)
        out.append(
            OpponentRecord(
                row["name"],
                row["matches"],
                games,
                wins,
                row["their_wins"] or 0,
                wins / games if games else 0.0,
                low,
                high,
            )
        )
    return out


def _bot_faults(db: sqlite3.Connection, bot_id: int) -> list[FaultEntry]:
    rows = db.execute(
        "SELECT s.match_id, s.seat, m.result FROM match_seats s JOIN matches m ON m.id = s.match_id "
        "WHERE s.bot_id = ? AND s.faults > 0 ORDER BY s.match_id DESC LIMIT ?",
        (bot_id, _FAULTS),
    )
    out = []
    for row in rows:
        faults = _faults(json.loads(row["result"]), row["match_id"])
        out += [fault for fault in faults if fault.seat == row["seat"]]
    return out


# -- the whole field -------------------------------------------------------------------------


def _best(db: sqlite3.Connection, limit: int) -> tuple[list[tuple[int, str]], int]:
    rows = db.execute(
        "SELECT id, name FROM bots WHERE status != 'removed' ORDER BY mu - 3 * sigma DESC, name"
    ).fetchall()
    return [(row["id"], row["name"]) for row in rows[:limit]], len(rows)


def crosstable(db: sqlite3.Connection, *, limit: int = 30) -> Crosstable:
    """Each pair of the best ``limit`` bots: games the row's bot won in their matches."""
    ladder, _ = ladder_info(db)
    best, total = _best(db, limit)
    index = {bot_id: position for position, (bot_id, _) in enumerate(best)}
    cells: list[list[CrosstableCell | None]] = [[None] * len(best) for _ in best]
    if best:
        marks = ",".join("?" * len(best))
        ids = list(index)
        rows = db.execute(
            "SELECT me.bot_id AS me, them.bot_id AS them, SUM(me.games) AS games, "
            "SUM(me.game_wins) AS wins FROM match_seats me JOIN match_seats them "
            "ON them.match_id = me.match_id AND them.seat != me.seat "
            f"WHERE me.bot_id IN ({marks}) AND them.bot_id IN ({marks}) AND me.bot_id != them.bot_id "
            "GROUP BY me.bot_id, them.bot_id",
            ids + ids,
        )
        for row in rows:
            games, wins = row["games"] or 0, row["wins"] or 0
            cells[index[row["me"]]][index[row["them"]]] = CrosstableCell(
                games, wins, wins / games if games else 0.0
            )
    return Crosstable(ladder, [name for _, name in best], cells, total)


def field_plot(db: sqlite3.Connection, *, limit: int = 30) -> FieldPlot:
    """mu - 3 sigma of the best ``limit`` bots after each rating update, on a scale of the
    ladder's finished matches."""
    ladder, _ = ladder_info(db)
    best, total = _best(db, limit)
    per_unit = {
        row["unit_id"]: row["n"]
        for row in db.execute(
            "SELECT unit_id, COUNT(*) AS n FROM matches WHERE status = 'finished' GROUP BY unit_id"
        )
    }
    series: dict[int, list[tuple[int, float]]] = {bot_id: [] for bot_id, _ in best}
    played = before = 0  # matches finished by the end, and by the start, of this unit
    last_unit = None
    for row in db.execute(
        "SELECT unit_id, bot_id, mu_before, sigma_before, mu_after, sigma_after "
        "FROM rating_history ORDER BY id"
    ):
        if row["unit_id"] != last_unit:
            last_unit = row["unit_id"]
            before = played
            played += per_unit.get(row["unit_id"], 1)
        points = series.get(row["bot_id"])
        if points is None:
            continue
        if not points:  # where the bot started
            points.append((before, row["mu_before"] - 3 * row["sigma_before"]))
        points.append((played, row["mu_after"] - 3 * row["sigma_after"]))
    return FieldPlot(
        ladder,
        [FieldSeries(name, series[bot_id]) for bot_id, name in best],
        total,
        played,
    )
