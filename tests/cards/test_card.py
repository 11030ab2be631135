"""Card and CardSet: text forms, parsing errors, the set protocol, immutability.

Expected values are built here from the spec (RULES.md, Cards) rather than read
back from the code: the 52 names come from the rank and suit alphabets, and the
set operations are checked against Python's own ``frozenset``.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable

import pytest

from arena.cards import ALL_CARDS, Card, CardParseError, CardSet

RANK_LETTERS = "A23456789TJQK"
SUIT_LETTERS = "CDHS"
# Index order: clubs A..K, diamonds A..K, hearts A..K, spades A..K.
NAMES_IN_ORDER = [rank + suit for suit in SUIT_LETTERS for rank in RANK_LETTERS]
SPEC_VALUES = dict(zip(RANK_LETTERS, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10], strict=True))


def card(text: str) -> Card:
    return Card.parse(text)


# -- Card ------------------------------------------------------------------


def test_there_are_52_cards_named_by_rank_then_suit() -> None:
    assert [str(c) for c in ALL_CARDS] == NAMES_IN_ORDER
    assert len({str(c) for c in ALL_CARDS}) == 52


@pytest.mark.parametrize("name", NAMES_IN_ORDER)
def test_text_form_round_trips(name: str) -> None:
    parsed = Card.parse(name)
    assert str(parsed) == name
    assert Card.parse(str(parsed)) is parsed
    assert Card.parse(name.lower()) is parsed
    assert parsed.value == SPEC_VALUES[name[0]]
    assert RANK_LETTERS[parsed.rank] == name[0]
    assert SUIT_LETTERS[parsed.suit] == name[1]
    assert parsed.suit.letter == name[1]
    assert Card.of(parsed.rank, parsed.suit) is parsed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10h", "TH"),
        ("10H", "TH"),
        ("th", "TH"),
        ("10♠", "TS"),
        ("7♣", "7C"),
        ("7♦", "7D"),
        ("7♥", "7H"),
        ("7♠", "7S"),
        ("q♥", "QH"),
        ("as", "AS"),
        ("kd", "KD"),
        ("jC", "JC"),
        ("  9c ", "9C"),
    ],
)
def test_parse_accepts_the_input_forms(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "7",
        "H",
        "1H",  # no rank "1"
        "11H",
        "0H",
        "XH",
        "7X",
        "7HH",
        "HH",
        "77",
        "10",  # a rank with no suit
        "7 H",
        "7\u017f",  # the long s upper-cases to "S"; it is not a suit
        "Ah!",
        "T♤♠",
    ],
)
def test_parse_rejects_bad_text_naming_it(text: str) -> None:
    with pytest.raises(CardParseError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_parse_error_says_which_part_is_wrong() -> None:
    with pytest.raises(CardParseError, match="rank 'X'"):
        Card.parse("XH")
    with pytest.raises(CardParseError, match="suit 'X'"):
        Card.parse("7X")


@pytest.mark.parametrize("name", NAMES_IN_ORDER)
def test_repr_rebuilds_the_card(name: str) -> None:
    original = Card.parse(name)
    rebuilt = eval(repr(original), {"Card": Card})
    assert rebuilt == original
    assert rebuilt is original  # cards are interned


def test_cards_are_values_equal_hash_and_order_by_index() -> None:
    assert card("7h") == card("7H")
    assert hash(card("7h")) == hash(card("7H"))
    assert card("7H") != card("7D")
    assert len({card("7H"), card("7h"), card("7♥")}) == 1
    assert sorted(ALL_CARDS[::-1]) == list(ALL_CARDS)
    assert card("KC") < card("AD")  # clubs before diamonds


def test_card_constructor_bounds() -> None:
    assert str(Card(0)) == "AC"
    assert str(Card(51)) == "KS"
    for bad in (-1, 52, 100):
        with pytest.raises(ValueError, match=str(bad)):
            Card(bad)
    with pytest.raises(ValueError):
        Card.of(13, 0)
    with pytest.raises(ValueError):
        Card.of(0, 4)


def test_card_is_immutable() -> None:
    c = card("7H")
    with pytest.raises(AttributeError):
        c.rank = 3
    with pytest.raises(AttributeError):
        c.colour = "red"
    with pytest.raises(AttributeError):
        del c.rank
    assert str(c) == "7H"


def test_card_survives_pickle_and_copy_as_the_same_object() -> None:
    c = card("QS")
    assert pickle.loads(pickle.dumps(c)) is c
    assert copy.copy(c) is c
    assert copy.deepcopy(c) is c


# -- CardSet ---------------------------------------------------------------


def names(cards: CardSet) -> frozenset[str]:
    return frozenset(str(c) for c in cards)


def random_name_sets(count: int, seed: int) -> list[frozenset[str]]:
    rng = random.Random(seed)
    return [frozenset(rng.sample(NAMES_IN_ORDER, rng.randint(0, 20))) for _ in range(count)]


def as_cardset(names_: frozenset[str]) -> CardSet:
    return CardSet.parse(sorted(names_))


def test_set_operations_agree_with_frozenset() -> None:
    samples = [*random_name_sets(60, seed=7), frozenset(), frozenset(NAMES_IN_ORDER)]
    for a in samples:
        for b in samples[:20]:
            x, y = as_cardset(a), as_cardset(b)
            assert names(x | y) == a | b
            assert names(x & y) == a & b
            assert names(x - y) == a - b
            assert names(x ^ y) == a ^ b
            assert (x <= y) == (a <= b)
            assert (x < y) == (a < b)
            assert (x >= y) == (a >= b)
            assert (x > y) == (a > b)
            assert (x == y) == (a == b)
            assert x.isdisjoint(y) == a.isdisjoint(b)


def test_len_contains_bool_and_value() -> None:
    for a in random_name_sets(40, seed=11):
        x = as_cardset(a)
        assert len(x) == len(a)
        assert bool(x) == bool(a)
        for name in NAMES_IN_ORDER:
            assert (Card.parse(name) in x) == (name in a)
        assert x.value == sum(SPEC_VALUES[name[0]] for name in a)
    assert "7H" not in CardSet.parse("7H")  # only cards are members
    assert 7 not in CardSet.full()


def test_iteration_is_in_index_order() -> None:
    for a in random_name_sets(40, seed=13):
        x = as_cardset(a)
        assert [str(c) for c in x] == [n for n in NAMES_IN_ORDER if n in a]
    assert [str(c) for c in CardSet.full()] == NAMES_IN_ORDER
    assert list(CardSet()) == []


def test_sorted_by_rank_reads_rank_first() -> None:
    hand = CardSet.parse("KS 2H 2C AD KC")
    assert [str(c) for c in hand.sorted_by_rank()] == ["AD", "2C", "2H", "KC", "KS"]


def test_equality_and_hash() -> None:
    a = CardSet.parse("7H 8H 9H")
    b = CardSet.parse(["9h", "8♥", "7H"])
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b, CardSet.parse("7H 8H")}) == 2
    assert a != CardSet.parse("7H 8H")
    assert a != {card("7H"), card("8H"), card("9H")}
    assert CardSet() == CardSet.parse("")


def test_add_and_remove_return_new_sets() -> None:
    a = CardSet.parse("7H 8H")
    b = a.add(card("9H"))
    assert names(a) == {"7H", "8H"}
    assert names(b) == {"7H", "8H", "9H"}
    assert names(b.remove(card("7H"))) == {"8H", "9H"}
    with pytest.raises(KeyError, match="9H"):
        a.remove(card("9H"))


def test_cardset_is_immutable() -> None:
    a = CardSet.parse("7H 8H")
    with pytest.raises(AttributeError):
        a.mask = 0
    with pytest.raises(AttributeError):
        del a.mask
    with pytest.raises(AttributeError):
        a.extra = 1
    b = a
    b |= CardSet.parse("9H")  # rebinding, not mutation
    assert names(a) == {"7H", "8H"}
    assert names(b) == {"7H", "8H", "9H"}


@pytest.mark.parametrize(
    "operation",
    [
        lambda s: s | {card("7H")},
        lambda s: s & 3,
        lambda s: s - [card("7H")],
        lambda s: s ^ frozenset(),
        lambda s: s <= 3,
        lambda s: s < "7H",
        lambda s: s >= 0,
        lambda s: s > None,
    ],
)
def test_operations_with_other_types_raise_type_error(
    operation: Callable[[CardSet], object],
) -> None:
    with pytest.raises(TypeError):
        operation(CardSet.parse("7H"))


def test_mask_bounds() -> None:
    assert len(CardSet((1 << 52) - 1)) == 52
    for bad in (-1, 1 << 52):
        with pytest.raises(ValueError):
            CardSet(bad)


def test_parse_separators_and_lists() -> None:
    expected = {"7H", "8H", "9H", "TH"}
    assert names(CardSet.parse("7H 8H 9H TH")) == expected
    assert names(CardSet.parse("7h,8h, 9h  10h")) == expected
    assert names(CardSet.parse(["7♥", "8♥", "9♥", "10♥"])) == expected
    assert CardSet.parse("  ") == CardSet()


@pytest.mark.parametrize(
    ("text", "duplicate"),
    [("7H 7H", "7H"), ("7h 8H 7H", "7H"), ("TH 2C 10h", "TH"), ("A♠ 2S as", "AS")],
)
def test_parse_rejects_duplicates_naming_the_card(text: str, duplicate: str) -> None:
    with pytest.raises(CardParseError, match=duplicate):
        CardSet.parse(text)
    with pytest.raises(CardParseError, match=duplicate):
        CardSet.of(Card.parse(word) for word in text.split())


def test_parse_rejects_a_bad_card_naming_it() -> None:
    with pytest.raises(CardParseError, match="'ZZ'"):
        CardSet.parse("7H ZZ 9H")


def test_repr_and_str() -> None:
    for a in [*random_name_sets(20, seed=17), frozenset()]:
        x = as_cardset(a)
        assert eval(repr(x), {"CardSet": CardSet}) == x
        assert str(x) == " ".join(n for n in NAMES_IN_ORDER if n in a)


def test_cardset_survives_pickle_and_copy() -> None:
    a = CardSet.parse("AC 7H KS")
    for clone in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
        assert clone == a
        assert names(clone) == {"AC", "7H", "KS"}
