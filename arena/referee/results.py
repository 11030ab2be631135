"""What a match produced: per-game records, per-seat statistics, faults."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from arena.hosting.faults import SeatStatus

__all__ = ["FaultRecord", "GameRecord", "MatchResult", "SeatRecord", "wilson_interval"]


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (draws may count as half)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


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


@dataclass
class SeatRecord:
    name: str
    version: str = ""
    sandbox: str = "none"
    stderr_path: str | None = None
    status: SeatStatus = SeatStatus.OK
    decision_seconds: list[float] = field(default_factory=list)
    faults: list[FaultRecord] = field(default_factory=list)


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

    def win_rate(self, seat: int) -> tuple[float, float, float]:
        """Win rate (a draw counts half) and its 95% confidence interval."""
        count = len(self.games)
        score = self.wins(seat) + 0.5 * self.draws(seat)
        low, high = wilson_interval(score, count)
        return (score / count if count else 0.0, low, high)

    def seat_summary(self, seat: int) -> dict[str, Any]:
        record = self.seats[seat]
        times = record.decision_seconds
        counts: dict[str, int] = {}
        for fault in record.faults:
            counts[fault.status.value] = counts.get(fault.status.value, 0) + 1
        rate, low, high = self.win_rate(seat)
        return {
            "name": record.name,
            "version": record.version,  # as the bot reported it (the web view shows it)
            "seat": seat,
            "wins": self.wins(seat),
            "losses": self.losses(seat),
            "draws": self.draws(seat),
            "points": self.points(seat),
            "avg_points": self.points(seat) / len(self.games) if self.games else 0.0,
            "win_rate": rate,
            "win_rate_ci95": [low, high],
            "faults": len(record.faults),
            "fault_counts": counts,
            "status": record.status.value,
            "sandbox": record.sandbox,
            "decisions": len(times),
            "mean_decision_ms": 1000 * statistics.fmean(times) if times else 0.0,
            "median_decision_ms": 1000 * statistics.median(times) if times else 0.0,
            "max_decision_ms": 1000 * max(times) if times else 0.0,
            "stderr": record.stderr_path,
        }

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
            "bots": [self.seat_summary(seat) for seat in range(len(self.seats))],
            "results": [game.to_json() for game in self.games],
            "faults": [fault.to_json() for record in self.seats for fault in record.faults],
            "replay": self.replay_path,
        }
