"""What a match produced: per-game records, per-seat statistics, faults.

``MatchResult.to_json`` is the match's result as the replay's last line, the ladder's
database and ``arena match --json`` hold it; ``MatchResult.from_json`` reads it back.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.hosting.faults import SeatStatus
from arena.stats import wilson_interval

__all__ = [
    "DecisionTiming",
    "FaultRecord",
    "GameRecord",
    "MatchResult",
    "SeatRecord",
    "SeatSummary",
]

JsonObject = Mapping[str, Any]  # one object of a result's JSON, as json.loads gives it


@dataclass(frozen=True, slots=True)
class FaultRecord:
    seat: int
    status: SeatStatus
    reason: str
    game: int
    hand: int
    consequence: str  # "forfeit", or the replacement action "random: draw stock"

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "status": self.status.value,
            "reason": self.reason,
            "game": self.game,
            "hand": self.hand,
            "consequence": self.consequence,
        }

    @classmethod
    def from_json(cls, data: JsonObject) -> FaultRecord:
        return cls(
            data["seat"],
            SeatStatus(data["status"]),
            data["reason"],
            data["game"],
            data["hand"],
            data["consequence"],
        )


@dataclass(frozen=True, slots=True)
class GameRecord:
    number: int
    seed: int
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winner: int | None
    reason: str
    hands: int

    def to_json(self, *, without_seed: bool = False) -> dict[str, Any]:
        data = {
            "game": self.number,
            "seed": self.seed,
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "winner": self.winner,
            "reason": self.reason,
            "hands": self.hands,
        }
        if without_seed:
            del data["seed"]
        return data

    @classmethod
    def from_json(cls, data: JsonObject) -> GameRecord:
        return cls(
            data["game"],
            data["seed"],
            tuple(data["scores"]),
            tuple(data["ranks"]),
            data["winner"],
            data["reason"],
            data["hands"],
        )


@dataclass(frozen=True, slots=True)
class DecisionTiming:
    """How long a seat took to decide, in milliseconds."""

    decisions: int = 0
    mean_ms: float = 0.0
    median_ms: float = 0.0
    max_ms: float = 0.0

    @classmethod
    def of(cls, seconds: Sequence[float]) -> DecisionTiming:
        if not seconds:
            return cls()
        return cls(
            len(seconds),
            1000 * statistics.fmean(seconds),
            1000 * statistics.median(seconds),
            1000 * max(seconds),
        )


@dataclass
class SeatRecord:
    """One seat's bot and what happened to it.  ``decision_seconds`` holds every
    decision's time while the match is played; a result read back from JSON keeps only
    their summary, in ``stored_timing``."""

    name: str
    version: str = ""
    sandbox: str = "none"
    stderr_path: str | None = None
    status: SeatStatus = SeatStatus.OK
    decision_seconds: list[float] = field(default_factory=list)
    faults: list[FaultRecord] = field(default_factory=list)
    stored_timing: DecisionTiming | None = None

    @property
    def timing(self) -> DecisionTiming:
        if self.stored_timing is not None:
            return self.stored_timing
        return DecisionTiming.of(self.decision_seconds)


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """A seat's line of the result: its bot, games won, lost and drawn, points, faults
    (``fault_counts`` by status) and decision times."""

    name: str
    version: str  # as the bot reported it (the web view shows it)
    seat: int
    wins: int
    losses: int
    draws: int
    points: int
    avg_points: float
    win_rate: float
    win_rate_ci95: tuple[float, float]
    faults: int
    fault_counts: dict[str, int]
    status: SeatStatus
    sandbox: str
    timing: DecisionTiming
    stderr: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "seat": self.seat,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "points": self.points,
            "avg_points": self.avg_points,
            "win_rate": self.win_rate,
            "win_rate_ci95": list(self.win_rate_ci95),
            "faults": self.faults,
            "fault_counts": dict(self.fault_counts),
            "status": self.status.value,
            "sandbox": self.sandbox,
            "decisions": self.timing.decisions,
            "mean_decision_ms": self.timing.mean_ms,
            "median_decision_ms": self.timing.median_ms,
            "max_decision_ms": self.timing.max_ms,
            "stderr": self.stderr,
        }


@dataclass
class MatchResult:
    match_id: str
    game_id: str
    seed: int
    seats: list[SeatRecord]
    games: list[GameRecord] = field(default_factory=list)
    replay_path: str | None = None
    fault_policy: str = "forfeit"
    seed_commitment: str = ""  # hex, as sent in MatchStart
    seed_salt: str = ""  # hex: with the seed, opens the commitment
    seed_revealed_to_bots: bool = True  # MatchEnd carried seed and salt

    def wins(self, seat: int) -> int:
        return sum(1 for game in self.games if game.winner == seat)

    def draws(self, seat: int) -> int:
        return sum(1 for game in self.games if game.winner is None and game.ranks[seat] == 0)

    def losses(self, seat: int) -> int:
        return len(self.games) - self.wins(seat) - self.draws(seat)

    def points(self, seat: int) -> int:
        return sum(game.scores[seat] for game in self.games)

    def faults(self) -> list[FaultRecord]:
        """Every seat's faults, seat by seat."""
        return [fault for record in self.seats for fault in record.faults]

    def win_rate(self, seat: int) -> tuple[float, float, float]:
        """Win rate (a draw counts half) and its 95% confidence interval."""
        count = len(self.games)
        score = self.wins(seat) + 0.5 * self.draws(seat)
        low, high = wilson_interval(score, count)
        return (score / count if count else 0.0, low, high)

    def seat_summary(self, seat: int) -> SeatSummary:
        record = self.seats[seat]
        counts: dict[str, int] = {}
        for fault in record.faults:
            counts[fault.status.value] = counts.get(fault.status.value, 0) + 1
        rate, low, high = self.win_rate(seat)
        return SeatSummary(
            name=record.name,
            version=record.version,
            seat=seat,
            wins=self.wins(seat),
            losses=self.losses(seat),
            draws=self.draws(seat),
            points=self.points(seat),
            avg_points=self.points(seat) / len(self.games) if self.games else 0.0,
            win_rate=rate,
            win_rate_ci95=(low, high),
            faults=len(record.faults),
            fault_counts=counts,
            status=record.status,
            sandbox=record.sandbox,
            timing=record.timing,
            stderr=record.stderr_path,
        )

    def summaries(self) -> list[SeatSummary]:
        return [self.seat_summary(seat) for seat in range(len(self.seats))]

    def to_json(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "game_id": self.game_id,
            "seed": self.seed,
            "seed_commitment": self.seed_commitment,
            "seed_salt": self.seed_salt,
            "seed_revealed_to_bots": self.seed_revealed_to_bots,
            "games": len(self.games),
            "fault_policy": self.fault_policy,
            "bots": [summary.to_json() for summary in self.summaries()],
            "results": [game.to_json() for game in self.games],
            "faults": [fault.to_json() for fault in self.faults()],
            "replay": self.replay_path,
        }

    @classmethod
    def from_json(cls, data: JsonObject) -> MatchResult:
        """The result ``to_json`` wrote (decision times as their summary).  Raises
        ``KeyError``, ``TypeError`` or ``ValueError`` on anything else."""
        faults = [FaultRecord.from_json(fault) for fault in data["faults"]]
        seats = [
            SeatRecord(
                name=bot["name"],
                version=bot.get("version", ""),
                sandbox=bot["sandbox"],
                stderr_path=bot.get("stderr"),
                status=SeatStatus(bot["status"]),
                faults=[fault for fault in faults if fault.seat == seat],
                stored_timing=DecisionTiming(
                    bot["decisions"],
                    bot["mean_decision_ms"],
                    bot.get("median_decision_ms", bot["mean_decision_ms"]),
                    bot["max_decision_ms"],
                ),
            )
            for seat, bot in enumerate(data["bots"])
        ]
        return cls(
            match_id=data["match_id"],
            game_id=data["game_id"],
            seed=data["seed"],
            seats=seats,
            games=[GameRecord.from_json(game) for game in data["results"]],
            replay_path=data.get("replay"),
            fault_policy=data.get("fault_policy", "forfeit"),
            seed_commitment=data.get("seed_commitment", ""),
            seed_salt=data.get("seed_salt", ""),
            seed_revealed_to_bots=data.get("seed_revealed_to_bots", True),
        )
