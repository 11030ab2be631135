"""A Gin bot for the re-ask tests, in two versions that differ only in which
unmatched card they shed: ``highest`` (the recorded one) or ``lowest`` (the "new
version").  At request R: ``--crash-at R`` exits, ``--sleep-at R`` sleeps
(``--sleep-s``, 30 s by default: past any deadline), ``--illegal-at R`` discards a
card it does not hold; ``--unseeded`` discards a card drawn by the operating
system's randomness (a bot that answers the same question differently).  Run as
``python edgebot.py highest [--crash-at R] [--sleep-at R [--sleep-s S]]
[--illegal-at R] [--unseeded]``.

``choose`` is the whole strategy, a pure function of the observation, so a test can
compute independently, from the engine, where the two versions part."""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Sequence
from typing import Any

from arena.cards import ALL_CARDS, CardSet, best_arrangement
from arena.games import gin_rummy as gin


def choose(version: str, observation: Any, legal: Sequence[Any]) -> Any:
    if gin.PASS in legal:
        return gin.PASS
    if gin.DRAW_STOCK in legal:
        return gin.DRAW_STOCK
    knocks = [action for action in legal if isinstance(action, gin.Knock)]
    if knocks:
        return knocks[0]
    discards = [action for action in legal if isinstance(action, gin.Discard)]
    if not discards:
        return legal[0]  # a defence: the first one listed
    melded = CardSet.of(
        card for meld in best_arrangement(observation.hand).melds for card in meld.cards
    )
    loose = [action for action in discards if action.card not in melded] or discards
    if version == "lowest":
        return min(loose, key=lambda action: (action.card.value, action.card.index))
    return max(loose, key=lambda action: (action.card.value, action.card.index))


def main() -> None:
    from arena.sdk import Bot, Decision, serve

    parser = argparse.ArgumentParser()
    parser.add_argument("version", choices=["highest", "lowest"])
    parser.add_argument("--crash-at", type=int, default=0)
    parser.add_argument("--sleep-at", type=int, default=0)
    parser.add_argument("--sleep-s", type=float, default=30.0)
    parser.add_argument("--unseeded", action="store_true")
    parser.add_argument("--illegal-at", type=int, default=0)
    args = parser.parse_args()

    class EdgeBot(Bot[Any, Any]):
        name = "edge"
        games = ("gin-rummy/*",)

        def decide(self, decision: Decision[Any, Any]) -> Any:
            request = decision.message.request_id
            if request == args.crash_at:
                os._exit(3)
            if request == args.sleep_at:
                time.sleep(args.sleep_s)
            legal = decision.legal_actions
            if request == args.illegal_at:  # a card it does not hold: no listed action
                hand = decision.observation.hand
                return gin.discard(next(card for card in ALL_CARDS if card not in hand))
            discards = [action for action in legal if isinstance(action, gin.Discard)]
            if args.unseeded and discards:
                return random.SystemRandom().choice(discards)
            return choose(args.version, decision.observation, legal)

    serve(EdgeBot(), argv=[])


if __name__ == "__main__":
    main()
