"""The first turn (RULES.md Gin Rummy table, "first turn"; the classic procedure for
both presets): the non-dealer may take the upcard; if he passes the dealer may; if
both pass the non-dealer draws from the stock.  Whoever took a card discards and
the other player goes on.

Deal: the non-dealer holds 2C-3C-4C 5D-6D-7D 9C-9H-9S KS, the dealer 6H-7H-8H
JC-JD-JS 2S-3S-4S QH; the upcard is 8D; the stock starts 3H 5H.
"""

from __future__ import annotations

import pytest

from arena.games.gin_rummy import (
    CLASSIC,
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    STANDARD,
    Discard,
    EventKind,
    Knock,
    Phase,
    Termination,
)

from .helpers import DEALER, NON_DEALER, act, card, cards, deal

NON_DEALER_CARDS = "2C 3C 4C 5D 6D 7D 9C 9H 9S KS"
DEALER_CARDS = "6H 7H 8H JC JD JS 2S 3S 4S QH"

BOTH_PRESETS = pytest.mark.parametrize("rules", [STANDARD, CLASSIC], ids=["standard", "classic"])


def first_turn_hand(rules=STANDARD):
    return deal(NON_DEALER_CARDS, DEALER_CARDS, "8D", "3H 5H", rules=rules)


@BOTH_PRESETS
def test_non_dealer_is_offered_the_upcard_first(rules):
    hand = first_turn_hand(rules)
    assert hand.phase is Phase.FIRST_UPCARD
    assert hand.current_seat() == NON_DEALER
    assert hand.legal_actions() == [DRAW_DISCARD, PASS]


@BOTH_PRESETS
def test_non_dealer_takes_the_upcard(rules):
    hand = first_turn_hand(rules)
    act(hand, "draw discard")
    assert hand.hand_of(NON_DEALER) == cards(NON_DEALER_CARDS + " 8D")
    assert hand.phase is Phase.DISCARD
    assert hand.current_seat() == NON_DEALER
    act(hand, "discard KS")
    assert hand.observation(DEALER).discard_pile == (card("KS"),)
    assert hand.stock_size == 31  # nobody drew from the stock
    assert hand.phase is Phase.DRAW
    assert hand.current_seat() == DEALER
    assert hand.legal_actions() == [DRAW_STOCK, DRAW_DISCARD]


@BOTH_PRESETS
def test_non_dealer_passes_and_dealer_takes(rules):
    hand = first_turn_hand(rules)
    act(hand, "pass")
    assert hand.phase is Phase.FIRST_UPCARD
    assert hand.current_seat() == DEALER
    assert hand.legal_actions() == [DRAW_DISCARD, PASS]
    act(hand, "draw discard")
    assert hand.hand_of(DEALER) == cards(DEALER_CARDS + " 8D")
    assert hand.phase is Phase.DISCARD
    assert hand.current_seat() == DEALER
    act(hand, "discard QH")
    # The dealer's take was the first turn: the non-dealer plays next, from the stock
    # or the dealer's discard.
    assert hand.phase is Phase.DRAW
    assert hand.current_seat() == NON_DEALER
    assert hand.observation(NON_DEALER).discard_pile == (card("QH"),)
    assert hand.stock_size == 31


@BOTH_PRESETS
def test_both_pass_and_non_dealer_draws_from_the_stock(rules):
    hand = first_turn_hand(rules)
    act(hand, "pass", "pass")
    # The engine made the draw itself: there was nothing to decide.
    assert hand.hand_of(NON_DEALER) == cards(NON_DEALER_CARDS + " 3H")
    assert hand.stock_size == 30
    assert hand.phase is Phase.DISCARD
    assert hand.current_seat() == NON_DEALER
    assert hand.observation(NON_DEALER).discard_pile == (card("8D"),)  # upcard stays
    kinds = [(event.kind, event.seat) for event in hand.events]
    assert kinds == [
        (EventKind.UPCARD, None),
        (EventKind.PASS, NON_DEALER),
        (EventKind.PASS, DEALER),
        (EventKind.DRAW_STOCK, NON_DEALER),
    ]
    # Nothing was taken from the pile, so any card may be discarded.
    discards = {a.card for a in hand.legal_actions() if isinstance(a, Discard)}
    assert discards == set(cards(NON_DEALER_CARDS + " 3H"))
    act(hand, "discard 3H")
    assert hand.current_seat() == DEALER
    assert hand.phase is Phase.DRAW


def test_non_dealer_goes_gin_on_the_first_turn():
    hand = first_turn_hand()
    act(hand, "draw discard", "knock KS 2C-3C-4C 5D-6D-7D-8D 9C-9H-9S")
    result = hand.result
    assert result.termination is Termination.GIN
    assert result.winner == NON_DEALER
    assert result.points == 25 + 10  # the dealer's QH


def test_non_dealer_knocks_after_the_automatic_stock_draw():
    hand = first_turn_hand()
    act(hand, "pass", "pass", "knock KS 2C-3C-4C 5D-6D-7D 9C-9H-9S")  # keeps 3H
    act(hand, "defend 6H-7H-8H JC-JD-JS 2S-3S-4S")
    result = hand.result
    assert result.termination is Termination.KNOCK
    assert result.winner == NON_DEALER
    assert result.points == 10 - 3


def test_dealer_knocks_on_the_first_turn():
    hand = first_turn_hand()
    act(hand, "pass", "draw discard")
    knocks = {a.card for a in hand.legal_actions() if isinstance(a, Knock)}
    assert knocks == {card("QH")}  # keeping 8D (8) is the only way to 10 or less
    act(hand, "knock QH 6H-7H-8H JC-JD-JS 2S-3S-4S")
    assert hand.current_seat() == NON_DEALER
    assert hand.phase is Phase.DEFEND
    act(hand, "defend 2C-3C-4C 5D-6D-7D 9C-9H-9S")  # KS = 10 against 8
    result = hand.result
    assert result.termination is Termination.KNOCK
    assert result.winner == DEALER
    assert result.points == 10 - 8


def test_upcard_taken_may_be_discarded_on_a_later_turn():
    hand = first_turn_hand()
    act(hand, "draw discard")
    discards = {a.card for a in hand.legal_actions() if isinstance(a, Discard)}
    assert discards == set(cards(NON_DEALER_CARDS))  # not 8D, just taken
    act(hand, "discard 9S", "draw stock", "discard 3H", "draw stock")
    assert card("8D") in {a.card for a in hand.legal_actions() if isinstance(a, Discard)}
    act(hand, "discard 8D")
    assert hand.observation(DEALER).discard_pile == (card("9S"), card("3H"), card("8D"))
    assert hand.current_seat() == DEALER
