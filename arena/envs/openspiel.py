"""Gin Rummy actions to and from OpenSpiel's ``gin_rummy`` action ids.

OpenSpiel plays a knock or a defence as several actions, so one of our actions maps
to a sequence of its ids (docs/ENVS.md, "OpenSpiel ids"):

* 0-51 a card (OpenSpiel's card order: suits s c d h, ranks A..K), 52 draw the upcard
  (also the first upcard and, at the wall, the last discard), 53 draw from the stock,
  54 pass, 55 knock, 56-240 lay a meld (``56 + meld id``: 65 sets, then runs of 3, 4
  and 5 cards by suit and lowest rank; a longer run is laid as two).
* ``Knock(c, melds)`` is ``[55, c, meld..., 54]``; ``Defend(melds, layoffs)`` is
  ``[layoff card..., 54, meld..., 54]``.
* When both players pass the first upcard OpenSpiel asks the non-dealer for an explicit
  53; our engine makes that draw itself (there is nothing to decide).

OpenSpiel is not needed here: tests/envs/test_openspiel.py checks this against it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from arena.cards import ALL_CARDS, CardSet, Layoff, Meld, MeldKind
from arena.games.gin_rummy.actions import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Defend,
    Discard,
    Draw,
    DrawSource,
    Knock,
    Pass,
    discard,
)

__all__ = [
    "DRAW_STOCK_ACTION",
    "DRAW_UPCARD_ACTION",
    "KNOCK_ACTION",
    "MELD_ACTION_BASE",
    "PASS_ACTION",
    "from_openspiel",
    "openspiel_card",
    "our_card",
    "to_openspiel",
]

DRAW_UPCARD_ACTION: Final = 52
DRAW_STOCK_ACTION: Final = 53
PASS_ACTION: Final = 54
KNOCK_ACTION: Final = 55
MELD_ACTION_BASE: Final = 56


def openspiel_card(index: int) -> int:
    """Our card index (suits C D H S) -> OpenSpiel's (suits s c d h)."""
    return (index + 13) % 52


def our_card(card: int) -> int:
    return (card + 39) % 52


def _meld_table() -> dict[frozenset[int], int]:
    table: dict[frozenset[int], int] = {}
    for rank in range(13):
        suits = range(4)
        for left_out in suits:
            table[frozenset(s * 13 + rank for s in suits if s != left_out)] = 5 * rank + left_out
        table[frozenset(s * 13 + rank for s in suits)] = 5 * rank + 4
    ident = 65
    for length in (3, 4, 5):
        for suit in range(4):
            for low in range(14 - length):
                table[frozenset(suit * 13 + r for r in range(low, low + length))] = ident
                ident += 1
    return table


_MELDS: Final = _meld_table()
_MELD_CARDS: Final = {ident: cards for cards, ident in _MELDS.items()}


def _parts(meld: Meld) -> list[list[int]]:
    """A meld as OpenSpiel melds (runs of 6+ split into runs of 3 to 5)."""
    cards = sorted(openspiel_card(card.index) for card in meld.cards)
    if meld.kind is MeldKind.SET or len(cards) <= 5:
        return [cards]
    parts = []
    while len(cards) > 5:
        take = 3 if len(cards) - 3 >= 3 and len(cards) <= 8 else 5
        if len(cards) - take < 3:
            take = len(cards) - 3
        parts.append(cards[:take])
        cards = cards[take:]
    return [*parts, cards]


def meld_ids(melds: Iterable[Meld]) -> list[int]:
    return [MELD_ACTION_BASE + _MELDS[frozenset(part)] for meld in melds for part in _parts(meld)]


def to_openspiel(action: Action) -> list[int]:
    """The OpenSpiel ids that play ``action``."""
    if isinstance(action, Draw):
        return [DRAW_STOCK_ACTION if action.source is DrawSource.STOCK else DRAW_UPCARD_ACTION]
    if isinstance(action, Pass):
        return [PASS_ACTION]
    if isinstance(action, Discard):
        return [openspiel_card(action.card.index)]
    if isinstance(action, Knock):
        return [
            KNOCK_ACTION,
            openspiel_card(action.card.index),
            *meld_ids(action.melds),
            PASS_ACTION,
        ]
    layoffs = [openspiel_card(layoff.card.index) for layoff in action.layoffs]
    return [*layoffs, PASS_ACTION, *meld_ids(action.melds), PASS_ACTION]


def from_openspiel(ids: Sequence[int], knock_melds: Sequence[Meld] = ()) -> Action:
    """Our action from a complete OpenSpiel sequence (one id, a knock, or a defence);
    a defence's layoffs need the knocker's melds to name the meld each extends."""
    if not ids:
        raise ValueError("no OpenSpiel ids")
    first = ids[0]
    if len(ids) == 1:
        if first == DRAW_STOCK_ACTION:
            return DRAW_STOCK
        if first == DRAW_UPCARD_ACTION:
            return DRAW_DISCARD
        if first == PASS_ACTION:
            return PASS
        if 0 <= first < 52:
            return discard(ALL_CARDS[our_card(first)])
    if first == KNOCK_ACTION:
        card = ALL_CARDS[our_card(ids[1])]
        return Knock(card, _melds(ids[2:-1]))
    split = list(ids).index(PASS_ACTION)
    layoffs = _layoffs([ALL_CARDS[our_card(i)] for i in ids[:split]], knock_melds)
    return Defend(_melds(ids[split + 1 : -1]), layoffs)


def _melds(ids: Sequence[int]) -> tuple[Meld, ...]:
    return tuple(
        Meld.of(CardSet.of(ALL_CARDS[our_card(c)] for c in _MELD_CARDS[i - MELD_ACTION_BASE]))
        for i in ids
    )


def _layoffs(cards: Sequence[object], melds: Sequence[Meld]) -> tuple[Layoff, ...]:
    from arena.cards import validate_layoffs

    # Each card goes on the first meld that takes it, in the order played.
    chosen: list[Layoff] = []
    for card in cards:
        for index in range(len(melds)):
            attempt = [*chosen, Layoff(card, index)]  # type: ignore[arg-type]
            try:
                validate_layoffs(melds, attempt)
            except ValueError:
                continue
            chosen = attempt
            break
        else:
            raise ValueError(f"{card} extends none of the knocker's melds")
    return tuple(chosen)
