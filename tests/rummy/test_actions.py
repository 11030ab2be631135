"""Action text forms round-trip; bad text is an ``ActionParseError`` saying why."""

from __future__ import annotations

import pytest

from arena.games.rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    JOKER,
    ActionParseError,
    LayMeld,
    LayOff,
    SwapJoker,
    discard,
    parse_action,
    parse_card,
)

from .helpers import card, cards, natural


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("draw stock", DRAW_STOCK),
        ("draw discard", DRAW_DISCARD),
        ("discard 7H", discard(card("7H"))),
        ("discard JK", discard(JOKER)),
        ("meld 7C-7D-7S", LayMeld(cards("7C 7D 7S"))),
        ("meld 5H-6H-JK=7H", LayMeld(cards("5H 6H JK"), (None, None, natural("7H")))),
        ("meld 2C=2C-3C-4C", LayMeld(cards("2C 3C 4C"), (natural("2C"), None, None))),
        ("layoff 8H>3", LayOff(card("8H"), 3)),
        ("layoff JK=9H>12", LayOff(JOKER, 12, natural("9H"))),
        ("swap 7H>0", SwapJoker(natural("7H"), 0)),
    ],
)
def test_text_round_trip(text: str, action: object) -> None:
    assert parse_action(text) == action
    assert str(action) == text


def test_lenient_input() -> None:
    assert parse_action("DRAW Stock") == DRAW_STOCK
    assert parse_action("discard 10h") == discard(card("TH"))
    assert parse_action("meld 5♥-6♥-joker=7♥") == LayMeld(
        cards("5H 6H JK"), (None, None, natural("7H"))
    )
    assert parse_action("meld 7C 7D 7S") == LayMeld(cards("7C 7D 7S"))
    assert parse_card("jk") is JOKER
    assert str(JOKER) == "JK" and repr(JOKER) == "JOKER"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty action"),
        ("draw", "not an action"),
        ("draw deck", "not an action"),
        ("discard 1H", "unknown rank"),
        ("meld 7C-7D-JK=JK", "stands for a natural card"),
        ("layoff 8H", "expected CARD>MELD_ID"),
        ("layoff 8H>x", "expected CARD>MELD_ID"),
        ("swap JK>0", "natural card"),
        ("knock 7H", "not an action"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(ActionParseError, match=message):
        parse_action(text)


def test_stands_for_must_match_the_cards() -> None:
    with pytest.raises(ValueError, match="2 entries for 3 cards"):
        LayMeld(cards("5H 6H JK"), (None, natural("7H")))
