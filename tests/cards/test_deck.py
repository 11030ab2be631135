"""Seeded decks: golden deals, the generator against SplitMix64's published outputs.

The golden decks below were produced once by running the code and pasted here: a
change to any of them means every recorded game and replay changes meaning.  So
that they are not merely self-referential, the generator is checked against
SplitMix64's published reference outputs, and the shuffle against a from-scratch
Fisher-Yates (from the end, bounded draws by rejection sampling) written here.
"""

from __future__ import annotations

import pytest

from arena.cards import ALL_CARDS, CardSet, SeededRng, derive_seed, shuffled_deck
from arena.games.gin_rummy import cut_for_deal

MASK64 = (1 << 64) - 1

GOLDEN_DECKS = {
    0: (
        "8S JH 9C 2S 2D QD 6S TC 3D AC JC 7C 9H 8C QS KH 5H 2C 3H 5C AH 6C 4S TD 5D 8H "
        "8D AD QH TS QC JD 3S 4D 2H 9D 3C KD AS 7S 9S 7D JS 6H KS 4C 7H 5S 6D 4H KC TH"
    ),
    1: (
        "7D 9C 4D 8H 8D 5S JD 6D 9S JC 5D KD 3C 2D JH 5H 7H 4H 2C AD 6S KC KH TH TS JS "
        "TD 8S QC 4S 6C 7C AS 5C AH KS 6H QS QH QD 9D 3D 3S AC 4C 2H 8C TC 3H 2S 9H 7S"
    ),
    42: (
        "7C 3H KC AS 2S AC AH KD TD 5C 8S JH 2H 4S 6H 5D 2D 5S 6D AD 7D 2C 8H 8C 4D 7H "
        "KS TS 4H 3D TH JS 4C 6S 7S 3S 8D QD 9S KH 5H 6C QS 9D JD QC 3C 9H QH 9C JC TC"
    ),
    2**63: (
        "9D 4H AS 5D 4D QC JD 3S JC 2D TH 2C TC 6C 9H 3H 4S 6D 7H 8C JS 6H AH 9C 8D 6S "
        "5H KD 3C 9S TD TS 7S 5C 2S 8S QS 8H 7C QH 3D JH KS AC 5S AD KC 7D 4C QD KH 2H"
    ),
    2**64 - 1: (
        "JC KS 7S 4C AD JH 5D 2H AH 7D 6D 6S 4D AS 4S 7H 3D 2D 9H QH 8D 3S 5S 9S AC 8S "
        "QD TD 7C QS 9C 4H JD KH KC 6H 9D 8H 8C TH 6C KD 2S 3H QC JS 3C 5H TS 2C TC 5C"
    ),
}

GOLDEN_DERIVED = {
    (0,): 0x0,
    (1,): 0x5692161D100B05E5,
    (42,): 0xA759EA27D4727622,
    (0, 0): 0xE220A8397B1DCDAF,
    (0, 1, 0): 0x5E41AB087439611E,
    (1, 1, 5): 0xF6ACF4CBA776F37F,
    (42, 1, 3): 0x16089A5AD128E929,
}

# seed -> (first dealer, the cards cut, in order)
GOLDEN_CUTS = {
    0: (1, "QD JD"),
    1: (0, "8C 9C"),
    2: (1, "4C AH"),
    3: (1, "TH 8H"),
    42: (0, "3S 7S"),
    12: (1, "QH QS 5S 4H"),  # queens tie: cut again
    74: (0, "AC AS AD TC"),  # aces tie
}


# -- an independent SplitMix64 and shuffle, straight from the published algorithm --


def reference_mix(z: int) -> int:
    """splitmix64.c's output function (Vigna): the 30/27/31 xor-shift-multiply."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def reference_splitmix64(seed: int, count: int) -> list[int]:
    """splitmix64.c: ``x += 0x9e3779b97f4a7c15``, then the mix of ``x``."""
    rng = ReferenceRng(seed)
    return [rng.next() for _ in range(count)]


class ReferenceRng:
    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        return reference_mix(self.state)

    def below(self, bound: int) -> int:
        # Accept a draw only from the largest multiple of ``bound`` below 2**64.
        multiple = (2**64 // bound) * bound
        while True:
            value = self.next()
            if value < multiple:
                return value % bound


def reference_shuffle(seed: int) -> list[str]:
    deck = [str(card) for card in ALL_CARDS]
    rng = ReferenceRng(seed)
    for i in range(51, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_reference_implementation_matches_published_splitmix64_outputs() -> None:
    # splitmix64.c seeded with 0: the first output, widely published.
    assert reference_splitmix64(0, 3) == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    # Rosetta Code "Pseudo-random numbers/Splitmix64", seed 1234567.
    assert reference_splitmix64(1234567, 5) == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_seeded_rng_is_splitmix64() -> None:
    rng = SeededRng(0)
    assert rng.next_u64() == 0xE220A8397B1DCDAF
    rng = SeededRng(1234567)
    assert [rng.next_u64() for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]
    for seed in (1, 42, 2**63, MASK64):
        rng = SeededRng(seed)
        assert [rng.next_u64() for _ in range(20)] == reference_splitmix64(seed, 20)


@pytest.mark.parametrize("seed", sorted(GOLDEN_DECKS))
def test_golden_decks(seed: int) -> None:
    deck = [str(card) for card in shuffled_deck(seed)]
    assert deck == GOLDEN_DECKS[seed].split()
    assert deck == reference_shuffle(seed)


def test_shuffle_matches_the_reference_shuffle_for_many_seeds() -> None:
    for seed in [*range(200), 2**32, 2**63 - 1, 987654321987654321]:
        assert [str(card) for card in shuffled_deck(seed)] == reference_shuffle(seed)


def test_shuffle_leaves_the_generator_where_the_reference_leaves_it() -> None:
    """The shuffle draws exactly ``below(i + 1)`` for each ``i``: what the generator
    gives next is the same as after the reference's draws."""
    for seed in (0, 5, 2**64 - 1):
        ours, reference = SeededRng(seed), ReferenceRng(seed)
        items = list(range(100))
        ours.shuffle(items)
        for i in range(99, 0, -1):
            reference.below(i + 1)
        assert [ours.next_u64() for _ in range(3)] == [reference.next() for _ in range(3)]


def test_shuffled_deck_is_a_permutation() -> None:
    for seed in range(300):
        deck = shuffled_deck(seed)
        assert len(deck) == 52
        assert sorted(deck) == list(ALL_CARDS)
        assert CardSet.of(deck) == CardSet.full()  # raises on a repeated card


def test_shuffled_deck_of_some_cards() -> None:
    cards = list(CardSet.parse("AC 2C 3C 4C 5C KS"))
    deck = shuffled_deck(5, cards)
    assert sorted(deck) == cards
    assert shuffled_deck(5, cards) == deck


def test_different_seeds_give_different_decks() -> None:
    decks = {shuffled_deck(seed) for seed in range(500)}
    assert len(decks) == 500


@pytest.mark.parametrize(("path", "expected"), sorted(GOLDEN_DERIVED.items()))
def test_golden_derived_seeds(path: tuple[int, ...], expected: int) -> None:
    assert derive_seed(*path) == expected


def test_derived_seeds_are_64_bit_and_distinct() -> None:
    values = {
        derive_seed(seed, stream, k) for seed in range(20) for stream in range(3) for k in range(30)
    }
    assert len(values) == 20 * 3 * 30
    assert all(0 <= value <= MASK64 for value in values)
    # The path is not commutative: (a, b) and (b, a) are different sub-streams.
    assert derive_seed(7, 1, 2) != derive_seed(7, 2, 1)
    assert derive_seed(7, 1) != derive_seed(7, 1, 0)


@pytest.mark.parametrize("seed", sorted(GOLDEN_CUTS))
def test_golden_cuts(seed: int) -> None:
    dealer, cut = cut_for_deal(seed)
    assert (dealer, " ".join(str(card) for card in cut)) == GOLDEN_CUTS[seed]


def test_cut_for_deal_follows_the_rule() -> None:
    # RULES.md: the lower card of a seeded cut deals first; equal ranks cut again.
    ties = 0
    for seed in range(400):
        dealer, cut = cut_for_deal(seed)
        assert len(cut) % 2 == 0
        assert list(cut) == list(shuffled_deck(derive_seed(seed, 0))[: len(cut)])
        pairs = [(cut[i], cut[i + 1]) for i in range(0, len(cut), 2)]
        for first, second in pairs[:-1]:
            assert first.rank == second.rank
        first, second = pairs[-1]
        assert first.rank != second.rank
        assert dealer == (0 if first.rank < second.rank else 1)
        ties += len(pairs) > 1
    assert ties > 0  # the re-cut path is exercised


@pytest.mark.parametrize("bound", [1, 2, 3, 7, 52, 1000, 2**32 + 1, 2**63 + 1, 2**64])
def test_below_stays_in_bounds(bound: int) -> None:
    rng = SeededRng(bound & MASK64)
    for _ in range(500):
        assert 0 <= rng.below(bound) < bound


@pytest.mark.parametrize("bound", [3, 52, 2**63 + 1, 2**64 - 1])
def test_below_is_rejection_sampling(bound: int) -> None:
    # 2**63 + 1 rejects almost half of all draws: the rejection loop really runs.
    ours, reference = SeededRng(99), ReferenceRng(99)
    assert [ours.below(bound) for _ in range(300)] == [reference.below(bound) for _ in range(300)]


@pytest.mark.parametrize("bound", [0, -1, 2**64 + 1, 2**70])
def test_below_rejects_impossible_bounds(bound: int) -> None:
    with pytest.raises(ValueError, match="bound"):
        SeededRng(1).below(bound)


def test_below_is_roughly_uniform() -> None:
    # Pearson's chi-square over 52 bins, 52,000 draws, fixed seed (so deterministic).
    # 51 degrees of freedom: the 99.9th percentile is about 87; a biased generator
    # (e.g. plain modulo of a small range) would land far above it.
    bins, draws = 52, 52_000
    counts = [0] * bins
    rng = SeededRng(20240611)
    for _ in range(draws):
        counts[rng.below(bins)] += 1
    expected = draws / bins
    chi_square = sum((count - expected) ** 2 / expected for count in counts)
    assert chi_square < 87
    # ... and a second, small bound where modulo bias would be easiest to see.
    counts3 = [0, 0, 0]
    for _ in range(30_000):
        counts3[rng.below(3)] += 1
    assert all(abs(count - 10_000) < 400 for count in counts3)


def test_choice_and_shuffle_are_deterministic() -> None:
    items = list(range(30))
    a, b = list(items), list(items)
    SeededRng(3).shuffle(a)
    SeededRng(3).shuffle(b)
    assert a == b
    assert sorted(a) == items
    assert a != items
    rng = SeededRng(4)
    picks = [rng.choice("abc") for _ in range(300)]
    assert set(picks) == {"a", "b", "c"}


def test_negative_seed_is_rejected() -> None:
    with pytest.raises(ValueError, match="-1"):
        SeededRng(-1)


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70])
def test_seeds_outside_64_bits_are_refused_not_wrapped(seed: int) -> None:
    # 2**64 would otherwise deal exactly the deck of seed 0.
    with pytest.raises(ValueError, match="seed"):
        shuffled_deck(seed)
    with pytest.raises(ValueError, match="seed"):
        derive_seed(seed, 1)
