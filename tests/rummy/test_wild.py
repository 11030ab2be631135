"""Rule 11: jokers or deuces wild; a wild card stands for a named card; the joker swap."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.games.base import IllegalActionError
from arena.games.rummy import (
    DEUCES,
    JOKER,
    JOKERS,
    STANDARD,
    WINNER_TAKES_ALL,
    EventKind,
    LayMeld,
    LayOff,
    RummyHand,
    SwapJoker,
    Wild,
)

from .helpers import act, card, cards, deal, hand_text, natural

SEAT0 = "7H 8D 9D KC KD KH AS 3S 5S 6C"
SEAT1 = "5H 6H JK 9C 9S JK 2C 4D TC QD"


def joker_hand(stock: str = "AD 7C 8C") -> RummyHand:
    return deal([SEAT0, SEAT1], "JC", stock, rules=JOKERS)


def test_a_joker_must_say_what_it_stands_for() -> None:
    hand = joker_hand()
    act(hand, "draw stock")
    with pytest.raises(IllegalActionError, match="say which card the joker stands for") as error:
        act(hand, "meld 5H-6H-JK")
    assert "wild card" in error.value.rule
    act(hand, "meld 5H-6H-JK=7H")
    meld = hand.table[0]
    assert meld.cards == (card("5H"), card("6H"), JOKER)
    assert meld.stands_for == (None, None, natural("7H"))
    assert str(meld) == "5H-6H-JK=7H"
    assert meld.naturals == cards("5H 6H 7H")


def test_a_joker_in_a_set_and_in_the_middle_of_a_run() -> None:
    hand = joker_hand()
    act(hand, "draw stock", "meld 9C-JK=9D-9S", "meld JK=4H-5H-6H")
    assert [str(m) for m in hand.table] == ["9C-JK=9D-9S", "JK=4H-5H-6H"]
    assert hand_text(hand, 1) == "2C TC AD 4D QD"


def test_listed_melds_use_one_wild_card() -> None:
    hand = joker_hand()
    act(hand, "draw stock")
    melds = {str(a) for a in hand.legal_actions() if isinstance(a, LayMeld)}
    assert {"meld JK=4H-5H-6H", "meld 5H-6H-JK=7H", "meld 9C-JK=9D-9S", "meld 9C-JK=9H-9S"} <= melds
    assert "meld 9C-9S-JK=9D" not in melds  # listed in canonical (suit) order
    assert all(str(m).count("JK") == 1 for m in melds)
    # Runs with a gap the joker fills: 2C .. 4C? no; AD-2C? no; TC-JK=JC-QC? no QC.
    assert "meld 5H-JK=6H-7H" not in melds


def test_two_jokers_in_one_meld_are_accepted() -> None:
    hand = joker_hand()
    act(hand, "draw stock", "meld 5H-JK=6H-JK=7H")
    # (5H-6H are both held: a joker may still stand for 6H)
    assert str(hand.table[0]) == "5H-JK=6H-JK=7H"


def test_lay_off_a_joker() -> None:
    hand = joker_hand()
    act(hand, "draw stock", "meld 5H-6H-JK=7H")
    legal = hand.legal_actions()
    assert LayOff(JOKER, 0, natural("4H")) in legal
    assert LayOff(JOKER, 0, natural("8H")) in legal
    act(hand, "layoff JK=8H>0")
    assert str(hand.table[0]) == "5H-6H-JK=7H-JK=8H"
    event = hand.events[-1]
    assert event.kind is EventKind.LAY_OFF and event.stands_for == card("8H")
    with pytest.raises(IllegalActionError, match="does not extend"):
        act(hand, "layoff 5H>0")


def test_joker_swap() -> None:
    """Seat 0 holds 7H: during its turn it swaps it for the joker standing for 7H."""
    hand = joker_hand()
    act(hand, "draw stock", "meld 5H-6H-JK=7H", "discard QD")
    act(hand, "draw stock")
    assert hand.legal_actions().count(SwapJoker(natural("7H"), 0)) == 1
    act(hand, "swap 7H>0")
    assert str(hand.table[0]) == "5H-6H-7H"
    assert JOKER in hand.hand_of(0)
    assert card("7H") not in hand.hand_of(0)
    assert hand.observation(1).seats[0].known == (JOKER,)  # everyone saw it taken
    event = hand.events[-1]
    assert (event.kind, event.card, event.wild) == (EventKind.SWAP_JOKER, card("7H"), JOKER)
    assert hand.observation(0).melded_this_hand
    # The swapped joker is the player's to use.
    act(hand, "meld KC-KD-KH-JK=KS")


def test_swap_needs_the_real_card_and_a_joker_standing_for_it() -> None:
    hand = joker_hand()
    act(hand, "draw stock", "meld 5H-6H-JK=7H", "discard QD", "draw stock")
    with pytest.raises(IllegalActionError, match="no wild card standing for 5H") as error:
        act(hand, "swap 5H>0")
    assert "swap" in error.value.rule
    act(hand, "discard 7C", "draw stock", "meld 9C-JK=9D-9S", "discard AD", "draw stock")
    with pytest.raises(IllegalActionError, match="no wild card standing for 9H"):
        act(hand, "swap 9H>1")  # the joker stands for 9D
    assert SwapJoker(natural("9D"), 1) in hand.legal_actions()
    act(hand, "swap 9D>1", "swap 7H>0")
    assert [str(m) for m in hand.table] == ["5H-6H-7H", "9C-9D-9S"]
    with pytest.raises(IllegalActionError, match="no wild card standing for 7H"):
        act(hand, "swap 7H>0")  # a natural card never leaves a meld


def test_joker_penalty_is_15() -> None:
    hand = deal(
        ["3C 4C 5C 6C 7D 7H 7S KH KS KD", "JK AC 5D TD JS QS KC 2H 3H 9H"],
        "QD",
        "AH",
        rules=replace(WINNER_TAKES_ALL, wild=Wild.JOKERS),
        dealer=1,
    )
    act(hand, "draw stock", "meld 3C-4C-5C-6C", "meld 7D-7H-7S", "meld KH-KS-KD", "discard AH")
    result = hand.result
    assert result is not None
    assert result.seats[1].penalty == 15 + 1 + 5 + 10 + 10 + 10 + 10 + 2 + 3 + 9


def test_no_wild_cards_without_the_option() -> None:
    hand = deal(["7H 8D 9D KC KD KH AS 3S 5S 6C", "5H 6H 2H 9C 9S 3D 2C 4D TC QD"], "JC", "AD")
    act(hand, "draw stock")
    with pytest.raises(IllegalActionError, match="2H is not a wild card in these rules"):
        act(hand, "meld 5H-6H-2H=7H")
    assert JOKER not in STANDARD.composition(2)


def test_deuces_wild() -> None:
    hand = deal(
        ["7H 8D 9D KC KD KH AS 3S 5S 6C", "5H 6H 2D 9C 9S 2C 3C 4C TC QD"],
        "JC",
        "AD 7C",
        rules=DEUCES,
    )
    act(hand, "draw stock")
    melds = {str(a) for a in hand.legal_actions() if isinstance(a, LayMeld)}
    assert "meld 5H-6H-2D=7H" in melds
    assert "meld 2C=2C-3C-4C" in melds  # a deuce in its own place names itself
    assert "meld 2D=AC-2C=2C-3C-4C" in melds
    act(hand, "meld 5H-6H-2D=7H", "meld 2C-3C-4C")  # naming nothing, a deuce is itself
    assert [str(m) for m in hand.table] == ["5H-6H-2D=7H", "2C=2C-3C-4C"]
    act(hand, "discard QD", "draw stock")
    # A deuce standing for itself is not swapped; the 2D for 7H is.
    offers = [a for a in hand.legal_actions() if isinstance(a, SwapJoker)]
    assert offers == [SwapJoker(natural("7H"), 0)]
    act(hand, "swap 7H>0")
    assert card("2D") in hand.hand_of(0)
    act(hand, "layoff 2D=8H>0")
    assert str(hand.table[0]) == "5H-6H-7H-2D=8H"


def test_jokers_do_not_make_deuces_wild() -> None:
    hand = joker_hand()
    act(hand, "draw stock")
    with pytest.raises(IllegalActionError, match="2C is not a wild card"):
        act(hand, "meld 9C-9S-2C=9H")


def test_two_decks_with_jokers() -> None:
    hands = {
        0: "AC 2C 3C 4C 5C 6C 8C 9C TC JC",
        1: "JK JK JK JK 5D 6D 8D 9D 7H 7H",
        2: "AS 2S 3S 4S 5S 6S 8S 9S TS JS",
        3: "AH 2H 3H 4H 5H 6H 8H 9H TH JH",
        4: "QC QD QH QS KC KD KH KS JD QC",
    }
    hand = deal(hands, "2D", "KS", rules=replace(JOKERS, jokers=4))  # 2 unless set
    act(hand, "draw stock", "meld 5D-6D-JK=7D", "meld 8D-9D-JK=TD", "meld JK=7C-7H-JK=7S")
    assert len(hand.table) == 3
    assert hand_text(hand, 1) == "7H KS"


def test_a_joker_completes_a_set_of_twins_and_is_offered_for_the_suits_it_lacks() -> None:
    hands = {
        0: "AC 2C 3C 4C 5C 6C 8C 9C TC JC",
        1: "JK JK 7H 7H 5D 6D 8D 9D 3D 4D",
        2: "AS 2S 3S 4S 5S 6S 8S 9S TS JS",
        3: "AH 2H 3H 4H 5H 6H 8H 9H TH JH",
        4: "QC QD QH QS KC KD KH KS JD QC",
    }
    hand = deal(hands, "2D", "KS", rules=JOKERS)  # two decks, two jokers in all
    act(hand, "draw stock")
    listed = {str(a) for a in hand.legal_actions() if isinstance(a, LayMeld)}
    assert {"meld JK=7C-7H-7H", "meld JK=7D-7H-7H", "meld 7H-7H-JK=7S"} <= listed
    act(hand, "meld 7H-7H-JK=7S")
    assert str(hand.table[0]) == "7H-7H-JK=7S"
    layoffs = {str(a) for a in hand.legal_actions() if isinstance(a, LayOff)}
    assert {a for a in layoffs if a.endswith(">0")} == {"layoff JK=7C>0", "layoff JK=7D>0"}
    act(hand, "layoff JK=7D>0")
    assert str(hand.table[0]) == "JK=7D-7H-7H-JK=7S"
