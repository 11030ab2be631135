"""Differential test: our meld search against OpenSpiel's gin_rummy utilities.

OpenSpiel (the ``pyspiel`` module from the ``open-spiel`` package) is only a
reference here; the whole module is skipped when it is not installed.

What is compared, on hands drawn with a fixed seed:

* 10-card hands: ``min_deadwood`` (and ``deadwood_of_mask``) against OpenSpiel's
  ``GinRummyUtils.min_deadwood``.
* 11-card hands: the knock-eligible discards (those that leave deadwood <= the
  knock limit of 10) and the deadwood each leaves, against OpenSpiel's
  ``GinRummyUtils.legal_discards`` with each remaining 10-card hand scored by its
  10-card ``min_deadwood``.

OpenSpiel's own 11-card ``min_deadwood`` (which picks the best meld group first
and only then drops the highest deadwood card) is deliberately not used: it can
overstate the deadwood of an 11-card hand.  Layoffs are not compared either.

Half of each batch is uniformly random; the other half is "meld-rich": built from
a few runs and sets, many of them anchored on a card already in the hand, so
that a card often belongs both to a possible set and to a possible run.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

pyspiel = pytest.importorskip(
    "pyspiel",
    reason="[openspiel] OpenSpiel is not installed (pip install open-spiel); differential test skipped",
)

from arena.cards.card import Card, CardSet  # noqa: E402
from arena.cards.melds import deadwood_of_mask, knock_discards, min_deadwood  # noqa: E402

KNOCK_LIMIT = 10
SEED = 20240611
HANDS_PER_KIND = 10_000  # per (size, random/meld-rich) batch: 20,000 per hand size


def to_openspiel(index: int) -> int:
    """Our card index (suits C, D, H, S) -> OpenSpiel's (suits s, c, d, h).

    Both use ``suit * 13 + rank`` with rank 0 = ace .. 12 = king; only the suit
    order differs: our suit s is OpenSpiel's suit (s + 1) % 4.
    """
    return (index + 13) % 52


def from_openspiel(index: int) -> int:
    return (index + 39) % 52


@pytest.fixture(scope="module")
def utils() -> Any:
    return pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)  # ranks, suits, hand size


# --- hand generators ----------------------------------------------------------


def random_hand(rng: random.Random, size: int) -> list[int]:
    return rng.sample(range(52), size)


def _random_meld(rng: random.Random, anchor: int | None) -> list[int]:
    """A set or run (as card indices), through ``anchor`` when one is given."""
    make_set = rng.random() < 0.5
    if make_set:
        rank = anchor % 13 if anchor is not None else rng.randrange(13)
        size = rng.choice((3, 3, 4))
        suits = list(range(4))
        rng.shuffle(suits)
        if anchor is not None:
            suits.remove(anchor // 13)
            suits.insert(0, anchor // 13)
        return [s * 13 + rank for s in suits[:size]]
    length = rng.choice((3, 3, 4, 4, 5, 6))
    if anchor is not None:
        suit, rank = divmod(anchor, 13)
        start = rng.randint(max(0, rank - length + 1), min(rank, 13 - length))
    else:
        suit = rng.randrange(4)
        start = rng.randint(0, 13 - length)
    return [suit * 13 + r for r in range(start, start + length)]


def meld_rich_hand(rng: random.Random, size: int) -> list[int]:
    """Mostly melded cards (often overlapping sets and runs), low-biased filler."""
    melded_target = rng.randint(size - 4, size)
    cards: list[int] = []
    held: set[int] = set()
    while len(cards) < melded_target:
        anchor = rng.choice(cards) if cards and rng.random() < 0.7 else None
        meld = _random_meld(rng, anchor)
        for card in meld:
            if card not in held and len(cards) < melded_target:
                held.add(card)
                cards.append(card)
    while len(cards) < size:
        # Mostly low cards, which keep the deadwood small enough to knock.
        low = rng.random() < 0.6
        card = rng.randrange(4) * 13 + rng.randrange(4) if low else rng.randrange(52)
        if card not in held:
            held.add(card)
            cards.append(card)
    rng.shuffle(cards)
    return cards


def hands(kind: str, size: int) -> list[list[int]]:
    gen: Callable[[random.Random, int], list[int]] = (
        random_hand if kind == "random" else meld_rich_hand
    )
    rng = random.Random(f"{SEED}-{kind}-{size}")
    return [gen(rng, size) for _ in range(HANDS_PER_KIND)]


def fmt_discards(discards: dict[int, int]) -> str:
    return "{" + ", ".join(f"{Card(i)}: {discards[i]}" for i in sorted(discards)) + "}"


def fail_report(title: str, mismatches: list[str], total: int) -> str:
    shown = "\n  ".join(mismatches[:10])
    return f"{title}: {len(mismatches)} of {total} hands disagree with OpenSpiel, e.g.\n  {shown}"


# --- tests --------------------------------------------------------------------


def test_card_encoding_matches_openspiel(utils: Any) -> None:
    for card in map(Card, range(52)):
        theirs = utils.card_string(to_openspiel(card.index))
        assert theirs.upper() == str(card), (card, theirs)
        assert from_openspiel(to_openspiel(card.index)) == card.index


def test_known_hands(utils: Any) -> None:
    """A few hand-checked hands, to make sure both sides read the cards the same way."""
    cases = {
        "AC 2C 3C 4D 4H 4S 9D TD JD KS": 10,  # run, set, run; KS left over
        "7C 7D 7H 8H 9H 5S 6S 7S AD 2D": 14,  # 7C 7D 7S + 7H 8H 9H; 5S 6S AD 2D left
        "AC AD AH AS 2C 3C 2D 3D KH QH": 22,  # two A-2-3 runs beat any set of aces
        "8C 8D 8H 6H 7H 9H TH 4S 4D 4C": 16,  # 8H belongs in the run, not the set
        "AC 2C 3C 4C 5C 6C 7C 8C 9C TC": 0,  # one ten-card run
    }
    for text, expected in cases.items():
        hand = CardSet.parse(text)
        theirs = utils.min_deadwood([to_openspiel(c.index) for c in hand])
        assert theirs == expected, (text, theirs)
        assert min_deadwood(hand) == expected, text


@pytest.mark.parametrize("kind", ["random", "meld_rich"])
def test_min_deadwood_10_cards(utils: Any, kind: str) -> None:
    batch = hands(kind, 10)
    mismatches: list[str] = []
    for cards in batch:
        hand = CardSet.of(Card(i) for i in cards)
        ours = min_deadwood(hand)
        by_mask = deadwood_of_mask(hand.mask)
        theirs = utils.min_deadwood([to_openspiel(i) for i in cards])
        if ours != theirs or by_mask != theirs:
            mismatches.append(
                f"{hand}: ours min_deadwood={ours} deadwood_of_mask={by_mask}, OpenSpiel={theirs}"
            )
    assert not mismatches, fail_report(f"10-card min deadwood ({kind})", mismatches, len(batch))


def openspiel_knock_discards(utils: Any, cards: list[int]) -> dict[int, int]:
    """OpenSpiel's knock-eligible discards of an 11-card hand -> deadwood left (our indices)."""
    os_hand = [to_openspiel(i) for i in cards]
    result: dict[int, int] = {}
    for discard in utils.legal_discards(os_hand, KNOCK_LIMIT):
        rest = [c for c in os_hand if c != discard]
        result[from_openspiel(discard)] = utils.min_deadwood(rest)
    return result


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["random", "meld_rich"])
def test_knock_discards_11_cards(utils: Any, kind: str) -> None:
    batch = hands(kind, 11)
    mismatches: list[str] = []
    with_discard = 0
    for cards in batch:
        hand = CardSet.of(Card(i) for i in cards)
        ours = {
            card.index: deadwood for card, deadwood in knock_discards(hand, KNOCK_LIMIT).items()
        }
        theirs = openspiel_knock_discards(utils, cards)
        with_discard += bool(theirs)
        if ours != theirs:
            mismatches.append(
                f"{hand}: ours {fmt_discards(ours)}, OpenSpiel {fmt_discards(theirs)}"
            )
    assert not mismatches, fail_report(f"11-card knock discards ({kind})", mismatches, len(batch))
    fraction = with_discard / len(batch)
    print(f"11-card {kind}: {with_discard}/{len(batch)} hands ({fraction:.1%}) can knock")
    if kind == "meld_rich":
        # Not vacuous: a good share of the meld-rich hands must be able to knock.
        assert fraction >= 0.3, f"only {fraction:.1%} of meld-rich 11-card hands can knock"
