"""Property tests: the meld search against a brute force written here from the rules.

The brute force knows nothing of masks or tables: it lists every meld the hand
contains (every 3- and 4-card subset of a rank, every stretch of 3+ consecutive
ranks in a suit, ace low) and searches all sets of disjoint melds.  It is slow,
which is why it is only used on hands of at most a dozen or so cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.cards import (
    ALL_CARDS,
    Card,
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

RANKS = "A23456789TJQK"
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

BruteMeld = frozenset[str]


# -- the brute force ------------------------------------------------------------


def value(name: str) -> int:
    return min(RANKS.index(name[0]) + 1, 10)


def is_set(names: Iterable[str]) -> bool:
    names = list(names)
    return 3 <= len(names) <= 4 and len({name[0] for name in names}) == 1


def is_run(names: Iterable[str]) -> bool:
    names = list(names)
    if len(names) < 3 or len({name[1] for name in names}) != 1:
        return False
    ranks = sorted(RANKS.index(name[0]) for name in names)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def all_melds(hand: frozenset[str]) -> list[BruteMeld]:
    melds: list[BruteMeld] = []
    for rank in RANKS:
        same = sorted(name for name in hand if name[0] == rank)
        for size in (3, 4):
            melds.extend(frozenset(group) for group in combinations(same, size))
    for suit in "CDHS":
        for low in range(13):
            for high in range(low + 3, 14):
                stretch = frozenset(RANKS[r] + suit for r in range(low, high))
                if not stretch <= hand:
                    break
                melds.append(stretch)
    return melds


def brute_best(hand: frozenset[str]) -> tuple[int, int]:
    """(least deadwood, fewest sets among arrangements with that deadwood)."""
    melds = all_melds(hand)

    @cache
    def search(left: frozenset[str]) -> tuple[int, int]:
        if not left:
            return (0, 0)
        first = min(left)  # this card is either unmatched or in one meld
        deadwood, sets = search(left - {first})
        best = (deadwood + value(first), sets)
        for meld in melds:
            if first in meld and meld <= left:
                deadwood, sets = search(left - meld)
                best = min(best, (deadwood, sets + is_set(meld)))
        return best

    return search(hand)


def brute_deadwood(hand: frozenset[str]) -> int:
    return brute_best(hand)[0]


def names_of(cards: Iterable[Card]) -> frozenset[str]:
    return frozenset(str(card) for card in cards)


# -- strategies ---------------------------------------------------------------

card_names = st.sampled_from([str(card) for card in ALL_CARDS])
random_hands = st.frozensets(card_names, max_size=11)


@st.composite
def meld_rich_hands(draw: st.DrawFn, max_size: int = 13) -> frozenset[str]:
    """A few runs and sets (often overlapping), plus a few loose cards."""
    hand: set[str] = set()
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            rank = draw(st.sampled_from(RANKS))
            suits = draw(st.sets(st.sampled_from("CDHS"), min_size=3, max_size=4))
            hand |= {rank + suit for suit in suits}
        else:
            suit = draw(st.sampled_from("CDHS"))
            length = draw(st.integers(3, 5))
            low = draw(st.integers(0, 13 - length))
            hand |= {RANKS[r] + suit for r in range(low, low + length)}
    hand |= draw(st.frozensets(card_names, max_size=3))
    ordered = sorted(hand)
    if len(ordered) > max_size:
        ordered = draw(st.permutations(ordered))[:max_size]
    return frozenset(ordered)


@st.composite
def eleven_card_hands(draw: st.DrawFn) -> frozenset[str]:
    base = draw(st.one_of(meld_rich_hands(max_size=11), random_hands))
    filler = draw(st.permutations([str(card) for card in ALL_CARDS]))
    hand = set(base)
    for name in filler:
        if len(hand) == 11:
            break
        hand.add(name)
    return frozenset(hand)


def to_cardset(names: frozenset[str]) -> CardSet:
    return CardSet.parse(sorted(names))


# -- the brute force checks itself on a few hands done by hand -----------------------


def test_brute_force_on_known_hands() -> None:
    assert brute_deadwood(frozenset(["7C", "7D", "7H", "8H", "9H"])) == 14
    assert brute_deadwood(frozenset(["QH", "KH", "AH"])) == 21
    assert brute_deadwood(frozenset(["AH", "2H", "3H"])) == 0
    assert brute_deadwood(frozenset(["7C", "7D", "7H", "7S", "5H", "6H"])) == 0
    assert brute_deadwood(frozenset()) == 0
    assert brute_best(frozenset(["7C", "7D", "7H", "8H", "9H", "TH"])) == (0, 1)
    # A tie: the set 5C-5D-5H leaves 4H 6H, the run 4H-5H-6H leaves 5C 5D.
    assert brute_best(frozenset(["5C", "5D", "5H", "4H", "6H"])) == (10, 0)


# -- properties ---------------------------------------------------------------


def check_against_brute_force(names: frozenset[str]) -> None:
    hand = to_cardset(names)
    expected, fewest_sets = brute_best(names)
    assert min_deadwood(hand) == expected
    assert deadwood_of_mask(hand.mask) == expected
    arrangement = best_arrangement(hand)
    used: set[str] = set()
    for meld in arrangement.melds:
        meld_names = names_of(meld.cards)
        assert meld_names <= names
        assert used.isdisjoint(meld_names)
        used |= meld_names
        if meld.kind is MeldKind.SET:
            assert is_set(meld_names)
        else:
            assert is_run(meld_names)
    assert names_of(arrangement.unmatched) == names - used
    assert arrangement.deadwood == sum(value(name) for name in names - used) == expected
    # Documented tie-break: among the best arrangements, the fewest sets.
    assert sum(meld.kind is MeldKind.SET for meld in arrangement.melds) == fewest_sets


@SETTINGS
@given(random_hands)
def test_min_deadwood_random_hands(names: frozenset[str]) -> None:
    check_against_brute_force(names)


@SETTINGS
@given(meld_rich_hands())
def test_min_deadwood_meld_rich_hands(names: frozenset[str]) -> None:
    check_against_brute_force(names)


@SETTINGS
@given(eleven_card_hands(), st.integers(0, 30))
def test_knock_discards_agree_with_brute_force(names: frozenset[str], limit: int) -> None:
    hand = to_cardset(names)
    expected = {}
    for name in names:
        deadwood = brute_deadwood(names - {name})
        if deadwood <= limit:
            expected[name] = deadwood
    got = knock_discards(hand, limit)
    assert {str(card): deadwood for card, deadwood in got.items()} == expected


@SETTINGS
@given(eleven_card_hands())
def test_knock_discards_at_the_standard_limit(names: frozenset[str]) -> None:
    got = {str(card): deadwood for card, deadwood in knock_discards(to_cardset(names), 10).items()}
    for name in names:
        deadwood = brute_deadwood(names - {name})
        assert (name in got) == (deadwood <= 10)
        if name in got:
            assert got[name] == deadwood


# -- layoffs against a brute force ------------------------------------------------


@st.composite
def knock_and_defender(draw: st.DrawFn) -> tuple[list[BruteMeld], frozenset[str]]:
    """Disjoint knocker melds, and a defender hand rich in cards that fit them."""
    melds: list[BruteMeld] = []
    taken: set[str] = set()
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            rank = draw(st.sampled_from(RANKS))
            suits = draw(st.sets(st.sampled_from("CDHS"), min_size=3, max_size=4))
            meld = frozenset(rank + suit for suit in suits)
        else:
            suit = draw(st.sampled_from("CDHS"))
            length = draw(st.integers(3, 6))
            low = draw(st.integers(0, 13 - length))
            meld = frozenset(RANKS[r] + suit for r in range(low, low + length))
        if meld.isdisjoint(taken):
            melds.append(meld)
            taken |= meld
    # Neighbours: the missing cards of each set, and cards near each run.
    near: set[str] = set()
    for meld in melds:
        some = next(iter(meld))
        if is_set(meld):
            near |= {some[0] + suit for suit in "CDHS"}
        else:
            ranks = [RANKS.index(name[0]) for name in meld]
            near |= {
                RANKS[r] + some[1] for r in range(min(ranks) - 3, max(ranks) + 4) if 0 <= r < 13
            }
    free = sorted(set(str(card) for card in ALL_CARDS) - taken)
    near_free = sorted(near - taken)
    defender = set(draw(st.permutations(near_free))[: draw(st.integers(0, 6))])
    for name in draw(st.permutations(free)):
        if len(defender) == 10:
            break
        defender.add(name)
    return melds, frozenset(defender)


def brute_layoffs(
    melds: list[BruteMeld], defender: frozenset[str]
) -> dict[frozenset[tuple[str, int]], int]:
    """Every assignment of defender cards to melds that leaves each meld a meld."""

    def fits_kind(name: str, meld: BruteMeld) -> bool:
        """Same rank as a set, or same suit as a run: the only cards worth trying."""
        some = next(iter(meld))
        return name[0] == some[0] if is_set(meld) else name[1] == some[1]

    candidates = sorted(name for name in defender if any(fits_kind(name, m) for m in melds))
    results: dict[frozenset[tuple[str, int]], int] = {}

    def assign(i: int, chosen: list[tuple[str, int]]) -> None:
        if i == len(candidates):
            grown = [set(meld) for meld in melds]
            for name, index in chosen:
                grown[index].add(name)
            for before, after in zip(melds, grown, strict=True):
                if is_set(before) and not is_set(after):
                    return
                if is_run(before) and not is_run(after):
                    return
            kept = defender - {name for name, _ in chosen}
            results[frozenset(chosen)] = brute_deadwood(kept)
            return
        name = candidates[i]
        assign(i + 1, chosen)
        for index, meld in enumerate(melds):
            if fits_kind(name, meld):
                assign(i + 1, [*chosen, (name, index)])

    assign(0, [])
    return results


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(knock_and_defender())
def test_layoff_options_agree_with_brute_force(
    case: tuple[list[BruteMeld], frozenset[str]],
) -> None:
    brute_melds, defender_names = case
    melds = [Meld.of(to_cardset(meld)) for meld in brute_melds]
    defender = to_cardset(defender_names)
    expected = brute_layoffs(brute_melds, defender_names)
    options = layoff_options(melds, defender)
    got = {
        frozenset((str(layoff.card), layoff.meld_index) for layoff in layoffs): deadwood
        for layoffs, deadwood in options
    }
    assert len(got) == len(options)  # no way listed twice
    assert got == expected
    keys = [(deadwood, len(layoffs)) for layoffs, deadwood in options]
    assert keys == sorted(keys)
    # validate_layoffs accepts exactly these (in any order) ...
    for layoffs, _ in options:
        grown = validate_layoffs(melds, tuple(reversed(layoffs)))
        for meld, after in zip(melds, grown, strict=True):
            assert meld.cards <= after.cards
            assert after.kind is meld.kind
    # ... and rejects a defender card that fits no meld.
    for name in sorted(defender_names):
        if not any((frozenset({(name, i)}) in expected) for i in range(len(melds))):
            for index in range(len(melds)):
                try:
                    validate_layoffs(melds, [Layoff(Card.parse(name), index)])
                except InvalidMeldError as error:
                    assert name in str(error)
                else:
                    raise AssertionError(f"{name} laid off on meld {index}")
