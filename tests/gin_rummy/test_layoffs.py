"""Layoffs (RULES.md Gin Rummy 5): the defender's cards on the knocker's melds.

The non-dealer knocks on his first turn (both refuse the upcard 2C, he draws KD
and knocks with it).  His melds, numbered as he declares them:

    #0 4H-5H-6H    #1 9C-9D-9S    #2 JC-QC-KC        deadwood AS = 1
"""

from __future__ import annotations

from arena.cards import Layoff
from arena.games.gin_rummy import Defend, Phase, Termination

from .helpers import DEALER, NON_DEALER, act, card, cards, deal, opening_passes

KNOCKER = "4H 5H 6H 9C 9D 9S JC QC KC AS"
KNOCK = "knock KD 4H-5H-6H 9C-9D-9S JC-QC-KC"


def knocked(defender: str, knocker: str = KNOCKER, knock: str = KNOCK):
    hand = deal(knocker, defender, "2C", "KD")
    opening_passes(hand)
    act(hand, knock)
    assert hand.phase is Phase.DEFEND
    assert hand.current_seat() == DEALER
    return hand


def layoff_sets(hand) -> set[frozenset[Layoff]]:
    return {frozenset(a.layoffs) for a in hand.legal_actions() if isinstance(a, Defend)}


def test_fourth_card_on_a_set():
    # Defender: TD-TH-TS 2D-3D-4D, unmatched 9H 7C 8S 3S = 27; 9H joins the nines.
    hand = knocked("9H TD TH TS 2D 3D 4D 7C 8S 3S")
    assert frozenset({Layoff(card("9H"), 1)}) in layoff_sets(hand)
    act(hand, "defend TD-TH-TS 2D-3D-4D | 9H>1")
    result = hand.result
    assert result.seats[DEALER].deadwood == 7 + 8 + 3
    assert result.seats[DEALER].unmatched == cards("7C 8S 3S")
    assert result.termination is Termination.KNOCK
    assert result.winner == NON_DEALER
    assert result.points == 18 - 1


def test_layoffs_are_optional():
    hand = knocked("9H TD TH TS 2D 3D 4D 7C 8S 3S")
    act(hand, "defend TD-TH-TS 2D-3D-4D")
    assert hand.result.seats[DEALER].deadwood == 9 + 7 + 8 + 3
    assert hand.result.points == 27 - 1


def test_chain_of_two_cards_at_one_end_of_a_run():
    # 8H fits only once 7H has extended 4H-5H-6H.  Unmatched 7H 8H 3S QS = 28.
    for order in ("7H>0 8H>0", "8H>0 7H>0"):  # the order of the layoffs does not matter
        hand = knocked("7H 8H TD TH TS 2D 3D 4D 3S QS")
        act(hand, f"defend TD-TH-TS 2D-3D-4D | {order}")
        result = hand.result
        assert result.seats[DEALER].deadwood == 3 + 10
        assert set(result.seats[DEALER].layoffs) == {Layoff(card("7H"), 0), Layoff(card("8H"), 0)}
        assert result.points == 13 - 1


def test_one_card_at_each_end_of_a_run():
    # 3H below and 7H above 4H-5H-6H.  Unmatched 3H 7H 8S QS = 28.
    hand = knocked("3H 7H TD TH TS 2D 3D 4D 8S QS")
    act(hand, "defend TD-TH-TS 2D-3D-4D | 3H>0 7H>0")
    assert hand.result.seats[DEALER].deadwood == 8 + 10
    assert hand.result.points == 18 - 1


def test_chains_at_both_ends_of_a_run():
    # 2H-3H below and 7H-8H above: 4H-5H-6H becomes 2H..8H.
    # Unmatched 2H 3H 7H 8H QS KS 5C = 45, after the layoffs QS KS 5C = 25.
    hand = knocked("2H 3H 7H 8H 2D 3D 4D QS KS 5C")
    chain = frozenset(Layoff(c, 0) for c in cards("2H 3H 7H 8H"))
    assert chain in layoff_sets(hand)
    act(hand, "defend 2D-3D-4D | 2H>0 8H>0 3H>0 7H>0")
    result = hand.result
    assert result.seats[DEALER].deadwood == 25
    assert result.points == 25 - 1


def test_card_that_fits_a_set_or_a_run_is_laid_off_only_once():
    # Knocker: #0 6H-7H-8H, #1 9C-9D-9S, #2 JC-QC-KC.  The defender's 9H extends
    # the run or completes the nines, not both.  Defender: 2D-3D-4D 5C-5D-5S,
    # unmatched 9H QS KH 8S = 37.
    knocker = "6H 7H 8H 9C 9D 9S JC QC KC AS"
    knock = "knock KD 6H-7H-8H 9C-9D-9S JC-QC-KC"
    defender = "9H 2D 3D 4D 5S 5C 5D QS KH 8S"
    nine = card("9H")
    hand = knocked(defender, knocker, knock)
    assert layoff_sets(hand) == {
        frozenset(),
        frozenset({Layoff(nine, 0)}),
        frozenset({Layoff(nine, 1)}),
    }
    for target in (0, 1):
        hand = knocked(defender, knocker, knock)
        act(hand, f"defend 2D-3D-4D 5C-5D-5S | 9H>{target}")
        assert hand.result.seats[DEALER].deadwood == 10 + 10 + 8
        assert hand.result.points == 28 - 1


def test_the_knocker_never_lays_off():
    # The knocker (non-dealer) holds no card to lay off anyway; what matters is
    # that after the knock only the defender acts, once, and the hand is over.
    hand = knocked("9H TD TH TS 2D 3D 4D 7C 8S 3S")
    assert all(isinstance(action, Defend) for action in hand.legal_actions())
    act(hand, "defend TD-TH-TS 2D-3D-4D | 9H>1")
    assert hand.phase is Phase.OVER
    assert hand.current_seat() is None
    assert hand.result.seats[NON_DEALER].layoffs == ()
    assert hand.result.seats[NON_DEALER].unmatched == cards("AS")
