"""Card masks as sets of indices: bit ``i`` is the card (or face) of index ``i``,
13 bits a suit (clubs, diamonds, hearts, spades), ranks ace to king within each.

Two helpers every layer that lists cards by mask shares: ``bits`` walks the set
bits, and a ``SuitTable`` turns a mask into per-card values (actions, texts) with
four tuple lookups, the hot path of every turn.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final, TypeVar

__all__ = ["SUIT_BITS", "SuitTable", "bits", "of_mask", "suit_table"]

SUIT_BITS: Final = 0x1FFF  # one suit's 13 ranks

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
