"""The EAAI Gin Rummy challenge's baseline, SimpleGinRummyPlayer, as a policy.

Followed from ``SimpleGinRummyPlayer.java`` in Todd Neller's ``gin-rummy-eaai``
repository (the challenge's software, 2020), whose own summary is: ignore the
opponent; draw the face-up card only if it becomes part of a meld; discard to the
least deadwood; knock as early as possible.  Point by point:

- **Draw** (``willDrawFaceUpCard``): take the face-up card if *any* meld of the
  hand plus that card contains it (a set of its rank or a run of 3+ through it),
  whether or not that meld is in a best arrangement.  Otherwise draw face down.
- **Discard** (``getDiscard``): among the cards that may go, those leaving the
  least deadwood in a best arrangement, one chosen at random.  Never the card just
  taken face up; and never a card whose pair (card drawn this turn, card
  discarded) was already played earlier in the same hand ("disallow repeat of
  draw and discard"): the player remembers its pairs from one turn to the next.
- **Knock** (``getFinalMelds``): as soon as the hand left after that discard has
  deadwood within the limit (the Java's 10; here the rules' ``knock_limit``),
  laying down a best arrangement.

Where this arena differs from the challenge's game, the nearest reading:

- The Java seeds ``new Random()`` from the clock; here every tie is broken by the
  caller's ``rng`` (the bot seeds it from its seed and seat), over the tied cards
  in card order, so a game replays exactly.
- A defender's melds and layoffs are one action here; the challenge's game lays
  off for the defender automatically, card after card.  This policy takes the
  defence that leaves the least deadwood (ties at random).
- The Java knocks with a random one of its best arrangements; the referee offers
  one best arrangement per knock discard, and this policy lays that one down.
- The challenge cancels a hand when two stock cards remain; in rule sets with the
  last-discard variant this policy takes the last discard whenever it is offered
  (only offered when a knock follows), knocking as soon as allowed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

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

__all__ = ["SimpleGinPolicy", "makes_any_meld"]

_SUIT_BITS: Final = 0x1FFF


def makes_any_meld(hand_mask: int, card: Card) -> bool:
    """Whether ``card`` lies in some meld made of it and cards of ``hand_mask``:
    two more of its rank, or a run of three or more (ace low) through it."""
    same_rank = sum(hand_mask >> (13 * suit + card.rank) & 1 for suit in range(4))
    if same_rank - (hand_mask >> card.index & 1) >= 2:
        return True
    suit = (hand_mask >> 13 * card.suit & _SUIT_BITS) | 1 << card.rank
    starts = suit & suit >> 1 & suit >> 2  # bit r: ranks r, r+1, r+2 all held
    return bool((starts | starts << 1 | starts << 2) >> card.rank & 1)


class SimpleGinPolicy:
    """SimpleGinRummyPlayer's decisions (see the module docstring).

    One instance plays one game (or match) for one seat: it remembers, within a
    hand, its hand before each draw (to know the card drawn from the stock) and the
    (drawn, discarded) pairs it played.  ``new_hand`` forgets them; so does an
    observation of another hand number."""

    def __init__(self) -> None:
        self._hand_number: int | None = None
        self._before_draw: int | None = None  # mask of the 10 cards held before drawing
        self._played_pairs: set[int] = set()  # masks of {card drawn, card discarded}

    def new_hand(self) -> None:
        self._hand_number = None
        self._before_draw = None
        self._played_pairs.clear()

    def __call__(
        self, observation: GinObservation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        if observation.hand_number != self._hand_number:
            self.new_hand()
            self._hand_number = observation.hand_number
        phase = observation.phase
        if phase in (Phase.FIRST_UPCARD, Phase.DRAW, Phase.LAST_DISCARD):
            self._before_draw = observation.hand.mask
            if phase is Phase.LAST_DISCARD:
                return DRAW_DISCARD if DRAW_DISCARD in legal else PASS
            if DRAW_DISCARD in legal and makes_any_meld(
                observation.hand.mask, observation.discard_pile[-1]
            ):
                return DRAW_DISCARD
            return PASS if phase is Phase.FIRST_UPCARD else DRAW_STOCK
        if phase is Phase.DEFEND:
            return self._defend(observation, legal, rng)
        return self._discard(observation, legal, rng)

    def _drawn_card(self, hand_mask: int) -> int:
        """The mask of the card drawn this turn, or 0 when it cannot be told."""
        before = self._before_draw
        if before is None or before & ~hand_mask:
            return 0
        new = hand_mask & ~before
        return new if new and not new & (new - 1) else 0

    def _discard(
        self, observation: GinObservation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        hand = observation.hand.mask
        knocks = {action.card: action for action in legal if isinstance(action, Knock)}
        # Discards the referee allows (never the face-up card just taken), or, when it
        # only allows knocks (having taken the last discard), the knock discards.
        allowed = [action.card for action in legal if isinstance(action, Discard)] or list(knocks)
        drawn = self._drawn_card(hand)
        fresh = [card for card in allowed if (drawn | card.mask) not in self._played_pairs]
        candidates = sorted(fresh or allowed)
        least = min(deadwood_of_mask(hand & ~card.mask) for card in candidates)
        chosen = rng.choice(
            [card for card in candidates if deadwood_of_mask(hand & ~card.mask) == least]
        )
        if drawn:
            self._played_pairs.add(drawn | chosen.mask)
        self._before_draw = None
        knock = knocks.get(chosen)
        if knock is not None:
            return knock
        return next(a for a in legal if isinstance(a, Discard) and a.card is chosen)

    @staticmethod
    def _defend(observation: GinObservation, legal: Sequence[Action], rng: random.Random) -> Action:
        hand = observation.hand.mask
        defences = [action for action in legal if isinstance(action, Defend)]

        def deadwood(defence: Defend) -> int:
            laid_off = 0
            for layoff in defence.layoffs:
                laid_off |= layoff.card.mask
            return deadwood_of_mask(hand & ~laid_off)

        least = min(deadwood(defence) for defence in defences)
        return rng.choice([defence for defence in defences if deadwood(defence) == least])
