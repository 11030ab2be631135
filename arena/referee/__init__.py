"""The referee: plays matches between connected bots, keeps clocks, records faults and replays."""

from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.results import MatchResult
from arena.referee.settings import FaultMode, FaultPolicy, TimeControl

__all__ = [
    "FaultMode",
    "FaultPolicy",
    "MatchConfig",
    "MatchResult",
    "Seat",
    "TimeControl",
    "play_match",
]
