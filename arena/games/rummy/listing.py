"""The legal actions Basic Rummy lists in a seat's play phase (after its draw).

Every discard, every new meld of the kinds the module docstring of ``hand`` names,
every layoff and every swap, in a fixed order (discards, sets, runs, layoffs meld by
meld, swaps): the order is part of the engine's behaviour, since bots and replays
pick actions by index.

Layoffs and swaps come from the table's ``Openings``, built once per table state (a
meld laid, a card laid off, a swap) rather than once per decision: with six seats
the table holds many melds, most decisions hold no card that fits any of them (the
openings' mask tells in one ``and``), and few of their cards are wild.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from arena.cards import Card
from arena.cards.masks import SUIT_BITS, bits, of_mask, suit_table
from arena.games.rummy.actions import Action, LayMeld, SwapJoker, discard
from arena.games.rummy.cards import FACES, JOKER_INDEX, RummyCard
from arena.games.rummy.melds import NATURAL_CARDS, LiveMeld, run_options, set_options

__all__ = ["Openings", "openings", "play_actions"]

_NATURAL_FACES: Final = (1 << 52) - 1
# Discard actions of each 13-bit suit mask: a hand's discards are four lookups (hot path).
_SUIT_DISCARDS: Final = suit_table([discard(card) for card in NATURAL_CARDS])
_DISCARD_JOKER: Final = discard(FACES[JOKER_INDEX])


class Openings(NamedTuple):
    """Where the table takes a card: ``(meld, natural, lacks)`` for each natural card
    that extends a meld, meld by meld in table order (``lacks``: the meld holds no
    card that is or stands for it, so a wild card may be offered for it); the mask
    of those naturals; and ``(meld, natural, wild)`` for each wild card on the table
    standing for another card (what a swap gives back)."""

    slots: tuple[tuple[LiveMeld, int, bool], ...]
    mask: int
    swaps: tuple[tuple[LiveMeld, int, int], ...]


def openings(melds: Sequence[LiveMeld], top: int, wild_mask: int) -> Openings:
    slots = []
    mask = 0
    swaps = []
    for meld in melds:
        for natural in meld.open_naturals(top):
            slots.append((meld, natural, meld.lacks(natural)))
            mask |= 1 << natural
    if wild_mask:
        for meld in melds:
            for position, face in meld.slots.items():
                if wild_mask >> face & 1:
                    natural = meld.natural(position)
                    if natural != face:
                        swaps.append((meld, natural, face))
    return Openings(tuple(slots), mask, tuple(swaps))


def play_actions(
    counts: list[int],
    held_mask: int,
    size: int,
    forbidden: int | None,
    wild_mask: int,
    top: int,
    doubles: int,
    melds: Sequence[LiveMeld],
    table: Openings,
) -> list[Action]:
    """A seat's legal actions in its play phase: it holds ``counts`` per face
    (``held_mask``: the faces held, ``size`` cards; ``doubles``: the natural faces
    held twice, with two decks); ``forbidden`` is the face it took
    from the discard pile this turn."""
    mask = held_mask
    forbidden_held = -1 if forbidden is None else counts[forbidden]
    wilds = list(bits(mask & wild_mask))
    if forbidden is not None:
        mask &= ~(1 << forbidden)
    actions: list[Action] = of_mask(_SUIT_DISCARDS, mask)
    if mask >> JOKER_INDEX & 1:
        actions.append(_DISCARD_JOKER)
    mask = held_mask

    def keeps(taken: Sequence[int], added: int = -1) -> bool:
        """After playing ``taken`` (and taking ``added``), can the seat still discard?"""
        left = size - len(taken) + (added >= 0)
        if left == 0 or forbidden is None:
            return True
        return left > forbidden_held - taken.count(forbidden) + (added == forbidden)

    def stands(face: int, natural: int) -> Card | None:
        return NATURAL_CARDS[natural] if wild_mask >> face & 1 else None

    # New melds: every natural set and run, and with one wild card each.
    naturals = mask & _NATURAL_FACES
    suits = [naturals >> (13 * s) & SUIT_BITS for s in range(4)]
    s0, s1, s2, s3 = suits
    if wilds:
        ranks = (s0 & s1) | (s0 & s2) | (s0 & s3) | (s1 & s2) | (s1 & s3) | (s2 & s3)
    else:
        ranks = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    if doubles:  # two decks: twins make sets of fewer suits (7H-7H-7S)
        # copies of each rank, counted bit-sliced over the suits held and held twice
        one = two = three = 0
        for copies in (
            s0,
            s1,
            s2,
            s3,
            doubles & SUIT_BITS,
            doubles >> 13 & SUIT_BITS,
            doubles >> 26 & SUIT_BITS,
            doubles >> 39 & SUIT_BITS,
        ):
            three |= two & copies
            two |= one & copies
            one |= copies
        ranks = two if wilds else three
    for rank in bits(ranks):
        held = (counts[rank], counts[13 + rank], counts[26 + rank], counts[39 + rank])
        natural_sets, wild_sets = set_options(held)
        for chosen in natural_sets:
            faces = [13 * s + rank for s in chosen]
            if keeps(faces):
                actions.append(
                    LayMeld(
                        tuple(FACES[f] for f in faces),
                        tuple(stands(f, f) for f in faces),
                    )
                )
        if not wilds:
            continue
        for chosen, missing in wild_sets:
            faces = [13 * s + rank for s in chosen]
            natural = 13 * missing + rank
            for wild in wilds:
                if counts[wild] <= faces.count(wild):
                    continue
                used = [*faces, wild]
                if not keeps(used):
                    continue
                placed = sorted([(f, f) for f in faces] + [(natural, wild)])
                actions.append(
                    LayMeld(
                        tuple(FACES[f] for _, f in placed),
                        tuple(stands(f, n) for n, f in placed),
                    )
                )
    for suit in range(4):
        suit_mask = suits[suit]
        ext = suit_mask | (suit_mask & 1) << 13 if top == 13 else suit_mask
        if ext.bit_count() < (2 if wilds else 3):
            continue
        base = 13 * suit
        for lo, hi, missing in run_options(ext, top, bool(wilds)):
            faces = [base + p % 13 for p in range(lo, hi + 1) if p != missing]
            if missing < 0:
                if keeps(faces):
                    actions.append(
                        LayMeld(
                            tuple(FACES[f] for f in faces),
                            tuple(stands(f, f) for f in faces),
                        )
                    )
                continue
            natural = base + missing % 13
            for wild in wilds:
                if counts[wild] <= faces.count(wild):
                    continue
                if not keeps([*faces, wild]):
                    continue
                cards: list[RummyCard] = []
                stand: list[Card | None] = []
                for p in range(lo, hi + 1):
                    f = wild if p == missing else base + p % 13
                    cards.append(FACES[f])
                    stand.append(stands(f, base + p % 13))
                actions.append(LayMeld(tuple(cards), tuple(stand)))

    # Layoffs: every card on every open position of every meld.
    if wilds:
        for meld, natural, lacks in table.slots:
            if counts[natural] and (forbidden is None or keeps([natural])):
                actions.append(meld.offer(natural, natural, stands(natural, natural)))
            if lacks:
                for wild in wilds:
                    if wild != natural and (forbidden is None or keeps([wild])):
                        actions.append(meld.offer(wild, natural, NATURAL_CARDS[natural]))
    elif mask & table.mask:  # without wild cards, only held naturals are offered
        for meld, natural, _ in table.slots:
            if counts[natural] and (forbidden is None or keeps([natural])):
                actions.append(meld.offer(natural, natural, stands(natural, natural)))

    # Swaps: a natural card for the wild card standing for it.
    for meld, natural, wild in table.swaps:
        if counts[natural] and keeps([natural], wild):
            actions.append(SwapJoker(NATURAL_CARDS[natural], meld.id))
    return actions
