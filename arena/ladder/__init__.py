"""Ladder competitions: configs, schedules, concurrent runs with crash-safe records."""

from arena.ladder.config import (
    BotEntry,
    LadderConfig,
    LadderConfigError,
    ScheduleKind,
    load_ladder_config,
)
from arena.ladder.runner import LadderError, RunSummary, run_ladder

__all__ = [
    "BotEntry",
    "LadderConfig",
    "LadderConfigError",
    "LadderError",
    "RunSummary",
    "ScheduleKind",
    "load_ladder_config",
    "run_ladder",
]
