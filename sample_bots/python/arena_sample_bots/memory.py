"""What one seat remembers about the current hand between its own decisions.

An observation shows the discard pile and the cards the opponent took from it and
still holds, but not who discarded what, nor which cards the opponent refused.
``HandMemory.observe`` reconstructs that from consecutive observations of one seat:

* the card we left on top of the pile and that is still in the pile when we act
  again was *passed* by the opponent (he drew from the stock instead);
* a card in the pile that we did not discard (and that is not the first upcard)
  was *discarded* by the opponent.

Memory that does not match the observation (a new hand, a new game, a bot that was
restarted) is reset, so a fresh ``HandMemory`` is always a safe start.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arena.cards import Card
from arena.games.gin_rummy import Action, Discard, GinObservation, Knock, Pass, Phase

__all__ = ["HandMemory", "mask_of"]

HandKey = tuple[int, int, int, int, int]


def mask_of(cards: Iterable[Card]) -> int:
    """The 52-bit mask of some cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


@dataclass(slots=True)
class HandMemory:
    """Per-hand facts about the opponent, as card masks (bit ``suit * 13 + rank``)."""

    key: HandKey | None = None
    upcard: int = 0  # the first upcard (mask), when we saw the start of the hand
    my_discards: int = 0
    opp_discards: int = 0
    opp_passed: int = 0  # cards offered to the opponent that he did not take
    opp_took: int = 0  # every card the opponent took from the pile this hand
    pending: int = 0  # the card we offered the opponent with our last action
    hand_after: int = -1  # our hand after our last action (-1: unknown)
    decisions: int = 0
    opp_last_discard: int = -1  # index of the opponent's latest discard (-1: none seen)

    def reset(self, key: HandKey | None = None) -> None:
        self.key = key
        self.upcard = 0
        self.my_discards = 0
        self.opp_discards = 0
        self.opp_passed = 0
        self.opp_took = 0
        self.pending = 0
        self.hand_after = -1
        self.decisions = 0
        self.opp_last_discard = -1

    def _consistent(self, observation: GinObservation) -> bool:
        hand = observation.hand.mask
        if self.hand_after < 0:
            return True
        if observation.phase is Phase.DISCARD:  # one card drawn since our last action
            grew = hand.bit_count() == self.hand_after.bit_count() + 1
            return grew and self.hand_after & ~hand == 0
        return hand == self.hand_after

    def observe(self, observation: GinObservation) -> None:
        """Fold one observation (taken when this seat is to act) into the memory."""
        key = (
            observation.seat,
            observation.hand_number,
            observation.dealer,
            observation.scores[0],
            observation.scores[1],
        )
        if key != self.key or not self._consistent(observation):
            self.reset(key)
            if observation.phase is Phase.FIRST_UPCARD and observation.discard_pile:
                self.upcard = observation.discard_pile[0].mask
        pile = mask_of(observation.discard_pile)
        known = observation.opponent_known.mask
        self.opp_took |= known
        if self.pending:
            if self.pending & pile and not self.pending & known:
                self.opp_passed |= self.pending
            self.pending = 0
        if (
            observation.phase is Phase.FIRST_UPCARD
            and observation.seat == observation.dealer
            and observation.discard_pile
        ):
            self.opp_passed |= observation.discard_pile[0].mask  # the non-dealer passed it
        self.opp_discards |= pile & ~self.my_discards & ~self.upcard
        if observation.phase is Phase.DRAW and observation.discard_pile:
            top = observation.discard_pile[-1]
            if not top.mask & (self.my_discards | self.upcard):
                self.opp_last_discard = top.index
        self.decisions += 1

    def record(self, observation: GinObservation, action: Action) -> None:
        """Remember our own action (call after deciding)."""
        hand = observation.hand.mask
        if isinstance(action, Discard | Knock):
            bit = action.card.mask
            self.my_discards |= bit
            self.pending = bit
            self.hand_after = hand & ~bit
        elif isinstance(action, Pass):
            self.hand_after = hand
            if observation.phase is Phase.FIRST_UPCARD and observation.seat != observation.dealer:
                self.pending = mask_of(observation.discard_pile[-1:])
        else:  # a draw: the drawn card shows up in the next observation
            self.hand_after = hand
