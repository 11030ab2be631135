"""Basic Rummy's cards: the 52 natural cards, the joker, and what a deck holds.

Two decks mean duplicate cards.  Identical cards are interchangeable (the protocol
says so too), so the engine never tracks which physical copy is where: a card is
its **face**, an index ``0..51`` (``Card.index``) or ``52`` for the joker, and a
hand, the stock or a pile is a multiset of faces.  Hands are kept as per-face
counts plus a bitmask of the faces held (bit ``52`` is the joker), which keeps
legal-move generation to mask arithmetic as in Gin Rummy.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Final

from arena.cards import ALL_CARDS, Card, CardParseError

__all__ = [
    "FACES",
    "JOKER",
    "JOKER_INDEX",
    "PENALTIES",
    "Joker",
    "RummyCard",
    "cards_text",
    "face",
    "parse_card",
    "parse_cards",
    "sorted_cards",
]

JOKER_INDEX: Final = 52


class Joker:
    """The joker (``JK``).  A singleton: ``Joker() is JOKER``."""

    __slots__ = ()
    index: ClassVar[int] = JOKER_INDEX
    value: ClassVar[int] = 15  # penalty (RULES.md Basic Rummy rule 9)
    _instance: ClassVar[Joker | None] = None

    def __new__(cls) -> Joker:
        if cls._instance is None:
            cls._instance = object.__new__(cls)
        return cls._instance

    def __str__(self) -> str:
        return "JK"

    def __repr__(self) -> str:
        return "JOKER"

    def __reduce__(self) -> tuple[type[Joker], tuple[()]]:
        return (Joker, ())

    def __hash__(self) -> int:
        return JOKER_INDEX

    def __lt__(self, other: Card | Joker) -> bool:
        return other.index > JOKER_INDEX


JOKER: Final = Joker()

RummyCard = Card | Joker
"""A card as Basic Rummy sees it: a natural card or the joker."""

FACES: Final[tuple[RummyCard, ...]] = (*ALL_CARDS, JOKER)
PENALTIES: Final[tuple[int, ...]] = tuple(card.value for card in FACES)
_JOKER_WORDS: Final = frozenset({"JK", "JOKER", "🃏", "🂿", "🃟"})


def face(index: int) -> RummyCard:
    """The card of a face index (0..51 natural cards, 52 the joker)."""
    return FACES[index]


def parse_card(text: str) -> RummyCard:
    """``7H``, ``th``, ``10♥``, or ``JK`` for a joker; ``CardParseError`` names the text."""
    if text.strip().upper() in _JOKER_WORDS:
        return JOKER
    return Card.parse(text)


def parse_cards(text: str | Iterable[str]) -> tuple[RummyCard, ...]:
    """Cards separated by spaces or commas (repeats allowed: two decks), in the given order."""
    words = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    if not words and isinstance(text, str) and text.strip():
        raise CardParseError(f"not a card list: {text!r}")
    return tuple(parse_card(word) for word in words)


def sorted_cards(cards: Iterable[RummyCard]) -> tuple[RummyCard, ...]:
    """Cards in face order (clubs A..K, diamonds, hearts, spades, jokers last)."""
    return tuple(sorted(cards, key=lambda card: card.index))


def cards_text(cards: Iterable[RummyCard]) -> str:
    return " ".join(str(card) for card in cards)
