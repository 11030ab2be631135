"""Meld search on hand-picked hands whose answers are worked out by hand.

Each expected deadwood is the sum of the card values written beside it (A=1,
J/Q/K=10), so a reader can check it without running anything.
"""

from __future__ import annotations

import pytest

from arena.cards import (
    Arrangement,
    Card,
    CardParseError,
    CardSet,
    InvalidMeldError,
    Layoff,
    Meld,
    MeldKind,
    best_arrangement,
    deadwood_of_mask,
    knock_discards,
    layoff_options,
    min_deadwood,
    validate_layoffs,
)


def cards(text: str) -> CardSet:
    return CardSet.parse(text)


def card(text: str) -> Card:
    return Card.parse(text)


def meld_texts(melds: tuple[Meld, ...] | list[Meld]) -> set[frozenset[str]]:
    return {frozenset(str(c) for c in meld.cards) for meld in melds}


def check_arrangement(hand: CardSet, arrangement: Arrangement) -> None:
    """Melds valid, disjoint, inside the hand; unmatched is the rest."""
    used = CardSet()
    for meld in arrangement.melds:
        assert Meld.of(meld.cards).kind is meld.kind
        assert meld.cards <= hand
        assert used.isdisjoint(meld.cards)
        used |= meld.cards
    assert arrangement.unmatched == hand - used
    assert arrangement.deadwood == sum(c.value for c in arrangement.unmatched)
    assert arrangement.deadwood == min_deadwood(hand)


# -- Meld.of ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("7C 7D 7H", MeldKind.SET),
        ("7C 7D 7H 7S", MeldKind.SET),
        ("AH 2H 3H", MeldKind.RUN),  # ace low
        ("JS QS KS", MeldKind.RUN),
        ("3D 4D 5D 6D 7D 8D 9D TD JD QD KD", MeldKind.RUN),
        ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", MeldKind.RUN),
        ("9h th jh", MeldKind.RUN),
    ],
)
def test_meld_of_accepts(text: str, kind: MeldKind) -> None:
    meld = Meld.of(text)
    assert meld.kind is kind
    assert meld.cards == cards(text)
    assert Meld.of(list(cards(text))) == meld
    assert Meld.of(cards(text)) == meld


@pytest.mark.parametrize(
    "text",
    [
        "",
        "7H",
        "7H 8H",  # too short
        "7C 7D",
        "QH KH AH",  # ace is low only
        "KH AH 2H",  # no wrapping
        "JH QH KH AH",
        "3H 4H 6H",  # a gap
        "3H 4H 5S",  # two suits
        "7C 7D 8C",
        "7C 7D 7H 8H",  # a set and a run mixed
        "2C 3D 4H",
    ],
)
def test_meld_of_rejects(text: str) -> None:
    with pytest.raises(InvalidMeldError, match="not a meld"):
        Meld.of(text)


def test_meld_of_rejects_a_repeated_card() -> None:
    with pytest.raises(CardParseError, match="7H"):
        Meld.of([card("7H"), card("8H"), card("7H")])


def test_meld_text_form() -> None:
    assert str(Meld.of("9H 7H 8H")) == "7H-8H-9H"
    assert str(Meld.of("7S 7C 7H")) == "7C-7H-7S"


# -- deadwood and arrangements on hand-picked hands -------------------------


@pytest.mark.parametrize(
    ("hand", "deadwood", "melds"),
    [
        # Four 7s and 5H 6H: the set of three (7C 7D 7S) and the run 5H-6H-7H.
        ("7C 7D 7H 7S 5H 6H", 0, {"7C 7D 7S", "5H 6H 7H"}),
        # Four 7s and 8H 9H: the run takes 7H, the set keeps the other three.
        ("7C 7D 7H 7S 8H 9H", 0, {"7C 7D 7S", "7H 8H 9H"}),
        # 7H is in the set or the run, not both: run 7H-8H-9H leaves 7C 7D = 14;
        # the set 7C-7D-7H would leave 8H 9H = 17.
        ("7C 7D 7H 8H 9H", 14, {"7H 8H 9H"}),
        # Same shape with a cheap run: the set leaves 2H 3H = 5, the run 4C 4D = 8.
        ("4C 4D 4H 2H 3H", 5, {"4C 4D 4H"}),
        # A tie, 10 either way (set leaves 4H 6H, run leaves 5C 5D): the run,
        # as best_arrangement prefers the fewest sets.
        ("5C 5D 5H 4H 6H", 10, {"4H 5H 6H"}),
        # Q-K-A is not a run: 10 + 10 + 1.
        ("QH KH AH", 21, set()),
        ("KS AS 2S", 13, set()),
        ("AH 2H 3H", 0, {"AH 2H 3H"}),
        # A-2-3-4 of clubs, and K Q of spades left over: 20.
        ("AC 2C 3C 4C QS KS", 20, {"AC 2C 3C 4C"}),
        # Two sets sharing nothing, 5 unmatched: 5.
        ("9C 9D 9H KC KD KS 5H", 5, {"9C 9D 9H", "KC KD KS"}),
        # A run of 4 that gives up its end card to a set: 3S 4S 5S + 6C 6D 6S.
        ("3S 4S 5S 6S 6C 6D", 0, {"3S 4S 5S", "6C 6D 6S"}),
        # Six in a row: all melded (one run or two, either way no deadwood).
        ("4D 5D 6D 7D 8D 9D", 0, None),
        ("", 0, set()),
        ("KD", 10, set()),
    ],
)
def test_hand_picked_arrangements(hand: str, deadwood: int, melds: set[str] | None) -> None:
    held = cards(hand)
    assert min_deadwood(held) == deadwood
    assert deadwood_of_mask(held.mask) == deadwood
    arrangement = best_arrangement(held)
    check_arrangement(held, arrangement)
    if melds is not None:
        assert meld_texts(arrangement.melds) == {frozenset(m.split()) for m in melds}


def test_a_ten_card_hand_with_every_kind_of_overlap() -> None:
    # 8C 8D 8H 8S with 6H 7H, 9S TS, and 2C 3C (5) that never meld:
    #   6H-7H-8H and 8S-9S-TS leave 8C 8D: 16 + 5
    #   6H-7H-8H and 8C-8D-8S leave 9S TS: 19 + 5
    #   8C-8D-8H-8S leaves 6H 7H 9S TS:    32 + 5
    #   8C-8D-8H and 8S-9S-TS leave 6H 7H: 13 + 5  <- the best
    hand = cards("8C 8D 8H 8S 6H 7H 9S TS 2C 3C")
    arrangement = best_arrangement(hand)
    check_arrangement(hand, arrangement)
    assert arrangement.deadwood == 13 + 2 + 3
    assert meld_texts(arrangement.melds) == {
        frozenset({"8C", "8D", "8H"}),
        frozenset({"8S", "9S", "TS"}),
    }


def test_arrangement_of_checks_its_melds() -> None:
    hand = cards("7C 7D 7H 8H 9H KS")
    good = Arrangement.of(hand, [Meld.of("7H 8H 9H")])
    assert good.unmatched == cards("7C 7D KS")
    assert good.deadwood == 24
    with pytest.raises(InvalidMeldError, match="two melds"):
        Arrangement.of(hand, [Meld.of("7C 7D 7H"), Meld.of("7H 8H 9H")])
    with pytest.raises(InvalidMeldError, match="not in hand"):
        Arrangement.of(hand, [Meld.of("9H TH JH")])
    with pytest.raises(InvalidMeldError, match="not a run"):
        Arrangement.of(hand, [Meld(cards("7C 7D 7H"), MeldKind.RUN)])
    with pytest.raises(InvalidMeldError, match="not a set"):
        Arrangement.of(hand, [Meld(cards("7H 8H KS"), MeldKind.SET)])


# -- knock_discards ---------------------------------------------------------


def test_knock_discards_gin_and_near_gin() -> None:
    # A-2-3-4 of clubs, three 5s, three 9s and KC.  Discarding KC leaves gin (0);
    # AC or 4C shortens the run to three cards and leaves KC (10); anything else
    # breaks a meld: 2C leaves AC 3C 4C KC (18), a 5 or a 9 leaves two of a kind.
    hand = cards("AC 2C 3C 4C 5D 5H 5S 9D 9H 9S KC")
    expected = {card("KC"): 0, card("AC"): 10, card("4C"): 10}
    assert knock_discards(hand, 10) == expected
    assert knock_discards(hand, 9) == {card("KC"): 0}
    assert knock_discards(hand, 0) == {card("KC"): 0}


def test_knock_discards_two_high_cards() -> None:
    # Three melds and KH QS: throwing either high card leaves the other (10).
    hand = cards("AC 2C 3C 4D 5D 6D 7S 7H 7C KH QS")
    assert knock_discards(hand, 10) == {card("KH"): 10, card("QS"): 10}
    assert knock_discards(hand, 9) == {}


def test_knock_discards_when_a_meld_card_is_best_thrown() -> None:
    # 2S-3S-4S-5S, 6C 6D 6H, JC JD JH, and 2D: deadwood 2 at eleven cards.
    # Throwing 2D is gin; throwing 2S or 5S keeps a three-card run and leaves 2D (2).
    hand = cards("2S 3S 4S 5S 6C 6D 6H JC JD JH 2D")
    assert knock_discards(hand, 10) == {card("2D"): 0, card("2S"): 2, card("5S"): 2}
    # Throwing 4S leaves 2S 3S 5S 2D (12), 3S leaves 2S 4S 5S 2D (13), a six
    # leaves two sixes and 2D (14), a jack two jacks and 2D (22).
    assert knock_discards(hand, 14) == {
        card("2D"): 0,
        card("2S"): 2,
        card("5S"): 2,
        card("4S"): 12,
        card("3S"): 13,
        card("6C"): 14,
        card("6D"): 14,
        card("6H"): 14,
    }
    assert len(knock_discards(hand, 22)) == 11


def test_knock_discards_none_possible() -> None:
    hand = cards("AC 3D 5H 7S 9C JD KH 2S 4C 6D 8H")
    # Eleven ranks, no suit with three cards in a row: no meld at all.  The best
    # is to throw a 10-point card, leaving 1 + 3 + 5 + 7 + 9 + 10 + 2 + 4 + 6 + 8.
    assert min_deadwood(hand - cards("KH")) == 55
    assert knock_discards(hand, 10) == {}
    assert knock_discards(hand, 55) == {card("JD"): 55, card("KH"): 55}


# -- layoffs ----------------------------------------------------------------

SET_OF_SEVENS = Meld.of("7C 7D 7S")
RUN_OF_HEARTS = Meld.of("4H 5H 6H")
KNOCKER = (SET_OF_SEVENS, RUN_OF_HEARTS)


def option_texts(options: list[tuple[tuple[Layoff, ...], int]]) -> dict[frozenset[str], int]:
    return {frozenset(str(layoff) for layoff in layoffs): dw for layoffs, dw in options}


def test_layoff_fourth_card_on_a_set() -> None:
    defender = cards("7H KS QS JD 2C 9C TC 8D 3S AD")
    options = option_texts(layoff_options(KNOCKER, defender))
    # 7H goes on the sevens (index 0) or extends the hearts run (index 1).
    assert options.keys() == {frozenset(), frozenset({"7H>0"}), frozenset({"7H>1"})}
    # Without 7H: KS QS JD 2C 9C TC 8D 3S AD = 10+10+10+2+9+10+8+3+1 = 63.
    assert options[frozenset({"7H>0"})] == 63
    assert options[frozenset({"7H>1"})] == 63
    assert options[frozenset()] == 63 + 7


def test_layoff_run_extended_at_both_ends_and_chained() -> None:
    # 3H below the run; 7H and 8H above it (8H only after 7H); 2H below 3H.
    defender = cards("2H 3H 7H 8H KS QS JD 9C TC AD")
    options = option_texts(layoff_options(KNOCKER, defender))
    everything = frozenset({"2H>1", "3H>1", "7H>1", "8H>1"})
    assert everything in options
    assert options[everything] == 10 + 10 + 10 + 9 + 10 + 1
    assert frozenset({"3H>1", "7H>1"}) in options
    assert frozenset({"7H>0", "3H>1", "2H>1"}) in options
    # 8H cannot go on the run without 7H, nor 2H without 3H.
    assert frozenset({"8H>1"}) not in options
    assert frozenset({"2H>1"}) not in options
    assert frozenset({"7H>0", "8H>1"}) not in options
    # Each way is listed once, sorted by deadwood left, then by fewer layoffs.
    listed = layoff_options(KNOCKER, defender)
    assert len(listed) == len(options)
    keys = [(dw, len(layoffs)) for layoffs, dw in listed]
    assert keys == sorted(keys)
    assert set(listed[0][0]) == {
        Layoff(card("2H"), 1),
        Layoff(card("3H"), 1),
        Layoff(card("7H"), 1),
        Layoff(card("8H"), 1),
    }


def test_layoff_deadwood_counts_the_defenders_own_melds() -> None:
    # The defender's 8H 9H TH make a run of his own; laying 7H off on the
    # knocker's hearts still leaves 8H 9H TH as a meld.  7H could also be kept to
    # make 7H-8H-9H-TH: the deadwood is the same (the rest: KS QS = 20 + 2C 3D 4S).
    defender = cards("7H 8H 9H TH KS QS 2C 3D 4S AC")
    options = option_texts(layoff_options(KNOCKER, defender))
    rest = 10 + 10 + 2 + 3 + 4 + 1
    assert options[frozenset()] == rest
    assert options[frozenset({"7H>1"})] == rest
    # 7H, 8H, 9H and TH all chained onto the knocker's run.
    assert options[frozenset({"7H>1", "8H>1", "9H>1", "TH>1"})] == rest


def test_no_layoff_past_the_ends_of_a_suit() -> None:
    # A run ending at the king takes nothing above it (no K-A wrap), and a run
    # starting at the ace nothing below; a set of four takes nothing at all.
    melds = (Meld.of("7C 7D 7H 7S"), Meld.of("JS QS KS"), Meld.of("AD 2D 3D"))
    defender = cards("AS TS 4D KD 8C 6H 5C 9H 2C 3C")
    options = option_texts(layoff_options(melds, defender))
    assert options.keys() == {
        frozenset(),
        frozenset({"TS>1"}),
        frozenset({"4D>2"}),
        frozenset({"TS>1", "4D>2"}),
    }


def test_validate_layoffs_grows_the_melds() -> None:
    grown = validate_layoffs(
        KNOCKER,
        [Layoff(card("8H"), 1), Layoff(card("3H"), 1), Layoff(card("7H"), 1)],
    )
    assert grown[0] == SET_OF_SEVENS
    assert grown[1].cards == cards("3H 4H 5H 6H 7H 8H")
    assert grown[1].kind is MeldKind.RUN
    grown = validate_layoffs(KNOCKER, [Layoff(card("7H"), 0)])
    assert grown[0].cards == cards("7C 7D 7H 7S")
    assert grown[0].kind is MeldKind.SET
    assert validate_layoffs(KNOCKER, []) == KNOCKER


@pytest.mark.parametrize(
    ("layoffs", "named"),
    [
        (["8H>1"], "8H"),  # leaves a gap (7H missing)
        (["2H>1"], "2H"),  # gap below
        (["3H>0"], "3H"),  # not a seven
        (["7H>2"], "7H"),  # no meld #2
        (["7H>-1"], "7H"),
        (["7C>0"], "7C"),  # already on the table
        (["4H>1"], "4H"),
        (["7H>0", "7H>1"], "7H"),  # one card, two melds
        (["7H>1", "7H>1"], "7H"),
        (["3S>1"], "3S"),  # wrong suit for the run
        (["7H>1", "8S>1"], "8S"),
    ],
)
def test_validate_layoffs_rejects(layoffs: list[str], named: str) -> None:
    parsed = []
    for text in layoffs:
        card_text, _, index = text.partition(">")
        parsed.append(Layoff(card(card_text), int(index)))
    with pytest.raises(InvalidMeldError, match=named):
        validate_layoffs(KNOCKER, parsed)
