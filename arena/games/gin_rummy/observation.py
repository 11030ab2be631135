"""What a Gin Rummy hand shows: its phases, the public events, and each seat's
observation (the only thing a bot is ever shown)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from arena.cards import Card, CardSet, Layoff, Meld
from arena.games.gin_rummy.results import KnockInfo

__all__ = ["EventKind", "GinObservation", "Phase", "PublicEvent", "VisibleState"]


class Phase(Enum):
    FIRST_UPCARD = "first_upcard"  # take or pass the first upcard
    DRAW = "draw"
    DISCARD = "discard"  # discard, or knock
    DEFEND = "defend"  # the defender lays down melds and lays off
    LAST_DISCARD = "last_discard"  # last-discard variant: take it to knock, or pass
    OVER = "over"


class EventKind(Enum):
    UPCARD = "upcard"  # the deal turned the first upcard
    PASS = "pass"
    DRAW_STOCK = "draw_stock"  # the card stays hidden
    DRAW_DISCARD = "draw_discard"
    DISCARD = "discard"
    KNOCK = "knock"  # melds and unmatched cards shown, the discard face down
    DEFEND = "defend"
    HAND_OVER = "hand_over"


class PublicEvent(NamedTuple):
    """Something every seat saw happen (a named tuple: built on every turn)."""

    kind: EventKind
    seat: int | None
    card: Card | None = None
    melds: tuple[Meld, ...] = ()
    cards: CardSet = CardSet()
    layoffs: tuple[Layoff, ...] = ()


@dataclass(slots=True)
class GinObservation:
    """Exactly what one seat may know: its own cards and what was played in the open.

    Not frozen: the referee builds one every decision, and a frozen dataclass is
    five times dearer to build.  Each call builds a fresh one, so changing it
    changes nothing but the caller's copy."""

    seat: int
    dealer: int
    phase: Phase
    to_act: int | None
    hand: CardSet
    discard_pile: tuple[Card, ...]  # bottom first; the last card is the top
    stock_size: int
    opponent_hand_size: int
    opponent_known: CardSet  # cards the opponent took from the discard pile and still holds
    own_known: CardSet  # cards this seat took from the discard pile and still holds
    knock_limit: int
    doubled: bool
    forbidden_discard: Card | None  # taken from the discard pile this turn
    knock: KnockInfo | None
    scores: tuple[int, int]
    hand_number: int


class VisibleState(NamedTuple):
    """What changes in a seat's observation from turn to turn, with card sets as
    masks: the cheap form of ``GinObservation`` that the referee encodes every
    decision.  The rest (dealer, scores, knock limit...) stays all hand."""

    phase: Phase
    to_act: int | None
    hand: int  # mask of the seat's cards
    discard_pile: tuple[Card, ...]  # bottom first
    stock_size: int
    opponent_hand_size: int
    opponent_known: int  # mask, as GinObservation.opponent_known
    own_known: int  # mask, as GinObservation.own_known
    forbidden_discard: Card | None
    knock: KnockInfo | None
