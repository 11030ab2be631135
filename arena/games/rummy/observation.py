"""What a Basic Rummy hand shows: its phases, the public events, the melds on the
table and each seat's observation (the only thing a bot is ever shown)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from arena.cards import Card, MeldKind
from arena.games.rummy.cards import RummyCard

__all__ = ["EventKind", "Phase", "PublicEvent", "RummyObservation", "SeatInfo", "TableMeld"]


class Phase(Enum):
    DRAW = "draw"
    PLAY = "play"  # meld, lay off, swap, then discard
    OVER = "over"


class EventKind(Enum):
    UPCARD = "upcard"  # the deal turned the first upcard
    DRAW_STOCK = "draw_stock"  # the card stays hidden
    DRAW_DISCARD = "draw_discard"
    LAY_MELD = "lay_meld"
    LAY_OFF = "lay_off"
    SWAP_JOKER = "swap_joker"
    DISCARD = "discard"
    RESHUFFLE = "reshuffle"  # the discard pile (but its top card) became the stock
    HAND_OVER = "hand_over"


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table.  ``stands_for[i]`` is the natural card ``cards[i]``
    stands for when it is wild (``None`` for a natural card).  Runs read low to
    high, sets in suit order."""

    id: int
    owner: int
    cards: tuple[RummyCard, ...]
    stands_for: tuple[Card | None, ...]

    @property
    def naturals(self) -> tuple[Card, ...]:
        """The natural card each position holds or stands for."""
        out: list[Card] = []
        for card, stands in zip(self.cards, self.stands_for, strict=True):
            natural = stands if stands is not None else card
            assert isinstance(natural, Card)
            out.append(natural)
        return tuple(out)

    @property
    def kind(self) -> MeldKind:
        first, second = self.naturals[:2]
        return MeldKind.SET if first.rank == second.rank else MeldKind.RUN

    def __str__(self) -> str:
        return "-".join(
            str(card) if stands is None else f"{card}={stands}"
            for card, stands in zip(self.cards, self.stands_for, strict=True)
        )


class PublicEvent(NamedTuple):
    """Something every seat saw happen.

    ``meld`` is the meld laid (``LAY_MELD``) or the meld after the change
    (``LAY_OFF``, ``SWAP_JOKER``); ``stands_for`` names what a wild card laid off
    stands for; ``wild`` is the wild card a swap took off the table.
    """

    kind: EventKind
    seat: int | None
    card: RummyCard | None = None
    meld: TableMeld | None = None
    stands_for: Card | None = None
    wild: RummyCard | None = None


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """What everyone knows about one seat."""

    hand_size: int
    known: tuple[RummyCard, ...]  # taken from the discard pile (or a swap) and still held
    score: int  # game total before this hand
    eliminated: bool


@dataclass(frozen=True, slots=True)
class RummyObservation:
    """Exactly what one seat may know: its own cards and what was played in the open."""

    seat: int
    num_seats: int
    dealer: int
    phase: Phase
    to_act: int | None
    hand: tuple[RummyCard, ...]  # face order, repeats for duplicates
    discard_pile: tuple[RummyCard, ...]  # bottom first; the last card is the top
    stock_size: int
    seats: tuple[SeatInfo, ...]
    table: tuple[TableMeld, ...]
    forbidden_discard: RummyCard | None  # taken from the discard pile this turn (own turn only)
    reshuffles: int
    max_reshuffles: int
    # this seat has laid down, laid off or swapped in this hand (this turn included;
    # going out is a Rummy if this was False when the turn's draw was made)
    melded_this_hand: bool
    hand_number: int
