"""Rule 11 (and RULES.md Cards): the ace is low, or with ``ace=high`` high or low,
never both in one run: K-A-2 is never a run."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.games.base import IllegalActionError
from arena.games.rummy import STANDARD, Ace, LayMeld, LayOff, RummyHand, RummyRules

from .helpers import act, card, cards, deal

ACE_HIGH = replace(STANDARD, ace=Ace.HIGH)
SEAT0 = "4D 5D 7D 8C 9C JD QD KD 2S 3S"
SEAT1 = "QH KH AH 2H 3H 7C 7S 9S TS 5C"


def ace_hand(rules: RummyRules = STANDARD, stock: str = "AS") -> RummyHand:
    return deal([SEAT0, SEAT1], "6C", stock, rules=rules)


def test_ace_low_by_default() -> None:
    hand = ace_hand()
    act(hand, "draw stock")
    legal = hand.legal_actions()
    assert LayMeld(cards("AH 2H 3H")) in legal
    assert LayMeld(cards("QH KH AH")) not in legal
    with pytest.raises(IllegalActionError, match="ace is low in these rules") as error:
        act(hand, "meld QH-KH-AH")
    assert "K-A-2 never" in error.value.rule
    act(hand, "meld AH-2H-3H")
    assert str(hand.table[0]) == "AH-2H-3H"


def test_ace_high_option_allows_q_k_a() -> None:
    hand = ace_hand(ACE_HIGH)
    act(hand, "draw stock")
    legal = hand.legal_actions()
    assert LayMeld(cards("QH KH AH")) in legal
    assert LayMeld(cards("AH 2H 3H")) in legal
    act(hand, "meld AH-QH-KH")
    assert str(hand.table[0]) == "QH-KH-AH"  # runs read low to high


@pytest.mark.parametrize("rules", [STANDARD, ACE_HIGH])
def test_k_a_2_is_never_a_run(rules: RummyRules) -> None:
    hand = ace_hand(rules)
    act(hand, "draw stock")
    assert LayMeld(cards("KH AH 2H")) not in hand.legal_actions()
    assert LayMeld(cards("QH KH AH 2H")) not in hand.legal_actions()
    with pytest.raises(IllegalActionError, match="K-A-2 is never a run"):
        act(hand, "meld KH-AH-2H")
    with pytest.raises(IllegalActionError, match="K-A-2 is never a run"):
        act(hand, "meld QH-KH-AH-2H-3H")


def test_ace_high_layoff_on_the_high_end() -> None:
    hand = deal([SEAT0, "JH QH KH 2C 3C 4C 7C 7S 9S TS"], "6C", "AH 8D", rules=ACE_HIGH)
    act(hand, "draw stock", "meld JH-QH-KH", "layoff AH>0")
    assert str(hand.table[0]) == "JH-QH-KH-AH"
    # Nothing goes past the ace: K-A-2 never.
    assert all(not isinstance(a, LayOff) or a.meld_id != 0 for a in hand.legal_actions())


def test_ace_low_layoff_only_on_the_low_end() -> None:
    hand = deal([SEAT0, "JH QH KH 2H 3H 4H 7C 7S 9S TS"], "6C", "AH 8D")
    act(hand, "draw stock", "meld JH-QH-KH", "meld 2H-3H-4H")
    legal = hand.legal_actions()
    assert LayOff(card("AH"), 1) in legal
    assert LayOff(card("AH"), 0) not in legal
    with pytest.raises(IllegalActionError, match="does not extend meld #0"):
        act(hand, "layoff AH>0")
    act(hand, "layoff AH>1")
    assert str(hand.table[1]) == "AH-2H-3H-4H"


def test_ace_high_run_with_a_low_ace_takes_no_king() -> None:
    hand = deal([SEAT0, "AH 2H 3H KH 5C 6D 7C 7S 9S TS"], "6C", "8D", rules=ACE_HIGH)
    act(hand, "draw stock", "meld AH-2H-3H")
    assert LayOff(card("KH"), 0) not in hand.legal_actions()
    with pytest.raises(IllegalActionError, match="does not extend"):
        act(hand, "layoff KH>0")


def test_thirteen_card_run_takes_its_ace_at_one_end_only() -> None:
    """Ace high: 2..K takes an ace (low or high: the same card), then nothing more."""
    hands = {0: "2H 3H 4H 5H 6H 7H 8H 9H 5S 6S", 1: "TH JH QH KH AH 2S 3S 4S 7D 9D"}
    hand = deal(hands, "QC", "KC 8D", rules=ACE_HIGH, dealer=1)
    act(hand, "draw stock", "meld 2H-3H-4H-5H-6H-7H-8H-9H", "discard KC")
    act(hand, "draw stock", "layoff TH>0", "layoff JH>0", "layoff QH>0", "layoff KH>0")
    offers = [a for a in hand.legal_actions() if isinstance(a, LayOff)]
    assert offers == [LayOff(card("AH"), 0)]
    act(hand, "layoff AH>0")
    assert str(hand.table[0]).startswith("AH-2H")
    assert len(hand.table[0].cards) == 13
