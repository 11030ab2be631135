"""The Protocol Buffers wire format, written directly: the referee's hot path.

Filling a ``DecisionRequest`` through the protobuf API costs one Python call per
field, tens of microseconds a decision, and that was most of what the referee
spends per decision next to a round trip.  A request is mostly the same few
fragments over and over (a card in a repeated string field, a discard action, an
event already encoded for the other seat), so encoders join cached bytes instead.

The helpers write what ``SerializeToString`` writes: fields in number order, fields
at their default value left out, submessages always present once set.  Tests hold
the encoders to byte equality with the protobuf API (tests/protocol/test_wire.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from arena.cards import ALL_CARDS, Card

__all__ = [
    "CardField",
    "int_field",
    "key",
    "message_field",
    "message_header",
    "string_field",
    "varint",
]

_VARINT = 0
_LENGTH_DELIMITED = 2
_MASK64: Final = (1 << 64) - 1  # a negative int32 is written as its 64-bit two's complement
_SMALL: Final = tuple(bytes((value,)) for value in range(0x80))


def varint(value: int) -> bytes:
    """``value`` (0 <= value < 2**64) as a base-128 varint."""
    if value < 0x80:
        return _SMALL[value]
    if value < 0x4000:  # two bytes: the size of every observation and request
        return bytes((value & 0x7F | 0x80, value >> 7))
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(field: int, wire_type: int) -> bytes:
    return varint(field << 3 | wire_type)


# Every field key our messages use, ready-made (these helpers run a few dozen times a decision).
_INT_KEYS: Final = tuple(key(field, _VARINT) for field in range(64))
_MESSAGE_KEYS: Final = tuple(key(field, _LENGTH_DELIMITED) for field in range(64))


def int_field(field: int, value: int) -> bytes:
    """An int32/uint32/uint64/bool/enum field; nothing for 0 (the default)."""
    if not value:
        return b""
    if 0 < value < 0x80:
        return _INT_KEYS[field] + _SMALL[value]
    return _INT_KEYS[field] + varint(value & _MASK64)


def message_header(field: int, size: int) -> bytes:
    """The key and size of a submessage field of ``size`` bytes (its data follows)."""
    return _MESSAGE_KEYS[field] + (_SMALL[size] if size < 0x80 else varint(size))


def message_field(field: int, data: bytes) -> bytes:
    """A submessage (or bytes) field: written even when empty."""
    return message_header(field, len(data)) + data


def string_field(field: int, text: str) -> bytes:
    """A string field; nothing for "" (the default)."""
    return message_field(field, text.encode()) if text else b""


class _SuitFragments(dict[int, bytes]):
    """13-bit rank mask -> the fragments of those cards of one suit, in card order."""

    def __init__(self, cards: tuple[bytes, ...]) -> None:
        super().__init__()
        self._cards = cards  # the suit's 13 card fragments

    def __missing__(self, ranks: int) -> bytes:
        data = self[ranks] = b"".join(
            fragment for rank, fragment in enumerate(self._cards) if ranks >> rank & 1
        )
        return data


class CardField:
    """A ``repeated string`` field of card texts, from cached per-card fragments."""

    def __init__(self, field: int) -> None:
        self._card = tuple(message_field(field, str(card).encode()) for card in ALL_CARDS)
        self._suits = tuple(
            _SuitFragments(self._card[13 * suit : 13 * suit + 13]) for suit in range(4)
        )

    def of_mask(self, mask: int) -> bytes:
        """The cards of a ``CardSet`` mask, in card order (as the set iterates)."""
        if not mask:
            return b""
        clubs, diamonds, hearts, spades = self._suits
        return (
            clubs[mask & 0x1FFF]
            + diamonds[mask >> 13 & 0x1FFF]
            + hearts[mask >> 26 & 0x1FFF]
            + spades[mask >> 39 & 0x1FFF]
        )

    def of_cards(self, cards: Iterable[Card]) -> bytes:
        """The cards in the order given."""
        fragments = self._card
        return b"".join([fragments[card.index] for card in cards])
