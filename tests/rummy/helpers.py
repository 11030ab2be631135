"""Hand-built deals and scripted play for the Basic Rummy rule tests.

A deal is written by seat: ``deal(["7C 7D ...", "2H 3H ..."], upcard="KS",
stock="4C 9D")`` deals those hands (seat 0 is the dealer unless told otherwise, so
seat 1 plays first), turns up the upcard and puts ``stock`` on top of the stock,
top first.  Actions are written in their text form (``"draw stock"``,
``"meld 7C-7D-7S"``, ``"layoff 8H>0"``, ``"swap 7H>0"``, ``"discard KD"``) so a
test reads like a game record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.cards import Card
from arena.games.rummy import (
    STANDARD,
    Action,
    RummyCard,
    RummyGame,
    RummyHand,
    RummyRules,
    parse_action,
    parse_card,
    parse_cards,
)
from arena.games.rummy.scenario import deck_order

__all__ = [
    "Deal",
    "ScriptedGame",
    "act",
    "card",
    "cards",
    "deal",
    "hand_text",
    "multiset",
    "natural",
]


def card(text: str) -> RummyCard:
    return parse_card(text)


def natural(text: str) -> Card:
    """A natural card (never the joker)."""
    return Card.parse(text)


def cards(text: str) -> tuple[RummyCard, ...]:
    return parse_cards(text)


def multiset(text_or_cards: str | Sequence[RummyCard]) -> Counter[str]:
    items = parse_cards(text_or_cards) if isinstance(text_or_cards, str) else text_or_cards
    return Counter(str(c) for c in items)


def deal(
    hands: Sequence[str] | Mapping[int, str],
    upcard: str,
    stock: str = "",
    *,
    dealer: int = 0,
    rules: RummyRules = STANDARD,
    bottom: str = "",
    num_seats: int | None = None,
    scores: Sequence[int] | None = None,
    reshuffle_seed: int = 0,
) -> RummyHand:
    """A hand dealt from a hand-built deck (``hands`` by seat; a mapping leaves seats out)."""
    by_seat = dict(hands) if isinstance(hands, Mapping) else dict(enumerate(hands))
    seats = num_seats if num_seats is not None else max(by_seat) + 1
    deck = deck_order(rules, by_seat, dealer, upcard, stock, bottom)
    return RummyHand(
        rules,
        deck,
        dealer,
        num_seats=seats,
        players=sorted(by_seat),
        scores=scores,
        reshuffle_seed=reshuffle_seed,
    )


def act(state: RummyHand | RummyGame, *actions: str | Action) -> None:
    """Play ``actions`` in order, each for whichever seat is to act."""
    for action in actions:
        state.apply(parse_action(action) if isinstance(action, str) else action)


def hand_text(state: RummyHand | RummyGame, seat: int) -> str:
    hand = state.hand if isinstance(state, RummyGame) else state
    return " ".join(str(c) for c in hand.hand_of(seat))


@dataclass(frozen=True)
class Deal:
    """A deal written by seat, for games whose dealer the engine picks."""

    hands: Mapping[int, str]
    upcard: str
    stock: str = ""
    bottom: str = ""

    def deck(self, rules: RummyRules, dealer: int) -> list[RummyCard]:
        return deck_order(rules, self.hands, dealer, self.upcard, self.stock, self.bottom)


class ScriptedGame(RummyGame):
    """A ``RummyGame`` whose deal ``k`` is ``deals[k]`` (seeded deals after the last)."""

    def __init__(
        self,
        rules: RummyRules,
        deals: Sequence[Deal],
        num_seats: int,
        *,
        first_dealer: int = 0,
        max_deals: int = 0,
        single_hand: bool = False,
    ) -> None:
        self.deals = list(deals)
        super().__init__(
            rules,
            0,
            num_seats,
            first_dealer=first_dealer,
            max_deals=max_deals,
            single_hand=single_hand,
        )

    def _deck(self, number: int, players: Sequence[int], dealer: int) -> Sequence[RummyCard]:
        if number < len(self.deals):
            return self.deals[number].deck(self.rules, dealer)
        return super()._deck(number, players, dealer)
