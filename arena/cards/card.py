"""Cards and card sets.

A card is a small immutable value whose text form round-trips (``Card.parse("7h")``,
``str(card) == "7H"``).  A ``CardSet`` is a frozen 52-bit mask: bit ``suit * 13 + rank``.
The layout keeps each suit's 13 ranks contiguous, so runs are shifts and ANDs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import ClassVar, Final

from arena.errors import ArenaError

__all__ = [
    "ALL_CARDS",
    "FULL_MASK",
    "RANKS",
    "SUITS",
    "Card",
    "CardParseError",
    "CardSet",
    "Suit",
    "card_value",
]

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"
_SUIT_SYMBOLS: Final = {
    "♣": "C",
    "♦": "D",
    "♥": "H",
    "♠": "S",
    "♧": "C",
    "♢": "D",
    "♡": "H",
    "♤": "S",
}
FULL_MASK: Final = (1 << 52) - 1


class CardParseError(ArenaError, ValueError):
    """Text that does not name a card (or a set of distinct cards)."""


class Suit(IntEnum):
    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return SUITS[self]


def card_value(rank: int) -> int:
    """Deadwood value of a rank index (A=1, 2..10 face, J Q K = 10)."""
    return rank + 1 if rank < 10 else 10


class Card:
    """One playing card.  Instances are interned: ``Card(i) is Card(i)``."""

    __slots__ = ("index", "rank", "suit", "value")
    index: int
    rank: int
    suit: Suit
    value: int

    _interned: ClassVar[list[Card]] = []

    def __new__(cls, index: int) -> Card:
        try:
            if index >= 0:
                return cls._interned[index]
        except IndexError:
            pass
        raise ValueError(f"card index must be 0..51, got {index}")

    @classmethod
    def _make(cls, index: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "index", index)
        object.__setattr__(card, "rank", index % 13)
        object.__setattr__(card, "suit", Suit(index // 13))
        object.__setattr__(card, "value", card_value(index % 13))
        return card

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """The card of a rank index (0 = ace .. 12 = king) and a suit."""
        if not 0 <= rank < 13 or not 0 <= suit < 4:
            raise ValueError(f"no card with rank index {rank} and suit index {suit}")
        return cls._interned[suit * 13 + rank]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``7H``, ``th``, ``10♥``; raise ``CardParseError`` naming the text."""
        raw = text.strip()
        if len(raw) < 2:
            raise CardParseError(f"not a card: {text!r} (expected rank then suit, like 7H or TS)")
        if len(raw) > 3 or " " in raw:  # the longest card is 10H: likely cards run together
            raise CardParseError(
                f"not a card: {text!r} (a card is a rank then a suit, like 7H or TS; "
                "put spaces between cards: 7H 8H 9H)"
            )
        rank_text, suit_text = raw[:-1].upper(), raw[-1]
        # ASCII-only upper-casing: the long s (U+017F) upper-cases to "S".
        suit_letter = _SUIT_SYMBOLS.get(suit_text, suit_text.upper() if suit_text.isascii() else "")
        if rank_text == "10":
            rank_text = "T"
        if len(rank_text) != 1 or rank_text not in RANKS:
            raise CardParseError(
                f"not a card: {text!r} (unknown rank {raw[:-1]!r}; ranks are {RANKS})"
            )
        if len(suit_letter) != 1 or suit_letter not in SUITS:
            raise CardParseError(
                f"not a card: {text!r} (unknown suit {suit_text!r}; suits are {SUITS})"
            )
        return cls.of(RANKS.index(rank_text), SUITS.index(suit_letter))

    @property
    def mask(self) -> int:
        return 1 << self.index

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Card is immutable")

    def __str__(self) -> str:
        return RANKS[self.rank] + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self.index,))

    def __hash__(self) -> int:
        return self.index


Card._interned = [Card._make(i) for i in range(52)]
ALL_CARDS: Final[tuple[Card, ...]] = tuple(Card._interned)


def _mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        bit = 1 << card.index
        if mask & bit:
            raise CardParseError(f"duplicate card: {card}")
        mask |= bit
    return mask


class CardSet:
    """A frozen set of cards stored as a 52-bit mask.

    Iteration is in index order: clubs A..K, diamonds, hearts, spades.
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, mask: int = 0) -> None:
        if not 0 <= mask <= FULL_MASK:
            raise ValueError(f"card mask out of range: {mask:#x}")
        object.__setattr__(self, "mask", mask)

    @classmethod
    def of(cls, cards: Iterable[Card]) -> CardSet:
        """The set of the given cards; a repeated card is a ``CardParseError``."""
        return cls(_mask_of(cards))

    @classmethod
    def parse(cls, text: str | Iterable[str]) -> CardSet:
        """Parse ``"7H 8H 9H"`` (spaces or commas) or a list of card strings."""
        words = text.replace(",", " ").split() if isinstance(text, str) else list(text)
        return cls(_mask_of(Card.parse(word) for word in words))

    @classmethod
    def full(cls) -> CardSet:
        return cls(FULL_MASK)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("CardSet is immutable")

    def __reduce__(self) -> tuple[type[CardSet], tuple[int]]:
        # The default slot-state protocol would go through the blocked __setattr__.
        return (CardSet, (self.mask,))

    def __iter__(self) -> Iterator[Card]:
        mask = self.mask
        interned = Card._interned
        while mask:
            low = mask & -mask
            yield interned[low.bit_length() - 1]
            mask ^= low

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and bool(self.mask >> card.index & 1)

    def __or__(self, other: CardSet) -> CardSet:
        if not isinstance(other, CardSet):
            return NotImplemented
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        if not isinstance(other, CardSet):
            return NotImplemented
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        if not isinstance(other, CardSet):
            return NotImplemented
        return CardSet(self.mask & ~other.mask)

    def __xor__(self, other: CardSet) -> CardSet:
        if not isinstance(other, CardSet):
            return NotImplemented
        return CardSet(self.mask ^ other.mask)

    def __le__(self, other: CardSet) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return self.mask & ~other.mask == 0

    def __lt__(self, other: CardSet) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return self.mask != other.mask and self.mask & ~other.mask == 0

    def __ge__(self, other: CardSet) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return other.mask & ~self.mask == 0

    def __gt__(self, other: CardSet) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return self.mask != other.mask and other.mask & ~self.mask == 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and self.mask == other.mask

    def __hash__(self) -> int:
        return hash(("CardSet", self.mask))

    def add(self, card: Card) -> CardSet:
        return CardSet(self.mask | 1 << card.index)

    def remove(self, card: Card) -> CardSet:
        """The set without ``card``; ``KeyError`` if it is not in the set."""
        if not self.mask >> card.index & 1:
            raise KeyError(str(card))
        return CardSet(self.mask & ~(1 << card.index))

    def isdisjoint(self, other: CardSet) -> bool:
        return self.mask & other.mask == 0

    @property
    def value(self) -> int:
        """Total deadwood value of the cards."""
        return sum(card.value for card in self)

    def sorted_by_rank(self) -> list[Card]:
        """Cards ordered rank first (A..K), then suit: how a hand of sets reads."""
        return sorted(self, key=lambda c: (c.rank, c.suit))

    def __str__(self) -> str:
        return " ".join(str(card) for card in self)

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"
