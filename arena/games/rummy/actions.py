"""The actions of Basic Rummy, with a text form that round-trips.

Text forms::

    draw stock            draw discard
    meld 7C-7D-7S         meld 5H-6H-JK=7H      (a wild card names what it stands for)
    layoff 8H>3           layoff JK=9H>3        (card > table meld id)
    swap 7H>3             (your 7H for the wild card standing for 7H in meld 3)
    discard 7H

``stands_for`` is kept per card: ``None`` for a card that stands for itself.  A
joker must name the card it stands for; a wild deuce that names nothing stands
for itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.cards import Card, CardParseError
from arena.games.base import ActionParseError
from arena.games.rummy.cards import FACES, RummyCard, parse_card
from arena.games.turns import DRAW_DISCARD, DRAW_STOCK, Draw, DrawSource, parse_draw

__all__ = [
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "Action",
    "ActionParseError",
    "Discard",
    "Draw",
    "DrawSource",
    "LayMeld",
    "LayOff",
    "SwapJoker",
    "discard",
    "parse_action",
]


def _card_text(card: RummyCard, stands_for: Card | None) -> str:
    return str(card) if stands_for is None else f"{card}={stands_for}"


@dataclass(frozen=True, slots=True)
class LayMeld:
    """Lay a new meld from the hand.  ``stands_for[i]`` is what ``cards[i]`` stands
    for (``None``: itself); an empty ``stands_for`` means every card stands for itself."""

    cards: tuple[RummyCard, ...]
    stands_for: tuple[Card | None, ...] = ()

    def __post_init__(self) -> None:
        if not self.stands_for:
            object.__setattr__(self, "stands_for", (None,) * len(self.cards))
        elif len(self.stands_for) != len(self.cards):
            raise ValueError(
                f"stands_for has {len(self.stands_for)} entries for {len(self.cards)} cards"
            )

    def __str__(self) -> str:
        return "meld " + "-".join(
            _card_text(card, stands)
            for card, stands in zip(self.cards, self.stands_for, strict=True)
        )


@dataclass(frozen=True, slots=True)
class LayOff:
    """Add one card to table meld ``meld_id`` (anyone's); a wild card names what it stands for."""

    card: RummyCard
    meld_id: int
    stands_for: Card | None = None

    def __str__(self) -> str:
        return f"layoff {_card_text(self.card, self.stands_for)}>{self.meld_id}"


@dataclass(frozen=True, slots=True)
class SwapJoker:
    """Give the natural ``card`` for the wild card standing for it in meld ``meld_id``;
    the wild card goes to the hand."""

    card: Card
    meld_id: int

    def __str__(self) -> str:
        return f"swap {self.card}>{self.meld_id}"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard ``card`` face up: the end of the turn."""

    card: RummyCard

    def __str__(self) -> str:
        return f"discard {self.card}"


Action = Draw | LayMeld | LayOff | SwapJoker | Discard

_DISCARDS: Final = tuple(Discard(card) for card in FACES)


def discard(card: RummyCard) -> Discard:
    """The (shared, immutable) discard action for ``card``."""
    return _DISCARDS[card.index]


def _natural(text: str) -> Card:
    card = parse_card(text)
    if not isinstance(card, Card):
        raise ActionParseError(f"a wild card stands for a natural card, not {text!r}")
    return card


def _placed(text: str) -> tuple[RummyCard, Card | None]:
    card_text, equals, stands_text = text.partition("=")
    return parse_card(card_text), (_natural(stands_text) if equals else None)


def _meld_id(text: str, item: str) -> int:
    if not text.isdigit():
        raise ActionParseError(f"bad target {item!r}: expected CARD>MELD_ID")
    return int(text)


def parse_action(text: str) -> Action:
    """Parse an action's text form; ``ActionParseError`` says what is wrong."""
    words = text.split()
    if not words:
        raise ActionParseError("empty action")
    verb, args = words[0].lower(), words[1:]
    try:
        draw = parse_draw(args) if verb == "draw" else None
        if draw is not None:
            return draw
        if verb == "discard" and len(args) == 1:
            return discard(parse_card(args[0]))
        if verb == "meld" and args:
            placed = [_placed(item) for arg in args for item in arg.split("-") if item]
            return LayMeld(tuple(c for c, _ in placed), tuple(s for _, s in placed))
        if verb == "layoff" and len(args) == 1:
            card_text, _, id_text = args[0].partition(">")
            card, stands_for = _placed(card_text)
            return LayOff(card, _meld_id(id_text, args[0]), stands_for)
        if verb == "swap" and len(args) == 1:
            card_text, _, id_text = args[0].partition(">")
            return SwapJoker(_natural(card_text), _meld_id(id_text, args[0]))
    except CardParseError as error:
        raise ActionParseError(f"bad action {text!r}: {error}") from error
    raise ActionParseError(
        f"not an action: {text!r} (expected draw stock|discard, meld CARD-CARD-..., "
        "layoff CARD>MELD_ID, swap CARD>MELD_ID, discard CARD; a wild card as JK=7H)"
    )
