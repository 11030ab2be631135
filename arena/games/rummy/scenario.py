"""Build deck orders for hand-made deals (scenario tests, puzzles, replays).

``deck_order(rules, {0: "...", 1: "..."}, dealer=0, upcard="7H", stock="KS 2C")``
places the given cards where ``RummyHand`` deals them from; the cards of the deal
not placed go to the bottom of the stock in face order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.rummy.cards import RummyCard, parse_card, parse_cards
from arena.games.rummy.rules import RummyRules

__all__ = ["deck_order"]


def _cards(value: str | Sequence[RummyCard]) -> list[RummyCard]:
    return list(parse_cards(value)) if isinstance(value, str) else list(value)


def deck_order(
    rules: RummyRules,
    hands: Mapping[int, str | Sequence[RummyCard]] | Sequence[str | Sequence[RummyCard]],
    dealer: int,
    upcard: str | RummyCard,
    stock: str | Sequence[RummyCard] = (),
    bottom: str | Sequence[RummyCard] = (),
) -> list[RummyCard]:
    """A deck order dealing ``hands`` (by seat; a mapping leaves out eliminated seats).

    ``stock`` is the top of the stock, drawn first; ``bottom`` its last cards (the
    last one is the bottom card); the unplaced cards lie between, in face order.
    """
    by_seat = dict(hands) if isinstance(hands, Mapping) else dict(enumerate(hands))
    seats = sorted(by_seat)
    if dealer not in by_seat:
        raise ValueError(f"the dealer {dealer} is not one of the players {seats}")
    size = rules.hand_size(len(seats))
    dealt = {seat: _cards(cards) for seat, cards in by_seat.items()}
    for seat, cards in dealt.items():
        if len(cards) != size:
            raise ValueError(
                f"{len(seats)} players get {size} cards each; seat {seat} has {len(cards)}"
            )
    start = (seats.index(dealer) + 1) % len(seats)
    order = seats[start:] + seats[:start]
    up = parse_card(upcard) if isinstance(upcard, str) else upcard
    top = _cards(stock)
    low = _cards(bottom)
    deck: list[RummyCard] = [dealt[seat][i] for i in range(size) for seat in order]
    placed = [*deck, up, *top, *low]
    remaining = [0] * 53
    for card in rules.composition(len(seats)):
        remaining[card.index] += 1
    for card in placed:
        remaining[card.index] -= 1
        if remaining[card.index] < 0:
            raise ValueError(f"{card} is placed more often than the deal holds it")
    rest: list[RummyCard] = []
    for card in rules.composition(len(seats)):  # face order, each copy once per deck
        if remaining[card.index] > 0:
            rest.append(card)
            remaining[card.index] -= 1
    return [*deck, up, *top, *rest, *low]
