"""Rules 5-6: laying down melds, laying off on anyone's melds, going out."""

from __future__ import annotations

import pytest

from arena.cards import MeldKind
from arena.games.base import IllegalActionError
from arena.games.rummy import EventKind, LayMeld, LayOff, RummyHand, Termination

from .helpers import act, card, cards, deal, hand_text

SEAT1 = "3C 4C 5C 7D 7H 7S KH KS KD 9C"
SEAT0 = "AD 2D 3D 4S 5S 8H 9H TH QS JD"


def two_player_hand(stock: str = "2C JS 6C") -> RummyHand:
    return deal([SEAT0, SEAT1], "QD", stock)


def test_lay_down_a_set_and_a_run() -> None:
    hand = two_player_hand()
    act(hand, "draw stock", "meld 7D-7H-7S", "meld 2C-3C-4C-5C")
    first, second = hand.table
    assert (first.id, first.owner, first.kind, str(first)) == (0, 1, MeldKind.SET, "7D-7H-7S")
    assert (second.id, second.owner, second.kind, str(second)) == (
        1,
        1,
        MeldKind.RUN,
        "2C-3C-4C-5C",
    )
    assert hand_text(hand, 1) == "9C KD KH KS"
    laid = [e for e in hand.events if e.kind is EventKind.LAY_MELD]
    assert [e.meld for e in laid] == [first, second]
    assert hand.observation(0).table == hand.table
    assert hand.observation(1).melded_this_hand
    assert not hand.observation(0).melded_this_hand


def test_listed_melds_are_every_set_and_every_run() -> None:
    hand = deal(["AD 2D 3D 4S 5S 8H 9H TH QS JD", "7C 7D 7H 7S 3H 4H 5H 6H KC 9C"], "QD", "2C")
    act(hand, "draw stock")
    melds = {str(a) for a in hand.legal_actions() if isinstance(a, LayMeld)}
    sets = {"meld 7C-7D-7H", "meld 7C-7D-7S", "meld 7C-7H-7S", "meld 7D-7H-7S", "meld 7C-7D-7H-7S"}
    runs = {"meld 3H-4H-5H", "meld 4H-5H-6H", "meld 3H-4H-5H-6H"}
    runs |= {"meld 5H-6H-7H", "meld 4H-5H-6H-7H", "meld 3H-4H-5H-6H-7H"}
    assert melds == sets | runs


def test_a_meld_that_is_not_listed_is_still_accepted() -> None:
    """Listed runs and sets are all there are without wild cards; here the bot's
    order of cards differs from the listed one."""
    hand = two_player_hand()
    act(hand, "draw stock", "meld 5C-3C-2C-4C")
    assert str(hand.table[0]) == "2C-3C-4C-5C"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("meld 7D-7H", "at least 3 cards"),
        ("meld 7D-7H-KH", "neither one rank nor one suit"),
        ("meld 3C-4C-9C", "not consecutive"),
        ("meld 3C-4C-5C-7D", "neither one rank nor one suit"),
        ("meld 7D-7H-7C", "7C not in seat 1's hand"),
        ("meld 7D-7H-7S-7D", "7D only 1 in seat 1's hand"),
        ("meld 3C-3C-4C-5C", "two cards of a run"),
    ],
)
def test_invalid_melds(text: str, message: str) -> None:
    hand = two_player_hand()
    act(hand, "draw stock")
    with pytest.raises(IllegalActionError, match=message):
        act(hand, text)
    assert hand.table == ()
    assert len(hand.hand_of(1)) == 11  # nothing changed


FIVE_SEATS = {
    0: "AC 2C 3C 4C 5C 6C 8C 9C TC JC",
    1: "7H 7H 7S 7S 7D AD 3D 4D 5D 6D",
    2: "AS 2S 3S 4S 5S 6S 8S 9S TS JS",
    3: "AH 2H 3H 4H 5H 6H 8H 9H TH JH",
    4: "QC QD QH QS KC KD KH KS JD QC",
}


def test_a_set_ignores_suits_so_twins_make_a_set_with_two_decks() -> None:
    """Rule 1 (seed 004: "de cualquier palo"): with two decks 7H-7H-7S is a set,
    listed and accepted in any order of cards."""
    hand = deal(FIVE_SEATS, "2D", "KS")
    act(hand, "draw stock")
    listed = {str(a) for a in hand.legal_actions() if isinstance(a, LayMeld)}
    sevens = {m for m in listed if m.startswith("meld 7")}
    assert sevens == {
        "meld 7D-7H-7H", "meld 7D-7H-7S", "meld 7D-7S-7S", "meld 7H-7H-7S", "meld 7H-7S-7S",
        "meld 7D-7H-7H-7S", "meld 7D-7H-7S-7S", "meld 7H-7H-7S-7S",
    }  # fmt: skip
    act(hand, "meld 7H-7S-7H")
    assert str(hand.table[0]) == "7H-7H-7S"
    assert hand.table[0].kind is MeldKind.SET
    assert hand_text(hand, 1) == "AD 3D 4D 5D 6D 7D 7S KS"


def test_a_set_takes_any_card_of_its_rank_until_it_has_four() -> None:
    hand = deal(FIVE_SEATS, "2D", "KS")
    act(hand, "draw stock", "meld 7H-7H-7S")
    layoffs = {str(a) for a in hand.legal_actions() if isinstance(a, LayOff)}
    assert layoffs == {"layoff 7S>0", "layoff 7D>0"}  # a twin of a card on the set too
    act(hand, "layoff 7S>0")
    assert str(hand.table[0]) == "7H-7H-7S-7S"
    assert [a for a in hand.legal_actions() if isinstance(a, LayOff)] == []
    with pytest.raises(IllegalActionError, match="does not extend meld #0"):
        act(hand, "layoff 7D>0")


def test_a_set_has_at_most_four_cards() -> None:
    hand = deal(FIVE_SEATS, "2D", "KS")
    act(hand, "draw stock")
    with pytest.raises(IllegalActionError, match="a set has at most 4 cards"):
        act(hand, "meld 7H-7H-7S-7S-7D")
    assert hand.table == ()


def test_lay_off_on_another_players_meld_at_both_ends() -> None:
    hand = deal(
        ["2H 8H KC KD KS 3D 4D 5D 9S TS", "5H 6H 7H AC 2C 3C 9D JD QD JC"],
        "QS",
        "AS 3S",
    )
    act(hand, "draw stock", "meld 5H-6H-7H", "discard AS")
    act(hand, "draw stock")
    legal = hand.legal_actions()
    assert LayOff(card("8H"), 0) in legal
    assert LayOff(card("2H"), 0) not in legal  # not next to the run
    act(hand, "layoff 8H>0")
    assert str(hand.table[0]) == "5H-6H-7H-8H"
    assert hand.table[0].owner == 1  # laying off does not change the owner
    with pytest.raises(IllegalActionError, match="does not extend meld #0") as error:
        act(hand, "layoff 2H>0")
    assert "never rearranged" in error.value.rule
    event = hand.events[-1]
    assert event.kind is EventKind.LAY_OFF and event.seat == 0 and event.card == card("8H")
    assert event.meld == hand.table[0]
    act(hand, "discard 3S")
    assert hand.result is None


def test_run_grows_at_the_low_end_and_a_set_takes_its_fourth_suit() -> None:
    hand = deal(
        ["4H KH 9C 3D 4D 5D 9S TS AS 2S", "5H 6H 7H KC KD KS 2C 3C JD QD"],
        "QS",
        "8C 7C",
    )
    act(hand, "draw stock", "meld 5H-6H-7H", "meld KC-KD-KS", "discard 8C")
    act(hand, "draw stock", "layoff 4H>0", "layoff KH>1")
    assert [str(m) for m in hand.table] == ["4H-5H-6H-7H", "KC-KD-KH-KS"]
    assert hand.table[1].kind is MeldKind.SET
    # A full set takes nothing more, a run nothing in its middle.
    assert [a for a in hand.legal_actions() if isinstance(a, LayOff)] == []


def test_a_card_in_the_middle_of_a_run_is_no_layoff() -> None:
    """Two decks: the second 6H cannot join 5H-6H-7H (melds are never rearranged)."""
    hands = {
        0: "6H 2C 3C 4C 5C 8C 9C TC JC QC",
        1: "5H 6H 7H AD 3D 4D 5D 6D 8D 9D",
        2: "AS 2S 3S 4S 5S 6S 8S 9S TS JS",
        3: "AH 2H 3H 4H 8H 9H TH JH QH KH",
        4: "QS QD KS KC KD JD TD 7S 7C 7D",
    }
    hand = deal(hands, "2D", "KS AC 7H 7D")
    act(hand, "draw stock", "meld 5H-6H-7H", "discard KS")
    act(hand, "draw stock", "discard AC", "draw stock", "discard 7H", "draw stock", "discard 7D")
    act(hand, "draw stock")  # seat 0
    with pytest.raises(IllegalActionError, match="does not extend"):
        act(hand, "layoff 6H>0")
    with pytest.raises(IllegalActionError, match="no meld #5"):
        act(hand, "layoff 6H>5")


def test_going_out_by_discarding_the_last_card() -> None:
    hand = deal([SEAT0, "3C 4C 5C 6C 7D 7H 7S KH KS KD"], "QD", "AH")
    act(hand, "draw stock", "meld 3C-4C-5C-6C", "meld 7D-7H-7S", "meld KH-KS-KD")
    assert hand_text(hand, 1) == "AH"
    act(hand, "discard AH")
    result = hand.result
    assert result is not None
    assert result.winner == 1
    assert result.termination is Termination.RUMMY  # nothing laid before this turn
    assert hand.events[-1].kind is EventKind.HAND_OVER


def test_going_out_without_a_final_discard() -> None:
    hand = deal([SEAT0, "3C 4C 5C 6C 7D 7H 7S KH KS KD"], "QD", "7C")
    act(hand, "draw stock", "meld 3C-4C-5C-6C-7C", "meld 7D-7H-7S")
    assert not hand.is_terminal()
    act(hand, "meld KH-KS-KD")
    assert hand.result is not None and hand.result.winner == 1
    assert hand.current_seat() is None


def test_going_out_by_laying_off_the_last_card() -> None:
    hand = two_player_hand()
    act(hand, "draw stock", "meld 3C-4C-5C", "meld 7D-7H-7S", "meld KH-KS-KD", "discard 9C")
    act(hand, "draw stock", "discard JS")
    act(hand, "draw stock", "layoff 2C>0")
    assert not hand.is_terminal()
    act(hand, "layoff 6C>0")
    result = hand.result
    assert result is not None
    assert result.winner == 1
    assert result.termination is Termination.OUT  # melds laid in an earlier turn
    assert [str(layoff) for layoff in result.seats[1].layoffs] == ["layoff 2C>0", "layoff 6C>0"]
    assert [str(m) for m in result.seats[1].melds] == ["2C-3C-4C-5C-6C", "7D-7H-7S", "KD-KH-KS"]
    assert result.seats[1].hand == ()


def test_going_out_on_someone_elses_meld() -> None:
    hand2 = deal(
        ["4H 8H 9H TH 2D 3D 4D AS AC AH", "5H 6H 7H KC KD KS 2C 3C JD QD"],
        "QS",
        "8C AD",
    )
    act(hand2, "draw stock", "meld 5H-6H-7H", "meld KC-KD-KS", "discard 8C")
    act(hand2, "draw stock", "meld AS-AC-AH-AD", "meld 2D-3D-4D", "layoff 4H>0", "layoff 8H>0")
    act(hand2, "layoff 9H>0")
    assert hand_text(hand2, 0) == "TH"
    act(hand2, "layoff TH>0")
    assert hand2.result is not None and hand2.result.winner == 0
    assert str(hand2.table[0]) == "4H-5H-6H-7H-8H-9H-TH"
    assert hand2.table[0].owner == 1
    assert cards("4H 8H 9H TH") == tuple(lo.card for lo in hand2.result.seats[0].layoffs)
