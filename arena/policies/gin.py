"""Two baseline Gin Rummy policies: uniformly random, and the classic greedy one."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from arena.cards import Card, deadwood_of_mask
from arena.games.gin_rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Defend,
    Discard,
    GinObservation,
    Knock,
    Phase,
)

__all__ = ["GinPolicy", "greedy_gin", "random_gin"]


class GinPolicy(Protocol):
    def __call__(
        self, observation: GinObservation, legal: Sequence[Action], rng: random.Random
    ) -> Action: ...


def random_gin(observation: GinObservation, legal: Sequence[Action], rng: random.Random) -> Action:
    """A uniformly random legal action."""
    return rng.choice(list(legal))


def _takes_into_meld(observation: GinObservation) -> bool:
    """Whether the top discard would sit in a meld of the best arrangement."""
    top = observation.discard_pile[-1]
    hand = observation.hand.mask
    with_card = hand | top.mask
    # Left unmatched, the card would add its value; anything less means it melds.
    return deadwood_of_mask(with_card) < deadwood_of_mask(hand) + top.value


def greedy_gin(observation: GinObservation, legal: Sequence[Action], rng: random.Random) -> Action:
    """Take the upcard only into a meld, discard to least deadwood, knock at once."""
    phase = observation.phase
    if phase in (Phase.FIRST_UPCARD, Phase.DRAW):
        if DRAW_DISCARD in legal and _takes_into_meld(observation):
            return DRAW_DISCARD
        return PASS if phase is Phase.FIRST_UPCARD else DRAW_STOCK
    if phase is Phase.LAST_DISCARD:
        return DRAW_DISCARD if DRAW_DISCARD in legal else PASS
    if phase is Phase.DEFEND:
        return next(action for action in legal if isinstance(action, Defend))
    knocks = [action for action in legal if isinstance(action, Knock)]
    if knocks:
        return min(knocks, key=lambda k: sum(card.value for card in _unmatched(observation, k)))
    hand = observation.hand.mask
    discards = [action for action in legal if isinstance(action, Discard)]
    return min(
        discards,
        key=lambda d: (deadwood_of_mask(hand & ~d.card.mask), -d.card.value, d.card.index),
    )


def _unmatched(observation: GinObservation, knock: Knock) -> list[Card]:
    melded = 0
    for meld in knock.melds:
        melded |= meld.cards.mask
    return [card for card in observation.hand if not melded & card.mask and card is not knock.card]
