"""Hand-built deals and scripted play for the Gin Rummy rule tests.

Seats: ``GinHand`` deals with seat 0 as the dealer unless told otherwise, so in a
single hand ``DEALER`` is seat 0 and ``NON_DEALER`` (who acts first) is seat 1.
Actions are written in their text form (``"draw stock"``, ``"discard 7H"``,
``"knock KD 2C-3C-4C 9C-9H-9S"``, ``"defend 5C-5D-5H | 4H>0"``) so a test reads
like a game record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.cards import ALL_CARDS, Card, CardSet
from arena.games.gin_rummy import (
    DRAW_STOCK,
    STANDARD,
    Action,
    GinGame,
    GinHand,
    GinRules,
    HandResult,
    discard,
    parse_action,
)
from arena.games.gin_rummy.scenario import deck_order

__all__ = [
    "DEALER",
    "NON_DEALER",
    "Deal",
    "ScriptedGame",
    "act",
    "card",
    "cards",
    "deal",
    "opening_passes",
    "play_stock_turns",
    "result_of",
    "stock_turn",
]

DEALER = 0
NON_DEALER = 1


def card(text: str) -> Card:
    return Card.parse(text)


def cards(text: str) -> CardSet:
    return CardSet.parse(text)


def deal(
    non_dealer: str,
    dealer: str,
    upcard: str,
    stock: str = "",
    *,
    bottom: str = "",
    rules: GinRules = STANDARD,
) -> GinHand:
    """A hand dealt from a hand-built deck; seat 0 deals, seat 1 plays first.

    ``stock`` is the top of the stock (drawn first), ``bottom`` its last cards (the
    last word is the bottom card); every other card lies between, in card order.
    """
    top = [Card.parse(word) for word in stock.split()]
    low = [Card.parse(word) for word in bottom.split()]
    placed = cards(non_dealer) | cards(dealer) | CardSet.of([Card.parse(upcard), *top, *low])
    middle = [c for c in ALL_CARDS if c not in placed]
    return GinHand(rules, deck_order(non_dealer, dealer, upcard, [*top, *middle, *low]), DEALER)


def act(state: GinHand | GinGame, *actions: str | Action) -> None:
    """Play ``actions`` in order, each for whichever seat is to act."""
    for action in actions:
        state.apply(parse_action(action) if isinstance(action, str) else action)


def _hand(state: GinHand | GinGame) -> GinHand:
    return state.hand if isinstance(state, GinGame) else state


def result_of(state: GinHand | GinGame) -> HandResult:
    """The result of the current hand, which must be over.

    Read through a call rather than as ``hand.result`` after an earlier
    ``assert hand.result is None``: a type checker keeps that narrowing across the
    ``act`` calls that end the hand.
    """
    result = _hand(state).result
    assert result is not None, "the hand is not over"
    return result


def _only(new: CardSet) -> Card:
    (single,) = new
    return single


def opening_passes(state: GinHand | GinGame) -> Card:
    """Both players refuse the upcard; returns the card the non-dealer drew from the stock."""
    hand = _hand(state)
    first = hand.current_seat()
    assert first is not None
    before = hand.hand_of(first)
    act(state, "pass", "pass")
    return _only(hand.hand_of(first) - before)


def stock_turn(state: GinHand | GinGame) -> Card:
    """The seat to act draws from the stock and throws the drawn card back."""
    hand = _hand(state)
    seat = hand.current_seat()
    assert seat is not None
    before = hand.hand_of(seat)
    state.apply(DRAW_STOCK)
    drawn = _only(hand.hand_of(seat) - before)
    state.apply(discard(drawn))
    return drawn


def play_stock_turns(state: GinHand | GinGame, until_stock: int) -> None:
    """Both pass the upcard, the drawn card is thrown back, then stock turns (each
    player throws back what he draws) until the stock holds ``until_stock`` cards."""
    hand = _hand(state)
    drawn = opening_passes(state)
    state.apply(discard(drawn))
    while hand.stock_size > until_stock:
        stock_turn(state)


@dataclass(frozen=True)
class Deal:
    """A deal written by seat (not by dealer), for games whose dealer the engine picks."""

    seat0: str
    seat1: str
    upcard: str
    stock: str = ""

    def deck(self, dealer: int) -> list[Card]:
        hands = (self.seat0, self.seat1)
        return deck_order(hands[1 - dealer], hands[dealer], self.upcard, self.stock)


class ScriptedGame(GinGame):
    """A ``GinGame`` whose deal number ``k`` is ``deals[k]`` instead of a seeded shuffle."""

    def __init__(
        self,
        rules: GinRules,
        deals: Sequence[Deal],
        *,
        first_dealer: int = 0,
        max_deals: int = 0,
    ) -> None:
        self._deals = list(deals)
        super().__init__(rules, seed=0, first_dealer=first_dealer, max_deals=max_deals)

    def _deal(self, dealer: int) -> GinHand:
        number = len(self.results)
        return GinHand(
            self.rules,
            self._deals[number].deck(dealer),
            dealer,
            scores=(self.totals[0], self.totals[1]),
            hand_number=number,
        )
