"""The referee: plays matches between connected bots, keeps clocks, records faults and replays.

The names below are imported when first used, so that a module that needs only a
part (a plugin's observer, the SDK's records) does not load the match loop.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.referee.match import MatchConfig, Seat, play_match
    from arena.referee.results import MatchResult
    from arena.referee.settings import FaultMode, FaultPolicy, TimeControl

_HOMES = {
    "FaultMode": "settings",
    "FaultPolicy": "settings",
    "MatchConfig": "match",
    "MatchResult": "results",
    "Seat": "match",
    "TimeControl": "settings",
    "play_match": "match",
}

__all__ = [
    "FaultMode",
    "FaultPolicy",
    "MatchConfig",
    "MatchResult",
    "Seat",
    "TimeControl",
    "play_match",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
