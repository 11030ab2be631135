"""A scripted opponent: an in-process SDK bot that plays a short script, then a plain policy.

``arena check`` seats one against the bot under test in hand-built deals, so the
decisions a scenario is about arise whatever the bot under test chooses.  The
script is a list of action texts (``"discard 9D"``, ``"meld 9C-9D-JK=9H"``); at
each decision the next item is played when an action of its kind is on offer,
otherwise the plain policy decides and the item waits.  The plain policy never
looks ahead: Gin Rummy — pass or take the first upcard (``take_upcard``), draw
from the stock, knock at once with the least deadwood (``knock``), else throw the
highest card, defend with the first listed defence, pass the last discard; Basic
Rummy — draw from the stock, lay the first listed meld or layoff (``lay``), else
throw the highest card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.cards import CardSet
from arena.games import gin_rummy as gin
from arena.games import rummy
from arena.sdk import Bot, Decision

__all__ = ["ScriptedOpponent"]


class ScriptedOpponent(Bot[Any, Any]):
    """Plays ``script`` (action texts) where it fits, else the plain policy above."""

    name = "scripted-opponent"
    author = "Rummy Arena check"
    version = "1"
    games = ("*",)

    def __init__(
        self,
        script: Sequence[str] = (),
        *,
        take_upcard: bool = False,
        knock: bool = True,
        lay: bool = True,
    ) -> None:
        self.script = list(script)
        self.take_upcard = take_upcard
        self.knock = knock
        self.lay = lay

    def decide(self, decision: Decision[Any, Any]) -> Any:
        legal = decision.legal_actions
        family = decision.game_id.split("/", 1)[0]
        if self.script:
            wanted = (
                rummy.parse_action(self.script[0])
                if family == "rummy"
                else gin.parse_action(self.script[0])
            )
            # An action of a kind on offer: a knock or meld may use other melds than listed.
            if wanted in legal or any(type(action) is type(wanted) for action in legal):
                self.script.pop(0)
                return wanted
        if family == "rummy":
            return self._rummy(decision.observation, legal)
        return self._gin(decision.observation, legal)

    def _gin(self, observation: gin.GinObservation, legal: list[Any]) -> Any:
        phase = observation.phase
        if phase is gin.Phase.FIRST_UPCARD:
            return gin.DRAW_DISCARD if self.take_upcard else gin.PASS
        if phase is gin.Phase.DRAW:
            return gin.DRAW_STOCK
        if phase is gin.Phase.DISCARD:
            knocks = [action for action in legal if isinstance(action, gin.Knock)]
            if knocks and (self.knock or len(knocks) == len(legal)):
                return min(knocks, key=lambda knock: _knock_deadwood(observation.hand, knock))
            discards = [action for action in legal if isinstance(action, gin.Discard)]
            return max(discards, key=lambda action: (action.card.value, action.card.index))
        if phase is gin.Phase.LAST_DISCARD:
            return gin.PASS
        return legal[0]  # DEFEND: the listed defences come best first

    def _rummy(self, observation: rummy.RummyObservation, legal: list[Any]) -> Any:
        if observation.phase is rummy.Phase.DRAW:
            return rummy.DRAW_STOCK if rummy.DRAW_STOCK in legal else legal[0]
        if self.lay:
            for kind in (rummy.LayMeld, rummy.LayOff):
                for action in legal:
                    if isinstance(action, kind):
                        return action
        discards = [action for action in legal if isinstance(action, rummy.Discard)]
        if not discards:
            return legal[0]
        return max(
            discards, key=lambda action: (rummy.PENALTIES[action.card.index], action.card.index)
        )


def _knock_deadwood(hand: CardSet, knock: gin.Knock) -> int:
    melded = CardSet()
    for meld in knock.melds:
        melded = melded | meld.cards
    return (hand - melded).remove(knock.card).value
