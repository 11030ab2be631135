"""Referee settings: time control and what to do when a bot faults."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from arena.errors import ArenaError

__all__ = ["FaultMode", "FaultPolicy", "MatchSettings", "SettingsError", "TimeControl"]


class SettingsError(ArenaError, ValueError):
    """A bad referee setting (from the command line or a config file)."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """``startup_ms`` to come up and shake hands; ``decision_ms`` free per decision;
    time beyond it is taken from a ``bank_ms`` per game; an empty bank is a timeout."""

    startup_ms: int = 10_000
    decision_ms: int = 1_000
    bank_ms: int = 10_000

    def __post_init__(self) -> None:
        for name in ("startup_ms", "decision_ms", "bank_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise SettingsError(
                    f"time control {name} must be a non-negative integer, got {value!r}"
                )
        if self.decision_ms + self.bank_ms == 0:
            raise SettingsError(
                "time control leaves no time to decide (decision_ms + bank_ms is 0)"
            )


class FaultMode(Enum):
    FORFEIT = "forfeit"  # the faulting seat loses the game
    RANDOM = "random"  # a late or illegal action is replaced by a random legal one


@dataclass(frozen=True, slots=True)
class FaultPolicy:
    """With ``RANDOM``, up to ``max_replacements`` per seat per match, then forfeit.

    Crashes and protocol errors always forfeit: the bot cannot go on.
    """

    mode: FaultMode = FaultMode.FORFEIT
    max_replacements: int = 3

    def __post_init__(self) -> None:
        if self.max_replacements < 0:
            raise SettingsError(
                f"max_replacements must be non-negative, got {self.max_replacements}"
            )

    def __str__(self) -> str:
        return (
            self.mode.value if self.mode is FaultMode.FORFEIT else f"random:{self.max_replacements}"
        )

    @classmethod
    def parse(cls, text: str) -> FaultPolicy:
        """``forfeit`` or ``random`` or ``random:K``."""
        mode, _, count = text.partition(":")
        try:
            parsed = FaultMode(mode)
        except ValueError:
            raise SettingsError(
                f"fault policy must be 'forfeit' or 'random[:K]', got {text!r}"
            ) from None
        if count and (parsed is FaultMode.FORFEIT or not count.isdigit()):
            raise SettingsError(f"fault policy must be 'forfeit' or 'random[:K]', got {text!r}")
        return cls(parsed, int(count) if count else 3)


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """How every match of a series is played (a ladder's, an SPRT's): games (or single
    hands), the clocks and the fault policy.  The ladder's config holds one, and hands
    it to each match's job unchanged."""

    games: int = 1
    hands_only: bool = False
    time_control: TimeControl = TimeControl()
    fault_policy: FaultPolicy = FaultPolicy()
