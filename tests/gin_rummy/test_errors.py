"""Illegal requests raise ``IllegalActionError`` naming the rule and the card, and
change nothing (RULES.md: "it never silently corrects them").

Deal: the non-dealer holds 2C-3C-4C 5D-6D-7D 9C-9H-9S 3H, the dealer 6H-7H-8H
JC-JD-JS 2S-3S-4S QH; the upcard is KC; the stock starts KD 5H.
"""

from __future__ import annotations

import pytest

from arena.cards import Meld, MeldKind
from arena.games.base import GameError, IllegalActionError
from arena.games.gin_rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    STANDARD,
    Knock,
    Phase,
    discard,
    parse_action,
)

from .helpers import (
    DEALER,
    NON_DEALER,
    Deal,
    ScriptedGame,
    act,
    card,
    cards,
    deal,
    opening_passes,
)

NON_DEALER_CARDS = "2C 3C 4C 5D 6D 7D 9C 9H 9S 3H"
DEALER_CARDS = "6H 7H 8H JC JD JS 2S 3S 4S QH"

RULE_TURN = "rule 2"
RULE_SAME_CARD = "rule 3"
RULE_KNOCK = "rule 4"
RULE_LAYOFF = "rule 5"


def new_hand():
    return deal(NON_DEALER_CARDS, DEALER_CARDS, "KC", "KD 5H")


def snapshot(hand):
    return (
        hand.phase,
        hand.current_seat(),
        hand.hand_of(0),
        hand.hand_of(1),
        hand.stock_size,
        hand.observation(0).discard_pile,
        len(hand.events),
    )


def refused(hand, action, rule: str, *words: str) -> IllegalActionError:
    """Apply ``action``: it must raise, name ``rule`` and ``words``, and change nothing."""
    before = snapshot(hand)
    with pytest.raises(IllegalActionError) as caught:
        hand.apply(parse_action(action) if isinstance(action, str) else action)
    error = caught.value
    assert error.rule.startswith(rule), error.rule
    for word in words:
        assert word in str(error), (word, str(error))
    assert snapshot(hand) == before
    return error


def test_illegal_action_error_is_a_value_error_and_a_game_error():
    assert issubclass(IllegalActionError, ValueError)
    assert issubclass(IllegalActionError, GameError)


# -- discards ------------------------------------------------------------------------


def test_discard_a_card_not_in_hand():
    hand = new_hand()
    opening_passes(hand)
    refused(hand, "discard AH", RULE_TURN, "AH", "not in seat 1's hand")


def test_discard_the_card_just_taken_from_the_pile():
    hand = new_hand()
    act(hand, "draw discard")  # the upcard KC
    refused(hand, "discard KC", RULE_SAME_CARD, "KC", "taken from the discard pile this turn")
    # Nor may it be the knock's discard (the rest would be deadwood 3H = 3).
    refused(hand, "knock KC 2C-3C-4C 5D-6D-7D 9C-9H-9S", RULE_SAME_CARD, "KC")


def test_discard_before_drawing():
    hand = new_hand()
    opening_passes(hand)
    act(hand, "discard KD")
    refused(hand, "discard QH", RULE_TURN, "QH", "must draw first")
    refused(hand, "knock QH 6H-7H-8H JC-JD-JS 2S-3S-4S", RULE_TURN, "QH", "must draw first")


def test_drawing_when_a_discard_is_due():
    hand = new_hand()
    opening_passes(hand)
    refused(hand, "draw stock", RULE_TURN, "draw stock", "must discard or knock")
    refused(hand, "draw discard", RULE_TURN, "draw discard", "must discard or knock")
    refused(hand, "pass", RULE_TURN, "pass", "must discard or knock")


def test_first_turn_is_take_the_upcard_or_pass():
    hand = new_hand()
    refused(hand, "draw stock", "first turn", "draw stock")
    refused(hand, "discard 3H", "first turn", "3H")


def test_pass_is_only_for_the_upcard():
    hand = new_hand()
    opening_passes(hand)
    act(hand, "discard KD")
    refused(hand, "pass", RULE_TURN, "pass", "must draw first")


# -- knocks ---------------------------------------------------------------------------


def test_knock_above_the_limit():
    hand = new_hand()
    opening_passes(hand)  # holds his melds, 3H and KD
    # Throwing 2C breaks 2C-3C-4C: 3C 4C 3H KD = 20.
    refused(
        hand,
        "knock 2C 5D-6D-7D 9C-9H-9S",
        RULE_KNOCK,
        "2C",
        "deadwood 20 is above the knock limit 10",
    )


def test_knock_with_a_card_not_in_hand():
    hand = new_hand()
    opening_passes(hand)
    refused(hand, "knock AH 2C-3C-4C 5D-6D-7D 9C-9H-9S", RULE_TURN, "AH", "not in seat 1's hand")


def test_knock_with_a_meld_using_cards_not_in_hand():
    hand = new_hand()
    opening_passes(hand)
    refused(hand, "knock KD 2C-3C-4C 5D-6D-7D 9C-9D-9S", RULE_KNOCK, "KD", "9D")


def test_knock_with_a_meld_using_the_discard():
    hand = new_hand()
    opening_passes(hand)
    refused(hand, "knock 4C 2C-3C-4C 5D-6D-7D 9C-9H-9S", RULE_KNOCK, "4C")


def test_knock_with_an_invalid_meld():
    hand = new_hand()
    opening_passes(hand)
    fake_run = Meld(cards("2C 3C 9C"), MeldKind.RUN)  # bypasses Meld.of's check
    melds = (fake_run, Meld.of("5D 6D 7D"))
    refused(hand, Knock(card("KD"), melds), RULE_KNOCK, "KD", "2C 3C 9C")


def test_knock_with_overlapping_melds():
    # The seed's example: with 7H 7D 7C 8H 9H, 7H serves the sevens or the hearts run,
    # not both.
    hand = deal("7C 7D 7H 8H 9H 2C 3C 4C AS 2D", "5S 6S 7S JC JD JS TC TD QH KH", "KC", "KD")
    opening_passes(hand)
    refused(hand, "knock KD 7C-7D-7H 7H-8H-9H 2C-3C-4C", RULE_KNOCK, "KD", "7H")
    # One way or the other is fine: 8H 9H AS 2D = 20 > 10 or 7C 7D AS 2D = 17 > 10 is
    # refused as too much deadwood, not as overlapping.
    refused(hand, "knock KD 7C-7D-7H 2C-3C-4C", RULE_KNOCK, "deadwood 20")
    refused(hand, "knock KD 7H-8H-9H 2C-3C-4C", RULE_KNOCK, "deadwood 17")


# -- layoffs --------------------------------------------------------------------------
#
# Knocker (non-dealer): #0 4H-5H-6H, #1 9C-9D-9S, #2 JC-QC-KC, deadwood AS.
# Defender: TD-TH-TS 2D-3D-4D, unmatched 7H 8H 3S QS.


def defending():
    hand = deal("4H 5H 6H 9C 9D 9S JC QC KC AS", "7H 8H TD TH TS 2D 3D 4D 3S QS", "2C", "KD")
    opening_passes(hand)
    act(hand, "knock KD 4H-5H-6H 9C-9D-9S JC-QC-KC")
    assert hand.phase is Phase.DEFEND
    return hand


def test_layoff_leaving_a_gap_in_the_run():
    refused(defending(), "defend TD-TH-TS 2D-3D-4D | 8H>0", RULE_LAYOFF, "8H", "not a meld")


def test_layoff_of_another_suit_on_a_run():
    refused(defending(), "defend TD-TH-TS 2D-3D-4D | 3S>0", RULE_LAYOFF, "3S", "not a meld")


def test_layoff_of_another_rank_on_a_set():
    refused(defending(), "defend TD-TH-TS 2D-3D-4D | QS>1", RULE_LAYOFF, "QS", "not a meld")


def test_layoff_on_a_meld_that_does_not_exist():
    refused(defending(), "defend TD-TH-TS 2D-3D-4D | 7H>3", RULE_LAYOFF, "7H", "no meld #3")


def test_layoff_of_a_card_not_in_hand():
    refused(defending(), "defend TD-TH-TS 2D-3D-4D | 9H>1", RULE_LAYOFF, "9H", "not in seat 0")


def test_layoff_of_the_same_card_twice():
    refused(defending(), "defend TD-TH-TS 2D-3D-4D | 7H>0 7H>0", RULE_LAYOFF, "7H")


def test_layoff_of_a_card_used_in_own_meld():
    refused(defending(), "defend TD-TH-TS 2D-3D-4D | 4D>0", RULE_LAYOFF, "4D")


def test_defender_must_defend():
    hand = defending()
    refused(hand, "draw stock", RULE_LAYOFF, "draw stock")
    refused(hand, "discard 7H", RULE_LAYOFF, "7H")


# -- turn order and the end -------------------------------------------------------------


def test_acting_out_of_turn():
    hand = new_hand()  # the non-dealer (seat 1) is to act
    before = snapshot(hand)
    with pytest.raises(IllegalActionError) as caught:
        hand.apply(DRAW_DISCARD, seat=DEALER)
    assert "seat 0" in str(caught.value)
    assert "seat 1's turn" in str(caught.value)
    assert caught.value.rule
    assert snapshot(hand) == before
    hand.apply(DRAW_DISCARD, seat=NON_DEALER)  # the right seat may
    with pytest.raises(IllegalActionError, match="seat 0 cannot discard QH"):
        hand.apply(discard(card("QH")), seat=DEALER)


def test_acting_out_of_turn_in_a_game():
    game = ScriptedGame(STANDARD, [Deal(seat0=DEALER_CARDS, seat1=NON_DEALER_CARDS, upcard="KC")])
    with pytest.raises(IllegalActionError, match="seat 0 cannot pass"):
        game.apply(parse_action("pass"), seat=0)
    game.apply(parse_action("pass"), seat=1)
    assert game.current_seat() == 0


def test_acting_after_the_hand_is_over():
    hand = deal("2C 3C 4C 5D 6D 7D 9C 9H 9S QD", DEALER_CARDS, "8D")
    act(hand, "draw discard", "knock QD 2C-3C-4C 5D-6D-7D-8D 9C-9H-9S")
    assert hand.result is not None
    for action in ("draw stock", "discard 2C", "pass", "defend"):
        with pytest.raises(IllegalActionError, match="the hand is over") as caught:
            act(hand, action)
        assert caught.value.rule
    assert hand.legal_actions() == []


def test_acting_after_the_game_is_over():
    loser = "KC KD QH QS JC JD TH TS 9D 8C"  # deadwood 97
    winner = "2C 3C 4C 5D 6D 7D 9C 9H 9S QD"
    game = ScriptedGame(STANDARD, [Deal(seat0=loser, seat1=winner, upcard="8D")])
    act(game, "draw discard", "knock QD 2C-3C-4C 5D-6D-7D-8D 9C-9H-9S")
    assert game.is_terminal()
    with pytest.raises(IllegalActionError, match="cannot draw stock: the game is over"):
        game.apply(DRAW_STOCK)
