"""The options of RULES.md (off by default): Oklahoma Gin, the last-discard variant,
and the knock limit and bonuses as plain parameters.

Most deals have the shape of test_knock_and_scoring.py: the non-dealer holds
2C-3C-4C 5D-6D-7D 9C-9H-9S plus one card, the dealer 6H-7H-8H JC-JD-JS 2S-3S-4S
plus one card (no layoffs possible); both refuse the upcard and the non-dealer
draws KD (or 8D, for gin) and knocks with it.
"""

from __future__ import annotations

import dataclasses

import pytest

from arena.games.base import IllegalActionError
from arena.games.gin_rummy import (
    CLASSIC,
    DRAW_DISCARD,
    PASS,
    STANDARD,
    GinRules,
    Knock,
    Phase,
    RulesError,
    Termination,
)

from .helpers import DEALER, NON_DEALER, act, card, deal, opening_passes, play_stock_turns

KNOCKER_MELDS = "2C 3C 4C 5D 6D 7D 9C 9H 9S"
DEFENDER_MELDS = "6H 7H 8H JC JD JS 2S 3S 4S"
KNOCK = "knock KD 2C-3C-4C 5D-6D-7D 9C-9H-9S"
GIN = "knock QD 2C-3C-4C 5D-6D-7D-8D 9C-9H-9S"  # holding QD, after drawing 8D
DEFEND = "defend 6H-7H-8H JC-JD-JS 2S-3S-4S"

OKLAHOMA = dataclasses.replace(STANDARD, oklahoma=True)


def knock_hand(knocker_extra: str, defender_extra: str, upcard: str, rules: GinRules, top="KD"):
    hand = deal(
        f"{KNOCKER_MELDS} {knocker_extra}",
        f"{DEFENDER_MELDS} {defender_extra}",
        upcard,
        top,
        rules=rules,
    )
    opening_passes(hand)
    return hand


def knock_cards(hand) -> set:
    return {a.card for a in hand.legal_actions() if isinstance(a, Knock)}


# -- Oklahoma ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("upcard", "limit"),
    [("7C", 7), ("2H", 2), ("TC", 10), ("JH", 10), ("QC", 10), ("KC", 10), ("AD", 0)],
)
def test_oklahoma_upcard_value_is_the_knock_limit(upcard, limit):
    hand = deal(f"{KNOCKER_MELDS} 3H", f"{DEFENDER_MELDS} KH", upcard, rules=OKLAHOMA)
    assert hand.knock_limit == limit
    assert hand.observation(NON_DEALER).knock_limit == limit
    assert hand.observation(DEALER).knock_limit == limit


def test_oklahoma_seven_allows_a_knock_with_seven():
    hand = knock_hand("7S", "QH", "7C", OKLAHOMA)
    assert knock_cards(hand) == {card("KD")}
    act(hand, KNOCK, DEFEND)
    assert hand.result.termination is Termination.KNOCK
    assert hand.result.knock_limit == 7
    assert hand.result.points == 10 - 7
    assert not hand.result.doubled


def test_oklahoma_seven_refuses_a_knock_with_eight():
    hand = knock_hand("8S", "QH", "7C", OKLAHOMA)
    assert knock_cards(hand) == set()
    with pytest.raises(IllegalActionError, match="deadwood 8 is above the knock limit 7"):
        act(hand, KNOCK)
    assert hand.phase is Phase.DISCARD  # nothing changed


def test_without_oklahoma_the_upcard_does_not_change_the_limit():
    hand = knock_hand("8S", "QH", "7C", STANDARD)
    assert hand.knock_limit == 10
    act(hand, KNOCK)
    assert hand.phase is Phase.DEFEND


def test_oklahoma_face_card_sets_ten_whatever_the_knock_limit_parameter():
    rules = GinRules(oklahoma=True, knock_limit=5)
    hand = knock_hand("TS", "QH", "KC", rules)
    assert hand.knock_limit == 10
    act(hand, KNOCK)  # deadwood 10: allowed although the parameter says 5
    assert hand.phase is Phase.DEFEND


def test_oklahoma_ace_allows_only_gin():
    hand = knock_hand("AH", "KH", "AD", OKLAHOMA)
    assert knock_cards(hand) == set()
    with pytest.raises(IllegalActionError, match="deadwood 1 is above the knock limit 0"):
        act(hand, KNOCK)

    hand = knock_hand("QD", "KH", "AD", OKLAHOMA, top="8D")
    assert knock_cards(hand) == {card("QD")}
    act(hand, GIN)
    assert hand.result.termination is Termination.GIN
    assert hand.result.points == 25 + 10


SPADE_CASES = pytest.mark.parametrize(
    ("rules", "gin_bonus", "undercut_bonus"),
    [
        (OKLAHOMA, 25, 25),
        (dataclasses.replace(CLASSIC, oklahoma=True), 20, 10),
    ],
    ids=["standard", "classic"],
)


@SPADE_CASES
def test_oklahoma_spade_upcard_doubles_a_knock(rules, gin_bonus, undercut_bonus):
    hand = knock_hand("3H", "KH", "TS", rules)
    act(hand, KNOCK, DEFEND)
    result = hand.result
    assert result.doubled
    assert result.termination is Termination.KNOCK
    assert result.points == 2 * (10 - 3)
    assert result.scores == (0, 14)


@SPADE_CASES
def test_oklahoma_spade_upcard_doubles_gin(rules, gin_bonus, undercut_bonus):
    hand = knock_hand("QD", "KH", "TS", rules, top="8D")
    act(hand, GIN)
    assert hand.result.termination is Termination.GIN
    assert hand.result.points == 2 * (gin_bonus + 10)


@SPADE_CASES
def test_oklahoma_spade_upcard_doubles_an_undercut(rules, gin_bonus, undercut_bonus):
    hand = knock_hand("KH", "QH", "TS", rules)  # 10 against 10
    act(hand, KNOCK, DEFEND)
    assert hand.result.termination is Termination.UNDERCUT
    assert hand.result.winner == DEALER
    assert hand.result.points == 2 * (0 + undercut_bonus)


def test_oklahoma_ace_of_spades_is_gin_only_and_doubled():
    hand = knock_hand("QD", "KH", "AS", OKLAHOMA, top="8D")
    assert hand.knock_limit == 0
    act(hand, GIN)
    assert hand.result.points == 2 * (25 + 10)


def test_oklahoma_other_suits_are_not_doubled():
    hand = knock_hand("3H", "KH", "TC", OKLAHOMA)
    act(hand, KNOCK, DEFEND)
    assert not hand.result.doubled
    assert hand.result.points == 10 - 3


# -- Last-discard variant --------------------------------------------------------
#
# The non-dealer holds his three melds and one more card, which he throws after
# drawing KD, the third-to-last card of the stock; the dealer may then take it.

LAST_DISCARD = dataclasses.replace(STANDARD, last_discard=True)


def after_last_discard(thrown: str, dealer: str, rules: GinRules = LAST_DISCARD):
    hand = deal(f"{KNOCKER_MELDS} {thrown}", dealer, "KC", bottom="KD 8C 8S", rules=rules)
    play_stock_turns(hand, until_stock=3)
    assert hand.current_seat() == NON_DEALER
    act(hand, "draw stock", f"discard {thrown}")
    assert hand.stock_size == 2
    return hand


# With 3S the dealer has 3S-4S-5S and keeps AH or KH: he may knock.
DEALER_WHO_CAN_KNOCK = "6H 7H 8H JC JD JS 4S 5S AH KH"


def test_last_discard_offered_when_it_allows_a_knock():
    hand = after_last_discard("3S", DEALER_WHO_CAN_KNOCK)
    assert hand.result is None
    assert hand.phase is Phase.LAST_DISCARD
    assert hand.current_seat() == DEALER
    assert hand.legal_actions() == [DRAW_DISCARD, PASS]


def test_last_discard_taken_to_knock():
    hand = after_last_discard("3S", DEALER_WHO_CAN_KNOCK)
    act(hand, "draw discard")
    legal = hand.legal_actions()
    assert all(isinstance(action, Knock) for action in legal)  # no plain discard
    assert {action.card for action in legal} == {card("KH"), card("AH")}
    act(hand, "knock KH 6H-7H-8H JC-JD-JS 3S-4S-5S")  # deadwood AH = 1
    act(hand, "defend 2C-3C-4C 5D-6D-7D 9C-9H-9S")  # KD = 10
    result = hand.result
    assert result.termination is Termination.KNOCK
    assert result.knocker == DEALER
    assert result.winner == DEALER
    assert result.points == 10 - 1


def test_last_discard_taken_to_go_gin():
    hand = after_last_discard("3S", "6H 7H 8H JC JD JS 4S 5S 6S KH")
    act(hand, "draw discard", "knock KH 6H-7H-8H JC-JD-JS 3S-4S-5S-6S")
    result = hand.result
    assert result.termination is Termination.GIN
    assert result.winner == DEALER
    assert result.points == 25 + 10  # the non-dealer's KD


def test_last_discard_taken_must_be_followed_by_a_knock():
    hand = after_last_discard("3S", DEALER_WHO_CAN_KNOCK)
    act(hand, "draw discard")
    with pytest.raises(IllegalActionError, match="last-discard") as error:
        act(hand, "discard KH")
    assert "KH" in str(error.value)
    assert hand.phase is Phase.DISCARD
    assert hand.current_seat() == DEALER


def test_last_discard_passed_cancels_the_hand():
    hand = after_last_discard("3S", DEALER_WHO_CAN_KNOCK)
    act(hand, "pass")
    result = hand.result
    assert result.termination is Termination.DRAW
    assert result.winner is None
    assert result.points == 0


def test_last_discard_useless_to_the_opponent_only_allows_pass():
    # With QD the dealer's best is 4S 5S AH QD = 20 after throwing KH: no knock.
    hand = after_last_discard("QD", DEALER_WHO_CAN_KNOCK)
    assert hand.phase is Phase.LAST_DISCARD
    assert hand.legal_actions() == [PASS]
    with pytest.raises(IllegalActionError, match="last-discard"):
        act(hand, "draw discard")
    with pytest.raises(IllegalActionError, match="last-discard"):
        act(hand, "draw stock")
    assert hand.phase is Phase.LAST_DISCARD
    act(hand, "pass")
    assert hand.result.termination is Termination.DRAW


def test_without_the_variant_the_hand_ends_at_the_discard():
    hand = after_last_discard("3S", DEALER_WHO_CAN_KNOCK, rules=STANDARD)
    assert hand.result.termination is Termination.DRAW
    assert hand.current_seat() is None
    assert hand.legal_actions() == []


# -- Knock limit and bonuses as parameters ----------------------------------------


def test_knock_limit_parameter():
    rules = GinRules(name="low-knock", knock_limit=5)
    hand = knock_hand("5S", "QH", "QC", rules)
    assert knock_cards(hand) == {card("KD")}
    act(hand, KNOCK, DEFEND)
    assert hand.result.points == 10 - 5

    hand = knock_hand("6C", "QH", "QC", rules)
    assert knock_cards(hand) == set()
    with pytest.raises(IllegalActionError, match="deadwood 6 is above the knock limit 5"):
        act(hand, KNOCK)


def test_knock_limit_zero_means_gin_only():
    rules = GinRules(knock_limit=0)
    hand = knock_hand("AH", "QH", "QC", rules)
    with pytest.raises(IllegalActionError, match="knock limit 0"):
        act(hand, KNOCK)
    hand = knock_hand("QD", "KH", "QC", rules, top="8D")
    act(hand, GIN)
    assert hand.result.termination is Termination.GIN


def test_gin_and_undercut_bonus_parameters():
    rules = GinRules(name="house", gin_bonus=31, undercut_bonus=17)
    hand = knock_hand("QD", "KH", "QC", rules, top="8D")
    act(hand, GIN)
    assert hand.result.points == 31 + 10

    hand = knock_hand("KH", "QH", "QC", rules)  # 10 against 10
    act(hand, KNOCK, DEFEND)
    assert hand.result.termination is Termination.UNDERCUT
    assert hand.result.points == 0 + 17

    hand = knock_hand("3H", "KH", "QC", rules)  # a plain knock carries no bonus
    act(hand, KNOCK, DEFEND)
    assert hand.result.points == 10 - 3


def test_rule_set_from_plain_values():
    rules = GinRules.from_mapping({"knock_limit": 7, "gin_bonus": 30}, base=CLASSIC)
    assert rules.knock_limit == 7
    assert rules.gin_bonus == 30
    assert rules.undercut_bonus == CLASSIC.undercut_bonus
    with pytest.raises(RulesError, match="unknown Gin Rummy rule 'knock'"):
        GinRules.from_mapping({"knock": 7})
    with pytest.raises(RulesError, match="knock_limit"):
        GinRules.from_mapping({"knock_limit": "7"})
    with pytest.raises(RulesError, match="gin_bonus"):
        GinRules(gin_bonus=-1)
