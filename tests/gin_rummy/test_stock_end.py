"""Two cards left in the stock (RULES.md Gin Rummy 7): when the player who drew the
third-to-last card discards without knocking, the hand ends with no score.

After the deal the stock holds 52 - 21 = 31 cards.  In these hands every player
draws from the stock and throws the drawn card back, so each hand stays as dealt.

Deal: the non-dealer holds 2C-3C-4C 5D-6D-7D 9C-9H-9S 3H (deadwood 3), the dealer
6H-7H-8H JC-JD-JS 2S-3S-4S QH (deadwood 10); the upcard is KC; KS is the
third-to-last card of the stock.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.games.gin_rummy import CLASSIC, STANDARD, Discard, Phase, Termination

from .helpers import (
    DEALER,
    NON_DEALER,
    act,
    card,
    deal,
    play_stock_turns,
    result_of,
    stock_turn,
)

NON_DEALER_CARDS = "2C 3C 4C 5D 6D 7D 9C 9H 9S 3H"
DEALER_CARDS = "6H 7H 8H JC JD JS 2S 3S 4S QH"


def stock_end_hand(rules=STANDARD):
    return deal(NON_DEALER_CARDS, DEALER_CARDS, "KC", bottom="KS 8C 8S", rules=rules)


def at_three_cards(rules=STANDARD):
    hand = stock_end_hand(rules)
    play_stock_turns(hand, until_stock=3)
    # Both passed, so the non-dealer made stock draw 1 (31 -> 30) and makes every
    # odd-numbered draw: draw 29 (3 -> 2 cards left) is his.
    assert hand.stock_size == 3
    assert hand.result is None
    assert hand.phase is Phase.DRAW
    assert hand.current_seat() == NON_DEALER
    return hand


@pytest.mark.parametrize("rules", [STANDARD, CLASSIC], ids=["standard", "classic"])
def test_discard_after_drawing_the_third_to_last_card_ends_the_hand_as_a_draw(rules):
    hand = at_three_cards(rules)
    act(hand, "draw stock")
    assert card("KS") in hand.hand_of(NON_DEALER)
    assert hand.stock_size == 2
    assert hand.result is None  # he may still knock: nothing ends before his discard
    assert hand.phase is Phase.DISCARD
    act(hand, "discard KS")
    result = result_of(hand)
    assert result.termination is Termination.DRAW
    assert result.winner is None
    assert result.knocker is None
    assert result.points == 0
    assert result.scores == (0, 0)
    assert hand.phase is Phase.OVER
    assert hand.current_seat() is None
    assert hand.legal_actions() == []
    assert hand.stock_size == 2  # the last two cards are never drawn
    outcome = hand.outcome()
    assert outcome.winner is None
    assert outcome.ranks == (0, 0)


def test_knock_after_drawing_the_third_to_last_card_is_allowed():
    hand = at_three_cards()
    act(hand, "draw stock", "knock KS 2C-3C-4C 5D-6D-7D 9C-9H-9S")
    assert hand.phase is Phase.DEFEND
    act(hand, "defend 6H-7H-8H JC-JD-JS 2S-3S-4S")
    result = hand.result
    assert result.termination is Termination.KNOCK
    assert result.winner == NON_DEALER
    assert result.points == 10 - 3


def test_taking_the_discard_with_three_cards_left_does_not_end_the_hand():
    hand = at_three_cards()
    act(hand, "draw discard", "discard 3H")
    # The stock still holds 3: the third-to-last card has not been drawn yet.
    assert hand.result is None
    assert hand.stock_size == 3
    assert hand.current_seat() == DEALER
    assert hand.phase is Phase.DRAW
    act(hand, "draw stock")  # the dealer draws KS, the third-to-last card
    assert hand.result is None
    act(hand, "discard KS")
    assert result_of(hand).termination is Termination.DRAW


def test_the_dealer_draws_the_third_to_last_card_when_the_upcard_was_taken():
    # The non-dealer takes the upcard, so the dealer makes stock draw 1 and every
    # odd-numbered one after it, including draw 29.
    hand = stock_end_hand()
    act(hand, "draw discard", "discard 3H")
    while hand.stock_size > 3:
        stock_turn(hand)
    assert hand.current_seat() == DEALER
    assert hand.result is None
    stock_turn(hand)
    assert hand.stock_size == 2
    assert result_of(hand).termination is Termination.DRAW


def test_a_hand_that_never_reaches_the_stock_end_is_a_draw_at_the_turn_limit():
    # Both players keep taking each other's discard: the stock never shrinks, so
    # only the turn limit (not in the rule texts, a safety valve) ends the hand.
    rules = replace(STANDARD, turn_limit=6)
    hand = stock_end_hand(rules)
    act(hand, "pass", "pass", "discard 3H")  # turn 1: the non-dealer's forced stock draw
    stock = hand.stock_size
    for turn in range(2, 7):
        assert hand.result is None, f"ended before turn {turn}"
        act(hand, "draw discard")
        forbidden = hand.observation(hand.current_seat()).forbidden_discard
        discard = next(a for a in hand.legal_actions() if isinstance(a, Discard))
        assert discard.card is not forbidden
        hand.apply(discard)
    assert hand.stock_size == stock == 30
    assert hand.result is not None
    assert hand.result.termination is Termination.DRAW
    assert hand.result.points == 0
