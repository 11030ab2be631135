"""Protocol version, its errors, and the card/meld conversions every game shares."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from arena.cards import ALL_CARDS, Card, CardParseError, CardSet, Layoff, Meld
from arena.cards.masks import of_mask, suit_table
from arena.errors import ArenaError
from arena.proto import bot_pb2 as pb

__all__ = [
    "PROTOCOL_VERSION",
    "ProtocolError",
    "card_from_text",
    "cards_from_texts",
    "cards_to_texts",
    "layoff_from_proto",
    "layoff_to_proto",
    "meld_from_proto",
    "meld_to_proto",
]

PROTOCOL_VERSION: Final = 1


class ProtocolError(ArenaError, ValueError):
    """A message that does not follow the protocol (malformed, wrong version, ...)."""


def card_from_text(text: str, where: str) -> Card:
    try:
        return Card.parse(text)
    except CardParseError as error:
        raise ProtocolError(f"{where}: {error}") from error


def cards_from_texts(texts: Iterable[str], where: str) -> CardSet:
    cards = [card_from_text(text, where) for text in texts]
    try:
        return CardSet.of(cards)
    except CardParseError as error:
        raise ProtocolError(f"{where}: {error}") from error


_TEXTS: Final = tuple(str(card) for card in ALL_CARDS)


# Text forms of every 13-bit suit mask: a hand's texts are four lookups (hot path).
_SUIT_TEXTS: Final = suit_table(_TEXTS)


def cards_to_texts(cards: Iterable[Card]) -> list[str]:
    """Text forms, in the order given (a ``CardSet`` in card order)."""
    if isinstance(cards, CardSet):
        return of_mask(_SUIT_TEXTS, cards.mask)
    return [_TEXTS[card.index] for card in cards]


def meld_to_proto(meld: Meld, meld_id: int = 0, owner: int = -1) -> pb.Meld:
    return pb.Meld(cards=cards_to_texts(meld.cards), id=meld_id, owner=owner)


def meld_from_proto(message: pb.Meld, where: str) -> Meld:
    """A meld from a bot; ``InvalidMeldError`` (an illegal action) if it is no meld."""
    return Meld.of(cards_from_texts(message.cards, where))


def layoff_to_proto(layoff: Layoff) -> pb.Layoff:
    return pb.Layoff(card=str(layoff.card), meld_id=layoff.meld_index)


def layoff_from_proto(message: pb.Layoff, where: str) -> Layoff:
    return Layoff(card_from_text(message.card, where), message.meld_id)


def melds_to_proto(melds: Sequence[Meld], owner: int = -1) -> list[pb.Meld]:
    return [meld_to_proto(meld, index, owner) for index, meld in enumerate(melds)]
