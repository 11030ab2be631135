"""Gin Rummy rule sets: one frozen dataclass, named presets (RULES.md, Gin Rummy)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from arena.games.base import RulesError

__all__ = ["CLASSIC", "OKLAHOMA", "PRESETS", "STANDARD", "GinRules", "RulesError"]


@dataclass(frozen=True, slots=True)
class GinRules:
    """Every parameter of a Gin Rummy rule set.

    ``oklahoma``: the first upcard sets the hand's knock limit (ace: gin only) and a
    spade upcard doubles the hand's score.  ``last_discard``: at two cards left the
    opponent may take the last discard to knock or go gin.  ``turn_limit``: a hand
    in which this many turns pass without an end is a draw; the rule texts have no
    such rule, but without it two players taking each other's discards forever
    would never finish (real hands take about 30 turns).
    """

    name: str = "standard"
    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 25
    target: int = 100
    game_bonus: int = 0
    shutout_bonus: int = 0
    box_bonus: int = 0
    oklahoma: bool = False
    last_discard: bool = False
    turn_limit: int = 200

    def __post_init__(self) -> None:
        if not 0 <= self.knock_limit <= 100:
            raise RulesError(f"knock_limit must be 0..100, got {self.knock_limit}")
        if self.turn_limit < 1:
            raise RulesError(f"turn_limit must be positive, got {self.turn_limit}")
        if self.target <= 0:
            raise RulesError(f"target must be positive, got {self.target}")
        for name in ("gin_bonus", "undercut_bonus", "game_bonus", "shutout_bonus", "box_bonus"):
            if getattr(self, name) < 0:
                raise RulesError(f"{name} must not be negative, got {getattr(self, name)}")

    @classmethod
    def from_mapping(cls, values: dict[str, Any], base: GinRules | None = None) -> GinRules:
        """A rule set from plain values (a ladder config), on top of ``base``."""
        known = {f.name: f.type for f in fields(cls)}
        merged: dict[str, Any] = {}
        for key, value in values.items():
            if key not in known:
                raise RulesError(f"unknown Gin Rummy rule {key!r}; known: {', '.join(known)}")
            expected = bool if known[key] == "bool" else int if known[key] == "int" else str
            if type(value) is not expected:
                raise RulesError(f"rule {key!r} must be {expected.__name__}, got {value!r}")
            merged[key] = value
        start = base or STANDARD
        return cls(**{**{f.name: getattr(start, f.name) for f in fields(cls)}, **merged})


STANDARD = GinRules()
CLASSIC = GinRules(
    name="classic",
    gin_bonus=20,
    undercut_bonus=10,
    game_bonus=100,
    shutout_bonus=200,
    box_bonus=20,
)
# Oklahoma Gin on the standard scores (RULES.md, Gin Rummy options).
OKLAHOMA = GinRules(name="oklahoma", oklahoma=True)
PRESETS: dict[str, GinRules] = {"standard": STANDARD, "classic": CLASSIC, "oklahoma": OKLAHOMA}
