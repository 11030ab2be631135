"""Rule 5: a turn is one draw, any melds and layoffs, one discard; the same-card rule."""

from __future__ import annotations

import pytest

from arena.games.base import IllegalActionError
from arena.games.rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    EventKind,
    LayMeld,
    Phase,
    RummyHand,
    discard,
    parse_action,
)

from .helpers import act, card, cards, deal, hand_text

# Seat 0 deals, seat 1 plays first.
SEAT1 = "3C 4C 5C 7D 7H 7S KH KS KD 9C"
SEAT0 = "AD 2D 3D 4S 5S 8H 9H TH QS JD"


def two_player_hand(upcard: str = "QD", stock: str = "2C JS 6C") -> RummyHand:
    return deal([SEAT0, SEAT1], upcard, stock)


def test_a_turn_is_draw_then_discard() -> None:
    hand = two_player_hand()
    assert hand.current_seat() == 1
    assert hand.observation(1).phase is Phase.DRAW
    assert hand.legal_actions() == [DRAW_STOCK, DRAW_DISCARD]
    act(hand, "draw stock")
    assert card("2C") in hand.hand_of(1)
    assert hand.observation(1).phase is Phase.PLAY
    act(hand, "discard 9C")
    assert hand.current_seat() == 0
    assert hand.phase is Phase.DRAW
    assert [str(c) for c in hand.discard_pile] == ["QD", "9C"]
    assert hand.turns == 1


def test_nothing_before_the_draw() -> None:
    hand = two_player_hand()
    for text in ("discard 9C", "meld 7D-7H-7S", "layoff 6C>0", "swap 7H>0"):
        with pytest.raises(IllegalActionError, match="must draw first") as error:
            act(hand, text)
        assert error.value.rule.startswith("rule 5")


def test_exactly_one_draw() -> None:
    hand = two_player_hand()
    act(hand, "draw stock")
    with pytest.raises(IllegalActionError, match="has drawn"):
        act(hand, "draw discard")
    assert all(not str(a).startswith("draw") for a in hand.legal_actions())


def test_draw_from_the_discard_pile_takes_its_top() -> None:
    hand = two_player_hand()
    act(hand, "draw discard")
    assert card("QD") in hand.hand_of(1)
    assert hand.discard_pile == ()
    assert hand.observation(1).forbidden_discard == card("QD")
    assert hand.observation(0).forbidden_discard is None  # shown to the seat to act only
    assert [str(c) for c in hand.observation(0).seats[1].known] == ["QD"]


def test_the_card_taken_from_the_discard_pile_may_not_be_discarded_this_turn() -> None:
    hand = two_player_hand()
    act(hand, "draw discard")
    assert discard(card("QD")) not in hand.legal_actions()
    with pytest.raises(IllegalActionError, match="taken from the discard pile this turn") as error:
        act(hand, "discard QD")
    assert "may not be discarded in the same turn" in error.value.rule
    act(hand, "discard 9C", "draw stock", "discard 2C", "draw stock")
    act(hand, "discard QD")  # a later turn: allowed
    assert hand.discard_pile[-1] == card("QD")


def test_same_card_rule_covers_the_identical_card_from_the_second_deck() -> None:
    hands = {
        0: "AC 2C 3C 4C 5C 6C 8C 9C TC JC",
        1: "7H AD 2D 3D 4D 5D 6D 8D 9D TD",
        2: "AS 2S 3S 4S 5S 6S 8S 9S TS JS",
        3: "AH 2H 3H 4H 5H 6H 8H 9H TH JH",
        4: "QC QD QH QS KC KD KH KS JD QC",
    }
    hand = deal(hands, "7H")
    assert hand.current_seat() == 1
    act(hand, "draw discard")
    assert hand_text(hand, 1).count("7H") == 2
    assert discard(card("7H")) not in hand.legal_actions()
    with pytest.raises(IllegalActionError, match="taken from the discard pile"):
        act(hand, "discard 7H")


def test_only_the_seat_to_act_may_act() -> None:
    hand = two_player_hand()
    with pytest.raises(IllegalActionError, match="seat 0 cannot draw stock: it is seat 1's turn"):
        hand.apply(DRAW_STOCK, 0)
    hand.apply(DRAW_STOCK, 1)


def test_discard_a_card_not_held() -> None:
    hand = two_player_hand()
    act(hand, "draw stock")
    with pytest.raises(IllegalActionError, match="cannot discard AS: not in seat 1's hand"):
        act(hand, "discard AS")
    with pytest.raises(IllegalActionError, match="no jokers"):
        act(hand, "meld 5H-6H-JK=7H")


def test_any_number_of_melds_then_one_discard() -> None:
    hand = two_player_hand()
    act(hand, "draw stock", "meld 3C-4C-5C", "meld 7D-7H-7S", "layoff 2C>0", "meld KH-KS-KD")
    assert hand.phase is Phase.PLAY and hand.current_seat() == 1
    assert hand_text(hand, 1) == "9C"
    # The last card must go by discard (or a layoff): the hand then ends.
    act(hand, "discard 9C")
    assert hand.result is not None and hand.result.winner == 1


def test_stock_draws_are_hidden_discard_draws_shown() -> None:
    hand = two_player_hand()
    act(hand, "draw stock", "discard 9C", "draw discard")
    kinds = [(e.kind, e.seat, None if e.card is None else str(e.card)) for e in hand.events]
    assert kinds == [
        (EventKind.UPCARD, None, "QD"),
        (EventKind.DRAW_STOCK, 1, None),
        (EventKind.DISCARD, 1, "9C"),
        (EventKind.DRAW_DISCARD, 0, "9C"),
    ]


def test_keep_a_card_to_discard_unless_going_out() -> None:
    """Taking 5S, seat 1 may not meld down to 5S alone (it could not be discarded),
    but may meld 5S with the others, going out."""
    hand = deal(
        ["AD 2D 3D 4H 5H 8H 9H TH QS JD", "7C 7D 7S 8C 9C TC JC 2S 3S 4S"],
        "5S",
    )
    act(hand, "draw discard", "meld 7C-7D-7S", "meld 8C-9C-TC-JC")
    assert LayMeld(cards("2S 3S 4S")) not in hand.legal_actions()
    with pytest.raises(IllegalActionError, match="only 5S, taken from the discard pile") as error:
        act(hand, "meld 2S-3S-4S")
    assert "keep a card" in error.value.rule
    assert LayMeld(cards("2S 3S 4S 5S")) in hand.legal_actions()
    act(hand, "meld 2S-3S-4S-5S")
    assert hand.result is not None and hand.result.winner == 1


def test_no_discard_draw_when_every_card_held_has_that_face() -> None:
    """Two decks: holding only 7H, a player may not take the other 7H from the pile:
    he could then discard nothing."""
    hands = {
        0: "AC 2C 3C 4C 5C 6C 8C 9C TC 7H",
        1: "7C 7D 7S 8C 8D 8S 9C 9D 9S 7H",
        2: "AS 2S 3S 4S 5S 6S 8S TS JS QS",
        3: "AH 2H 3H 4H 5H 6H 8H 9H TH JH",
        4: "QC QD QH KC KD KH KS JD JC AD",
    }
    hand = deal(hands, "2D", "KS QS QH QD QC")
    act(hand, "draw stock", "meld 7C-7D-7S", "meld 8C-8D-8S", "meld 9C-9D-9S", "discard KS")
    assert hand_text(hand, 1) == "7H"
    act(hand, "draw stock", "discard QS", "draw stock", "discard QH", "draw stock", "discard QD")
    act(hand, "draw stock", "discard 7H")  # seat 0
    assert hand.current_seat() == 1
    assert hand.legal_actions() == [DRAW_STOCK]
    with pytest.raises(IllegalActionError, match="every card in seat 1's hand would be 7H"):
        act(hand, "draw discard")


def test_no_action_once_the_hand_is_over() -> None:
    hand = two_player_hand()
    act(hand, "draw stock", "meld 3C-4C-5C", "meld 7D-7H-7S", "meld KH-KS-KD", "discard 9C")
    act(hand, "draw stock", "discard JS", "draw stock", "layoff 2C>0", "layoff 6C>0")
    assert hand.is_terminal()
    assert hand.current_seat() is None
    assert hand.legal_actions() == []
    with pytest.raises(IllegalActionError, match="the hand is over"):
        hand.apply(parse_action("draw stock"))
