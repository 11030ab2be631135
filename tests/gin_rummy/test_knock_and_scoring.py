"""Knocking, gin, undercuts and the hand score (RULES.md Gin Rummy 4-6 and the table).

Every deal here has the same shape: the non-dealer holds three melds
(2C-3C-4C, 5D-6D-7D, 9C-9H-9S) plus one card that is his deadwood, both players
refuse the upcard, the non-dealer draws the stock's top card (KD, or 8D for gin)
and knocks.  The dealer holds three melds (6H-7H-8H, JC-JD-JS, 2S-3S-4S) plus one
card, none of which fits on the knocker's melds, so there are no layoffs.
"""

from __future__ import annotations

import pytest

from arena.games.base import IllegalActionError
from arena.games.gin_rummy import (
    CLASSIC,
    STANDARD,
    Defend,
    Discard,
    GinHand,
    GinRules,
    Knock,
    Phase,
    Termination,
)

from .helpers import DEALER, NON_DEALER, act, card, cards, deal, opening_passes, result_of

KNOCKER_MELDS = "2C 3C 4C 5D 6D 7D 9C 9H 9S"
DEFENDER_MELDS = "6H 7H 8H JC JD JS 2S 3S 4S"
KNOCK = "knock KD 2C-3C-4C 5D-6D-7D 9C-9H-9S"
DEFEND = "defend 6H-7H-8H JC-JD-JS 2S-3S-4S"

PRESETS = pytest.mark.parametrize(
    ("rules", "gin_bonus", "undercut_bonus"),
    [(STANDARD, 25, 25), (CLASSIC, 20, 10)],
    ids=["standard", "classic"],
)


def knock_hand(knocker_extra: str, defender_extra: str, rules: GinRules = STANDARD) -> GinHand:
    hand = deal(
        f"{KNOCKER_MELDS} {knocker_extra}",
        f"{DEFENDER_MELDS} {defender_extra}",
        "QC",
        "KD",
        rules=rules,
    )
    opening_passes(hand)
    return hand


@PRESETS
def test_knocker_with_less_deadwood_scores_the_difference(rules, gin_bonus, undercut_bonus):
    hand = knock_hand("3H", "KH", rules)  # knocker 3, defender 10
    act(hand, KNOCK)
    assert hand.phase is Phase.DEFEND
    assert hand.current_seat() == DEALER
    act(hand, DEFEND)
    result = result_of(hand)
    assert result.termination is Termination.KNOCK
    assert result.winner == NON_DEALER
    assert result.knocker == NON_DEALER
    assert result.points == 10 - 3
    assert result.seats[NON_DEALER].deadwood == 3
    assert result.seats[DEALER].deadwood == 10
    assert result.scores == (0, 7)  # (dealer, non-dealer)
    assert hand.current_seat() is None
    assert hand.is_terminal()


@PRESETS
def test_undercut_when_defender_has_less_deadwood(rules, gin_bonus, undercut_bonus):
    hand = knock_hand("5H", "2D", rules)  # knocker 5, defender 2
    act(hand, KNOCK, DEFEND)
    result = result_of(hand)
    assert result.termination is Termination.UNDERCUT
    assert result.winner == DEALER
    assert result.knocker == NON_DEALER
    assert result.points == 5 - 2 + undercut_bonus
    assert result.scores == (3 + undercut_bonus, 0)


@PRESETS
def test_undercut_on_a_tie(rules, gin_bonus, undercut_bonus):
    hand = knock_hand("KH", "QH", rules)  # knocker 10, defender 10
    act(hand, KNOCK, DEFEND)
    result = result_of(hand)
    assert result.termination is Termination.UNDERCUT
    assert result.winner == DEALER
    assert result.points == 0 + undercut_bonus


@PRESETS
def test_gin_scores_bonus_plus_defender_deadwood(rules, gin_bonus, undercut_bonus):
    hand = deal(f"{KNOCKER_MELDS} QD", f"{DEFENDER_MELDS} KH", "QC", "8D", rules=rules)
    assert opening_passes(hand) == card("8D")
    act(hand, "knock QD 2C-3C-4C 5D-6D-7D-8D 9C-9H-9S")
    result = result_of(hand)
    assert result.termination is Termination.GIN
    assert result.winner == NON_DEALER
    assert result.points == gin_bonus + 10
    assert result.seats[NON_DEALER].deadwood == 0


@PRESETS
def test_gin_cannot_be_undercut(rules, gin_bonus, undercut_bonus):
    # The defender's ten cards are all melded (2S-3S-4S-5S): deadwood 0 as well.
    hand = deal(f"{KNOCKER_MELDS} QD", f"{DEFENDER_MELDS} 5S", "QC", "8D", rules=rules)
    opening_passes(hand)
    act(hand, "knock QD 2C-3C-4C 5D-6D-7D-8D 9C-9H-9S")
    result = result_of(hand)
    assert result.termination is Termination.GIN
    assert result.winner == NON_DEALER
    assert result.seats[DEALER].deadwood == 0
    assert result.points == gin_bonus


def test_no_layoffs_against_gin():
    # AC would extend 2C-3C-4C, 4D would extend 5D-6D-7D-8D and 9D is the fourth
    # nine, but against gin the defender lays off nothing: AC 4D 9D KH = 24.
    hand = deal(KNOCKER_MELDS + " QD", "6H 7H 8H TC TD TS AC 4D 9D KH", "QC", "8D")
    opening_passes(hand)
    act(hand, "knock QD 2C-3C-4C 5D-6D-7D-8D 9C-9H-9S")
    # The hand is over at once: the defender gets no turn to lay off.
    assert hand.phase is Phase.OVER
    assert hand.current_seat() is None
    assert hand.legal_actions() == []
    result = result_of(hand)
    defender = result.seats[DEALER]
    assert defender.layoffs == ()
    assert defender.unmatched == cards("AC 4D 9D KH")
    assert defender.deadwood == 1 + 4 + 9 + 10
    assert result.points == 25 + 24


def test_knocking_is_never_compulsory():
    hand = knock_hand("3H", "KH")  # the non-dealer could knock with KD or 3H
    legal = hand.legal_actions()
    assert {a.card for a in legal if isinstance(a, Knock)} == set(cards("KD 3H"))
    assert {a.card for a in legal if isinstance(a, Discard)} == set(cards(KNOCKER_MELDS + " 3H KD"))
    act(hand, "discard KD")
    assert hand.result is None
    assert hand.phase is Phase.DRAW
    assert hand.current_seat() == DEALER


def test_knock_deadwood_is_that_of_the_declared_melds():
    # The knocker may lay down fewer melds than he could: his deadwood is what is
    # left unmatched by the melds he declares (here 9C 9H 9S 3H = 30 > 10: refused,
    # while the same discard with all three melds is a legal knock with 3).
    hand = knock_hand("3H", "KH")
    with pytest.raises(IllegalActionError, match="deadwood 30"):
        act(hand, "knock KD 2C-3C-4C 5D-6D-7D")
    act(hand, KNOCK)
    knock = hand.observation(DEALER).knock
    assert knock is not None
    assert knock.deadwood == 3


def test_deadwood_is_compared_after_layoffs_turning_a_knock_into_an_undercut():
    # Knocker: 4H-5H-6H 9C-9D-9S JC-QC-KC, deadwood AS = 1.  Defender: 2D-3D-4D
    # TD-TH-TS and 2H 3H 7H 8H (20) which all go on 4H-5H-6H: deadwood 0 <= 1.
    hand = deal("4H 5H 6H 9C 9D 9S JC QC KC AS", "2H 3H 7H 8H 2D 3D 4D TD TH TS", "2C", "KD")
    opening_passes(hand)
    act(hand, "knock KD 4H-5H-6H 9C-9D-9S JC-QC-KC")
    act(hand, "defend 2D-3D-4D TD-TH-TS | 2H>0 3H>0 7H>0 8H>0")
    result = result_of(hand)
    assert result.termination is Termination.UNDERCUT
    assert result.winner == DEALER
    assert result.seats[DEALER].deadwood == 0
    assert result.points == 1 - 0 + 25


def test_defender_lays_down_only_the_melds_he_declares():
    # Declaring no melds at all leaves all ten cards as deadwood.
    hand = knock_hand("3H", "KH")
    act(hand, KNOCK, Defend(()))
    result = result_of(hand)
    assert result.seats[DEALER].deadwood == 6 + 7 + 8 + 10 + 10 + 10 + 2 + 3 + 4 + 10
    assert result.points == 70 - 3
