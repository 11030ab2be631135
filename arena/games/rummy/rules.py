"""Basic Rummy rule sets: one frozen dataclass, named presets (RULES.md, Basic Rummy).

Where RULES.md and the seed text (004_1d0a3e0cbef75490.txt) leave something open,
the choice made here is written beside the parameter it concerns.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from arena.games.base import RulesError
from arena.games.rummy.cards import FACES, JOKER, RummyCard

__all__ = [
    "DEUCES",
    "JOKERS",
    "PRESETS",
    "STANDARD",
    "WINNER_TAKES_ALL",
    "Ace",
    "RulesError",
    "RummyRules",
    "Scoring",
    "Wild",
]

MIN_PLAYERS = 2
MAX_PLAYERS = 6


class Scoring(Enum):
    """``standard``: losers add their penalties, a total reaching ``target`` is
    eliminated, the last player below it wins.  ``winner-takes-all``: the winner
    scores every opponent's penalty; the first total reaching ``target`` wins."""

    STANDARD = "standard"
    WINNER_TAKES_ALL = "winner-takes-all"


class Wild(Enum):
    """Which cards are wild: none, the jokers, or the four deuces (no jokers then)."""

    NONE = "none"
    JOKERS = "jokers"
    DEUCES = "deuces"


class Ace(Enum):
    """``low``: A-2-3 only.  ``high``: an ace may be low (A-2-3) or high (Q-K-A), but
    never both in one run, so K-A-2 is never a run."""

    LOW = "low"
    HIGH = "high"


@dataclass(frozen=True, slots=True)
class RummyRules:
    """Every parameter of a Basic Rummy rule set (players are given per game, 2..6).

    - ``five_six_hand_size``: with 5-6 players, 10 cards from two decks (default) or
      6 cards from one deck.  2-4 players always use one deck (10, 7, 7 cards).
    - ``jokers``: with ``wild=jokers``, the jokers in the deal, whatever the number
      of decks (seed 004: "añaden 2 comodines"): 2 by default, 1 to 4.  Until this
      was fixed the engine added 2 per deck, so 4 with two decks (5-6 players).
    - ``max_reshuffles``: the discard pile becomes the stock at most this many times
      in a hand; when the stock runs out once more the hand ends and the lowest hand
      total wins (ties: the first of the tied players in turn order from the dealer's
      left).
    - ``turn_limit``: a hand ends the same way after this many turns.  The rule
      texts have no such rule; it only stops players who keep taking each other's
      discards (which never empties the stock) from playing forever.  Real hands
      take well under 100 turns.
    - ``rummy_bonus``: going out in one turn having laid down and laid off nothing
      earlier in the hand doubles the penalties charged.  Both texts give it for
      winner-takes-all scoring only, so it may not be set with standard scoring.
    - Penalty values are fixed by rule 9: A 1, 2-10 face value, J Q K 10, joker 15.
      A wild deuce left in hand counts its face value, 2.
    """

    name: str = "standard"
    scoring: Scoring = Scoring.STANDARD
    target: int = 100
    rummy_bonus: bool = False
    wild: Wild = Wild.NONE
    jokers: int = 2
    ace: Ace = Ace.LOW
    five_six_hand_size: int = 10
    max_reshuffles: int = 3
    turn_limit: int = 1000

    def __post_init__(self) -> None:
        if self.target <= 0:
            raise RulesError(f"target must be positive, got {self.target}")
        if self.five_six_hand_size not in (6, 10):
            raise RulesError(
                f"five_six_hand_size must be 6 (one deck) or 10 (two decks), got {self.five_six_hand_size}"
            )
        if not 1 <= self.jokers <= 4:
            raise RulesError(f"jokers must be 1..4, got {self.jokers}")
        if self.max_reshuffles < 0:
            raise RulesError(f"max_reshuffles must not be negative, got {self.max_reshuffles}")
        if self.turn_limit < 1:
            raise RulesError(f"turn_limit must be positive, got {self.turn_limit}")
        if self.rummy_bonus and self.scoring is not Scoring.WINNER_TAKES_ALL:
            raise RulesError("rummy_bonus applies to winner-takes-all scoring only")

    # -- what a deal needs --------------------------------------------------

    @staticmethod
    def check_players(players: int) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RulesError(f"Basic Rummy is for 2 to 6 players, not {players}")

    def decks(self, players: int) -> int:
        """52-card decks in play: one for 2-4 players, two for 5-6 with 10-card hands."""
        self.check_players(players)
        return 2 if players >= 5 and self.five_six_hand_size == 10 else 1

    def hand_size(self, players: int) -> int:
        """Cards dealt to each player: 10 (2 players), 7 (3-4), 6 or 10 (5-6)."""
        self.check_players(players)
        if players == 2:
            return 10
        if players <= 4:
            return 7
        return self.five_six_hand_size

    def composition(self, players: int) -> tuple[RummyCard, ...]:
        """Every card of the deal, in face order: each natural card once per deck, then jokers."""
        decks = self.decks(players)
        naturals = [card for card in FACES[:52] for _ in range(decks)]
        return (*naturals, *([JOKER] * (self.jokers if self.wild is Wild.JOKERS else 0)))

    def wild_mask(self) -> int:
        """Bits of the faces that are wild (bit 52 is the joker)."""
        if self.wild is Wild.JOKERS:
            return 1 << 52
        if self.wild is Wild.DEUCES:
            return sum(1 << (13 * suit + 1) for suit in range(4))
        return 0

    # -- configuration ------------------------------------------------------

    @classmethod
    def from_mapping(cls, values: dict[str, Any], base: RummyRules | None = None) -> RummyRules:
        """A rule set from plain values (a ladder config), on top of ``base``.

        Enumerations are given by their text (``"winner-takes-all"``, ``"jokers"``).
        """
        known = {f.name: f.type for f in fields(cls)}
        enums: dict[str, type[Enum]] = {"scoring": Scoring, "wild": Wild, "ace": Ace}
        merged: dict[str, Any] = {}
        for key, value in values.items():
            if key not in known:
                raise RulesError(f"unknown Basic Rummy rule {key!r}; known: {', '.join(known)}")
            if key in enums:
                enum = enums[key]
                if isinstance(value, enum):
                    merged[key] = value
                    continue
                try:
                    merged[key] = enum(value)
                except ValueError:
                    allowed = ", ".join(str(member.value) for member in enum)
                    raise RulesError(
                        f"rule {key!r} must be one of {allowed}, got {value!r}"
                    ) from None
                continue
            expected = bool if known[key] == "bool" else int if known[key] == "int" else str
            if type(value) is not expected:
                raise RulesError(f"rule {key!r} must be {expected.__name__}, got {value!r}")
            merged[key] = value
        start = base or STANDARD
        return cls(**{**{f.name: getattr(start, f.name) for f in fields(cls)}, **merged})


STANDARD = RummyRules()
WINNER_TAKES_ALL = RummyRules(
    name="winner-takes-all", scoring=Scoring.WINNER_TAKES_ALL, rummy_bonus=True
)
JOKERS = RummyRules(name="jokers", wild=Wild.JOKERS)
DEUCES = RummyRules(name="deuces", wild=Wild.DEUCES)
PRESETS: dict[str, RummyRules] = {
    "standard": STANDARD,
    "winner-takes-all": WINNER_TAKES_ALL,
    "jokers": JOKERS,
    "deuces": DEUCES,
}
