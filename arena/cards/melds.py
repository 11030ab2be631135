"""Meld search: minimum deadwood, best arrangements, knock discards and layoffs.

Speed comes from one observation: runs live inside one suit, so once the sets are
chosen, each suit's best runs are a table lookup.  ``_RUN_DEADWOOD[m]`` is the
deadwood of a 13-bit suit mask ``m`` when every maximal block of 3+ consecutive
ranks is a run.  Only ranks held in 3 or 4 suits can form sets, and a hand of 11
cards has at most three of them, so the search over set choices is tiny.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import product
from typing import Final

from arena.cards.card import Card, CardSet, card_value
from arena.errors import ArenaError

__all__ = [
    "Arrangement",
    "InvalidMeldError",
    "Layoff",
    "Meld",
    "MeldKind",
    "best_arrangement",
    "deadwood_of_mask",
    "knock_discards",
    "layoff_options",
    "min_deadwood",
    "validate_layoffs",
]

_SUIT_BITS: Final = 0x1FFF


def _run_cover(mask: int) -> int:
    """Bits of ``mask`` that lie in a block of three or more consecutive ranks."""
    starts = mask & (mask >> 1) & (mask >> 2)
    return starts | starts << 1 | starts << 2


def _run_deadwood_table() -> tuple[int, ...]:
    # Suit values built rank by rank, like ``suit_table``'s rows: milliseconds at
    # import, where summing 13 ranks for each of the 8,192 masks took tens of them
    # in every bot process.
    values = [0]
    for rank in range(13):
        value = card_value(rank)
        values += [total + value for total in values]
    return tuple(values[m & ~_run_cover(m)] for m in range(1 << 13))


_RUN_DEADWOOD: Final[tuple[int, ...]] = _run_deadwood_table()


def deadwood_of_mask(mask: int) -> int:
    """Minimum deadwood of a hand given as a 52-bit card mask (any size)."""
    s0 = mask & _SUIT_BITS
    s1 = mask >> 13 & _SUIT_BITS
    s2 = mask >> 26 & _SUIT_BITS
    s3 = mask >> 39
    set_ranks = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    if not set_ranks:
        table = _RUN_DEADWOOD
        return table[s0] + table[s1] + table[s2] + table[s3]
    return _search_sets(s0, s1, s2, s3, set_ranks)


def _search_sets(s0: int, s1: int, s2: int, s3: int, set_ranks: int) -> int:
    """Least deadwood over every choice of sets among ``set_ranks`` (rank bits)."""
    if not set_ranks:
        table = _RUN_DEADWOOD
        return table[s0] + table[s1] + table[s2] + table[s3]
    bit = set_ranks & -set_ranks
    rest = set_ranks ^ bit
    keep = ~bit
    best = _search_sets(s0, s1, s2, s3, rest)  # this rank forms no set
    t0, t1, t2, t3 = s0 & keep, s1 & keep, s2 & keep, s3 & keep
    best = min(best, _search_sets(t0, t1, t2, t3, rest))  # every card of the rank in one set
    if s0 & s1 & s2 & s3 & bit:  # four of a kind: a set of three, the fourth card free
        best = min(
            best,
            _search_sets(s0, t1, t2, t3, rest),
            _search_sets(t0, s1, t2, t3, rest),
            _search_sets(t0, t1, s2, t3, rest),
            _search_sets(t0, t1, t2, s3, rest),
        )
    return best


def min_deadwood(hand: CardSet) -> int:
    """Minimum deadwood of ``hand`` over every arrangement of melds."""
    return deadwood_of_mask(hand.mask)


class InvalidMeldError(ArenaError, ValueError):
    """Cards that do not form a set or a run, or an arrangement that reuses a card."""


class MeldKind(Enum):
    SET = "set"
    RUN = "run"


def _classify(cards: CardSet) -> MeldKind | None:
    mask = cards.mask
    count = mask.bit_count()
    if count < 3:
        return None
    ranks = {card.rank for card in cards}
    if len(ranks) == 1 and count <= 4:
        return MeldKind.SET
    suits = {card.suit for card in cards}
    if len(suits) == 1:
        suit_mask = mask >> 13 * next(iter(suits)) & _SUIT_BITS
        low = suit_mask & -suit_mask
        # consecutive ranks: the mask is one block of ones
        if (suit_mask + low) & suit_mask == 0:
            return MeldKind.RUN
    return None


@dataclass(frozen=True, slots=True)
class Meld:
    """A set (3 or 4 of a rank) or a run (3+ consecutive ranks of a suit, ace low)."""

    cards: CardSet
    kind: MeldKind

    @classmethod
    def of(cls, cards: CardSet | Iterable[Card] | str) -> Meld:
        """Validate and build a meld; ``InvalidMeldError`` says why not."""
        if isinstance(cards, str):
            cards = CardSet.parse(cards)
        elif not isinstance(cards, CardSet):
            cards = CardSet.of(cards)
        kind = _classify(cards)
        if kind is None:
            raise InvalidMeldError(f"not a meld: {cards} (need 3-4 of a rank or a run of 3+)")
        return cls(cards, kind)

    @property
    def suit_mask(self) -> int:
        """For a run: its 13-bit rank mask within its suit."""
        first = next(iter(self.cards))
        return self.cards.mask >> 13 * first.suit & _SUIT_BITS

    def __str__(self) -> str:
        order = self.cards.sorted_by_rank() if self.kind is MeldKind.SET else list(self.cards)
        return "-".join(str(card) for card in order)


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A hand split into melds and unmatched cards."""

    melds: tuple[Meld, ...]
    unmatched: CardSet

    @property
    def deadwood(self) -> int:
        return self.unmatched.value

    @classmethod
    def of(cls, hand: CardSet, melds: Iterable[Meld]) -> Arrangement:
        """Check that ``melds`` are disjoint and drawn from ``hand``."""
        used = 0
        meld_tuple = tuple(melds)
        for meld in meld_tuple:
            if _classify(meld.cards) is not meld.kind:
                raise InvalidMeldError(f"not a {meld.kind.value}: {meld.cards}")
            if meld.cards.mask & used:
                raise InvalidMeldError(f"card used in two melds: {meld.cards & CardSet(used)}")
            if not meld.cards <= hand:
                raise InvalidMeldError(f"meld {meld} uses cards not in hand: {meld.cards - hand}")
            used |= meld.cards.mask
        return cls(meld_tuple, CardSet(hand.mask & ~used))


def _runs_of_suit(suit: int, suit_mask: int) -> Iterator[Meld]:
    covered = _run_cover(suit_mask)
    while covered:
        low = covered & -covered
        block = covered & ~(covered + low)  # the lowest block of consecutive ones
        yield Meld(CardSet(block << 13 * suit), MeldKind.RUN)
        covered ^= block


def best_arrangement(hand: CardSet) -> Arrangement:
    """An arrangement of ``hand`` with the minimum deadwood.

    Ties prefer fewer sets; among set choices the search order is fixed, so the
    result is deterministic.
    """
    mask = hand.mask
    suits = [mask >> 13 * s & _SUIT_BITS for s in range(4)]
    set_ranks = (suits[0] & suits[1] & (suits[2] | suits[3])) | (
        suits[2] & suits[3] & (suits[0] | suits[1])
    )
    choices: list[list[tuple[int, ...]]] = []  # per set rank: suit tuples that form its set
    ranks: list[int] = []
    for rank in range(13):
        if set_ranks >> rank & 1:
            held = tuple(s for s in range(4) if suits[s] >> rank & 1)
            options: list[tuple[int, ...]] = [(), held]
            if len(held) == 4:
                options += [tuple(s for s in held if s != free) for free in held]
            choices.append(options)
            ranks.append(rank)
    best: tuple[int, list[int], tuple[tuple[int, ...], ...]] | None = None
    # Fewest sets first (a stable sort keeps the fixed order among equals), so the
    # first arrangement with the least deadwood has the fewest sets.
    combos = sorted(product(*choices), key=lambda combo: sum(1 for suits in combo if suits))
    for combo in combos:
        rest = list(suits)
        for rank, set_suits in zip(ranks, combo, strict=True):
            for s in set_suits:
                rest[s] &= ~(1 << rank)
        deadwood = sum(_RUN_DEADWOOD[m] for m in rest)
        if best is None or deadwood < best[0]:
            best = (deadwood, rest, combo)
    assert best is not None
    _, rest, combo = best
    melds: list[Meld] = []
    for rank, set_suits in zip(ranks, combo, strict=True):
        if set_suits:
            melds.append(Meld(CardSet.of(Card.of(rank, s) for s in set_suits), MeldKind.SET))
    for s in range(4):
        melds.extend(_runs_of_suit(s, rest[s]))
    return Arrangement.of(hand, melds)


def knock_discards(hand: CardSet, limit: int) -> dict[Card, int]:
    """For an 11-card hand: each discard leaving deadwood <= ``limit``, with that deadwood."""
    mask = hand.mask
    whole = deadwood_of_mask(mask)
    # Discarding a card of value v lowers the minimum deadwood by at most v (<= 10).
    if whole - 10 > limit:
        return {}
    result: dict[Card, int] = {}
    for card in hand:
        if whole - card.value > limit:
            continue
        deadwood = deadwood_of_mask(mask & ~(1 << card.index))
        if deadwood <= limit:
            result[card] = deadwood
    return result


@dataclass(frozen=True, slots=True)
class Layoff:
    """A defender's card added to the knocker's meld number ``meld_index``."""

    card: Card
    meld_index: int

    def __str__(self) -> str:
        return f"{self.card}>{self.meld_index}"


def validate_layoffs(melds: Sequence[Meld], layoffs: Iterable[Layoff]) -> tuple[Meld, ...]:
    """The melds after the layoffs; ``InvalidMeldError`` names the first bad layoff.

    Order does not matter: a run may grow at either end, including by cards that
    extend it past earlier layoffs, as long as the result is one run.
    """
    grown = [meld.cards.mask for meld in melds]
    by_meld: dict[int, list[Card]] = {}
    for layoff in layoffs:
        if not 0 <= layoff.meld_index < len(melds):
            raise InvalidMeldError(f"cannot lay off {layoff.card}: no meld #{layoff.meld_index}")
        if any(grown[i] >> layoff.card.index & 1 for i in range(len(grown))):
            raise InvalidMeldError(f"cannot lay off {layoff.card}: it is already on the table")
        grown[layoff.meld_index] |= layoff.card.mask
        by_meld.setdefault(layoff.meld_index, []).append(layoff.card)
    result = list(melds)
    for index, cards in by_meld.items():
        new_cards = CardSet(grown[index])
        kind = _classify(new_cards)
        if kind is not melds[index].kind:
            names = " ".join(str(card) for card in cards)
            raise InvalidMeldError(
                f"cannot lay off {names} on {melds[index]}: {new_cards} is not a meld"
            )
        result[index] = Meld(new_cards, melds[index].kind)
    return tuple(result)


def _extensions(meld: Meld, hand_mask: int) -> list[int]:
    """Each card mask the hand can add to ``meld`` on its own (including nothing)."""
    if meld.kind is MeldKind.SET:
        rank = next(iter(meld.cards)).rank
        missing = sum(1 << (13 * s + rank) for s in range(4)) & ~meld.cards.mask & hand_mask
        return [0, missing] if missing else [0]
    suit = next(iter(meld.cards)).suit
    held = hand_mask >> 13 * suit & _SUIT_BITS
    run = meld.suit_mask
    below: list[int] = [0]
    bit = run & -run
    while bit > 1 and held & (bit >> 1):
        bit >>= 1
        below.append(below[-1] | bit)
    above: list[int] = [0]
    bit = 1 << (run.bit_length() - 1)
    while bit < 1 << 12 and held & (bit << 1):
        bit <<= 1
        above.append(above[-1] | bit)
    return [(lo | hi) << 13 * suit for lo in below for hi in above]


def layoff_options(melds: Sequence[Meld], hand: CardSet) -> list[tuple[tuple[Layoff, ...], int]]:
    """Every distinct way ``hand`` can lay off on ``melds``, with the deadwood left.

    The deadwood is the minimum over the defender's own melds of the cards he keeps.
    The list is sorted best first (least deadwood, then fewest layoffs).
    """
    per_meld = [_extensions(meld, hand.mask) for meld in melds]
    options: list[tuple[tuple[Layoff, ...], int]] = []
    for combo in product(*per_meld):
        used = 0
        clash = False
        for part in combo:
            if used & part:
                clash = True
                break
            used |= part
        if clash:
            continue
        layoffs = tuple(
            Layoff(card, index) for index, part in enumerate(combo) for card in CardSet(part)
        )
        options.append((layoffs, deadwood_of_mask(hand.mask & ~used)))
    options.sort(key=lambda option: (option[1], len(option[0])))
    return options
