"""Card masks as sets of indices: bit ``i`` is the card (or face) of index ``i``,
13 bits a suit (clubs, diamonds, hearts, spades), ranks ace to king within each.

Two helpers every layer that lists cards by mask shares: ``bits`` walks the set
bits, and a ``SuitTable`` turns a mask into per-card values (actions, texts) with
four tuple lookups, the hot path of every turn.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final, TypeVar

__all__ = [
    "ALL_BITS",
    "NEXT_TO",
    "RANK_BITS",
    "RELATED",
    "SAME_RANK",
    "SUIT_BITS",
    "TWO_AWAY",
    "SuitTable",
    "bits",
    "of_mask",
    "suit_table",
]

SUIT_BITS: Final = 0x1FFF  # one suit's 13 ranks
ALL_BITS: Final = (1 << 52) - 1  # the 52 cards of one deck

# Each card's neighbours, by index, as masks (the bots' memory of what a card a player
# took or threw says about the cards that meld with it): the same rank in the other
# suits, one rank away in its suit, two ranks away, and the three together.
RANK_BITS: Final = tuple(sum(1 << (13 * suit + rank) for suit in range(4)) for rank in range(13))
SAME_RANK: Final = tuple(RANK_BITS[index % 13] & ~(1 << index) for index in range(52))


def _steps_away(index: int, steps: tuple[int, ...]) -> int:
    rank = index % 13
    return sum(1 << (index + step) for step in steps if 0 <= rank + step < 13)


NEXT_TO: Final = tuple(_steps_away(index, (-1, 1)) for index in range(52))
TWO_AWAY: Final = tuple(_steps_away(index, (-2, 2)) for index in range(52))
RELATED: Final = tuple(SAME_RANK[i] | NEXT_TO[i] | TWO_AWAY[i] for i in range(52))

T = TypeVar("T")

# For each suit, the values of every 13-bit rank mask, in rank order.
SuitTable = tuple[tuple[tuple[T, ...], ...], ...]


def bits(mask: int) -> Iterator[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def suit_table(per_card: Sequence[T]) -> SuitTable[T]:
    """The table of ``per_card`` (52 values, by card index) for every suit mask.

    Built rank by rank: the masks whose highest rank is ``r`` are the masks below
    ``r`` with ``r``'s value appended, one tuple join each.  The four tables every
    process that lists cards builds at import (bots included) take a few
    milliseconds this way, where testing 13 bits for each mask took tens."""
    out = []
    for suit in range(4):
        rows: list[tuple[T, ...]] = [()]
        for value in per_card[13 * suit : 13 * suit + 13]:
            last = (value,)
            rows += [row + last for row in rows]
        out.append(tuple(rows))
    return tuple(out)


def of_mask(table: SuitTable[T], mask: int) -> list[T]:
    """The values of the cards of a 52-bit ``mask`` (higher bits ignored), in card order."""
    clubs, diamonds, hearts, spades = table
    return [
        *clubs[mask & 0x1FFF],
        *diamonds[mask >> 13 & 0x1FFF],
        *hearts[mask >> 26 & 0x1FFF],
        *spades[mask >> 39 & 0x1FFF],
    ]
