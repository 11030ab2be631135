"""Seeded, platform-independent shuffling.

Deals must be identical on every Python version and platform, so we do not use
``random.shuffle`` (whose algorithm is an implementation detail).  The generator is
SplitMix64, and bounded integers use rejection sampling, both fully specified here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TypeVar

from arena.cards.card import ALL_CARDS, Card

__all__ = ["SeededRng", "derive_seed", "shuffled_deck"]

_MASK64: Final = (1 << 64) - 1
T = TypeVar("T")


def _mix(z: int) -> int:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & _MASK64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK64
    return z ^ (z >> 31)


def derive_seed(seed: int, *path: int) -> int:
    """A 64-bit seed for a sub-stream (e.g. hand ``k`` of game ``g``) of ``seed``."""
    if not 0 <= seed <= _MASK64:
        raise ValueError(f"seed must be an integer in 0..2**64-1, got {seed}")
    value = _mix(seed & _MASK64)
    for part in path:
        value = _mix((value ^ (part & _MASK64)) + 0x9E3779B97F4A7C15 & _MASK64)
    return value


class SeededRng:
    """SplitMix64: tiny, fast enough for dealing, and the same everywhere."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        if not 0 <= seed <= _MASK64:
            raise ValueError(f"seed must be an integer in 0..2**64-1, got {seed}")
        self._state = seed

    def next_u64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK64
        return _mix(self._state)

    def below(self, bound: int) -> int:
        """Uniform integer in ``[0, bound)`` without modulo bias."""
        if not 0 < bound <= 1 << 64:
            # Above 2**64 no 64-bit draw could be accepted: the loop would never end.
            raise ValueError(f"bound must be in 1..2**64, got {bound}")
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            value = self.next_u64()
            if value < limit:
                return value % bound

    def shuffle(self, items: list[T]) -> None:
        """Fisher-Yates, from the end, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]


def shuffled_deck(seed: int, cards: Sequence[Card] = ALL_CARDS) -> tuple[Card, ...]:
    """The deck order (index 0 = top) for ``seed``."""
    deck = list(cards)
    SeededRng(seed).shuffle(deck)
    return tuple(deck)
