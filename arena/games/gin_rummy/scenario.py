"""Build deck orders for hand-made deals (scenario tests, puzzles, replays).

``deck_order(non_dealer=..., dealer=..., upcard=..., stock=...)`` places the given
cards where ``GinHand`` deals them from; the cards left over go to the bottom of the
stock in card order.
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.cards import ALL_CARDS, Card, CardSet

__all__ = ["deck_order"]


def _cards(value: str | Iterable[Card]) -> list[Card]:
    return list(CardSet.parse(value)) if isinstance(value, str) else list(value)


def deck_order(
    non_dealer: str | Iterable[Card],
    dealer: str | Iterable[Card],
    upcard: str | Card,
    stock: str | Iterable[Card] = (),
) -> list[Card]:
    """A 52-card deck order: 10 cards each, the upcard, then ``stock`` from its top.

    In a string, ``stock`` is read top first and keeps its order (``"KS 2C"``: KS is
    drawn first).
    """
    first = _cards(non_dealer)
    second = _cards(dealer)
    up = Card.parse(upcard) if isinstance(upcard, str) else upcard
    top = [Card.parse(word) for word in stock.split()] if isinstance(stock, str) else list(stock)
    if len(first) != 10 or len(second) != 10:
        raise ValueError(f"each player gets 10 cards, got {len(first)} and {len(second)}")
    placed = [*first, *second, up, *top]
    if len(set(placed)) != len(placed):
        raise ValueError("a card is placed twice in the deal")
    rest = [card for card in ALL_CARDS if card not in set(placed)]
    deck: list[Card] = []
    for a, b in zip(first, second, strict=True):
        deck += [a, b]
    return [*deck, up, *top, *rest]
