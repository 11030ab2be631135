"""A greedy melder for Basic Rummy: meld and lay off whenever it can, shed high cards."""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.cards import Card
from arena.games.rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    Action,
    Discard,
    LayMeld,
    LayOff,
    Phase,
    RummyObservation,
    SwapJoker,
)

__all__ = ["greedy_rummy"]


def _near_meld(card: Card, naturals: Sequence[Card]) -> bool:
    """Whether ``card`` and two of ``naturals`` are a set or a run (or one card from it)."""
    same_rank = sum(1 for other in naturals if other.rank == card.rank and other is not card)
    if same_rank >= 1:
        return True
    ranks = {other.rank for other in naturals if other.suit is card.suit and other is not card}
    return bool({card.rank - 1, card.rank + 1} & ranks)


def greedy_rummy(
    observation: RummyObservation, legal: Sequence[Action], rng: random.Random
) -> Action:
    """Take the discard only if it pairs up with the hand; lay down the biggest meld,
    then every layoff and swap; discard the highest card that is not near a meld."""
    naturals = [card for card in observation.hand if isinstance(card, Card)]
    if observation.phase is Phase.DRAW:
        top = observation.discard_pile[-1] if observation.discard_pile else None
        if DRAW_DISCARD in legal and isinstance(top, Card) and _near_meld(top, naturals):
            return DRAW_DISCARD
        return DRAW_STOCK if DRAW_STOCK in legal else legal[0]
    melds = [action for action in legal if isinstance(action, LayMeld)]
    if melds:  # the biggest meld, with the fewest wild cards
        return max(melds, key=lambda m: (len(m.cards), -sum(s is not None for s in m.stands_for)))
    for kind in (SwapJoker, LayOff):
        options = [action for action in legal if isinstance(action, kind)]
        if options:
            return options[0]
    discards = [action for action in legal if isinstance(action, Discard)]
    if not discards:
        return legal[0]

    def cost(action: Discard) -> tuple[int, int, int]:
        card = action.card
        if not isinstance(card, Card):
            return (-1, 0, 0)  # a wild card: keep it
        return (0 if _near_meld(card, naturals) else 1, card.value, -card.index)

    return max(discards, key=cost)
