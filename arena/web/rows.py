"""The typed rows the web view's queries return: what the pages render and the JSON
API returns (and documents, through OpenAPI), field for field."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
]


@dataclass(frozen=True)
class Progress:
    """The run's progress: matches by state, and an ETA while matches are running."""

    finished: int
    running: int
    scheduled: int
    cancelled: int
    planned: int  # finished + running + scheduled
    matches_per_minute: float | None  # over the last finished matches
    eta_seconds: float | None  # None unless a run is going on and the rate is known
    last_finished: str | None


@dataclass(frozen=True)
class LeaderboardBot:
    place: int | None  # from 1 among active bots; None for the bots listed apart
    name: str
    version: str  # from the bot's latest match ("" before its first)
    score: float  # mu - 3 sigma
    mu: float
    sigma: float
    matches: int
    wins: int  # matches won
    draws: int
    games: int
    game_wins: int
    game_win_rate: float
    points: int
    points_per_game: float
    faults: int
    status: str


@dataclass(frozen=True)
class PlayingMatch:
    """A match being played now (its page follows it)."""

    id: int
    seats: list[str]
    started: str | None


@dataclass(frozen=True)
class Leaderboard:
    ladder: str
    game: str
    # Active bots best first (places offset + 1, ...), then every bot listed apart
    # (suspended, disabled, removed: place None), also best first.
    bots: list[LeaderboardBot]
    active: int  # active bots in all
    offset: int  # the first active bot shown is the one in place offset + 1
    progress: Progress
    playing: list[PlayingMatch]  # the matches in progress, oldest first


@dataclass(frozen=True)
class RatingPoint:
    unit: int  # the rating update (a duplicate set, or one match)
    matches: int  # the bot's matches played by then
    place: int  # its finishing place in that update, from 0
    mu: float
    sigma: float
    score: float
    at: str


@dataclass(frozen=True)
class OpponentRecord:
    name: str
    matches: int
    games: int
    game_wins: int  # games this bot won in matches with the opponent
    opponent_game_wins: int
    win_rate: float  # game_wins / games
    low: float  # 95% Wilson interval
    high: float


@dataclass(frozen=True)
class FaultEntry:
    match: int
    seat: int
    bot: str
    status: str
    reason: str
    game: int
    hand: int
    consequence: str


@dataclass(frozen=True)
class MatchSeat:
    seat: int
    name: str
    rank: int  # 0: won the match
    game_wins: int
    points: int
    faults: int
    status: str
    sandbox: str
    version: str


@dataclass(frozen=True)
class MatchSummary:
    id: int
    finished: str | None
    games: int
    seats: list[MatchSeat]
    faults: int


@dataclass(frozen=True)
class MatchList:
    ladder: str
    bot: str | None
    matches: list[MatchSummary]  # newest first


@dataclass(frozen=True)
class BotPage:
    ladder: str
    bot: LeaderboardBot
    added: str
    history: list[RatingPoint]
    opponents: list[OpponentRecord]
    faults: list[FaultEntry]  # newest first
    recent: list[MatchSummary]  # newest first


@dataclass(frozen=True)
class MatchDetail:
    ladder: str
    id: int
    game: str
    status: str
    schedule: str  # the unit's key, e.g. rr:greedy:random:0
    unit: int
    seed: int | None  # None until every match of its unit is played (the same deals)
    attempts: int
    started: str | None
    finished: str | None
    games: int
    fault_policy: str
    seats: list[MatchSeat]
    results: list[dict[str, Any]]  # per game: scores, ranks, winner, reason, hands
    faults: list[FaultEntry]
    has_replay: bool


@dataclass(frozen=True)
class CrosstableCell:
    games: int
    game_wins: int  # by the row's bot
    win_rate: float


@dataclass(frozen=True)
class Crosstable:
    ladder: str
    bots: list[str]  # rows and columns, best first
    cells: list[list[CrosstableCell | None]]  # [row][column]; None: never met (or itself)
    total_bots: int  # the table shows the best ``len(bots)`` of these


@dataclass(frozen=True)
class FieldSeries:
    name: str
    points: list[tuple[int, float]]  # (ladder matches finished by then, mu - 3 sigma)


@dataclass(frozen=True)
class FieldPlot:
    ladder: str
    series: list[FieldSeries]  # best first
    total_bots: int
    matches: int
