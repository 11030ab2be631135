"""The baseline bots: ``random`` (any game), ``greedy`` and ``simple`` (Gin Rummy),
``greedy-rummy``.  The reference bots ``search`` and ``strong-rummy`` live in
``arena.bots.reference``; ``arena.bots`` lists them all."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from arena.policies.gin import greedy_gin, random_gin
from arena.policies.simple_gin import SimpleGinPolicy
from arena.proto import bot_pb2 as pb
from arena.sdk import Bot, Decision

__all__ = [
    "GreedyBot",
    "GreedyRummyBot",
    "PolicyBot",
    "RandomBot",
    "SimpleBot",
]


class PolicyBot(Bot[Any, Any]):
    """A bot that asks a policy function.  Its randomness is seeded from ``seed`` and
    its seat at each match start: reproducible, and different for each seat in self-play."""

    # A staticmethod (observation, legal actions, rng) -> action, of whichever game the
    # bot plays; Any, since each game has its own observation and action types.
    policy: ClassVar[Any]
    author = "Rummy Arena"
    version = "1.0"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def on_match_start(self, message: pb.MatchStart) -> None:
        self.rng = random.Random(f"{self.seed}:{message.seat}")

    def decide(self, decision: Decision[Any, Any]) -> Any:
        return type(self).policy(decision.observation, decision.legal_actions, self.rng)


class RandomBot(PolicyBot):
    """A uniformly random legal action (any game)."""

    name = "random"
    games = ("*",)
    policy = staticmethod(random_gin)


class GreedyBot(PolicyBot):
    """Takes the upcard only into a meld, discards to least deadwood, knocks at once."""

    name = "greedy"
    policy = staticmethod(greedy_gin)


class SimpleBot(PolicyBot):
    """The EAAI Gin Rummy challenge's SimpleGinRummyPlayer: takes the face-up card
    into any meld, discards to least deadwood (ties at random), knocks at once.

    Its policy remembers things within a hand (``arena.policies.simple_gin``), so
    each match gets a fresh one and each hand starts it afresh."""

    name = "simple"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.player = SimpleGinPolicy()

    def on_match_start(self, message: pb.MatchStart) -> None:
        super().on_match_start(message)
        self.player = SimpleGinPolicy()

    def on_hand_start(self, message: pb.HandStart) -> None:
        self.player.new_hand()

    def decide(self, decision: Decision[Any, Any]) -> Any:
        return self.player(decision.observation, decision.legal_actions, self.rng)


class GreedyRummyBot(PolicyBot):
    """Basic Rummy: melds and lays off at once, sheds its highest cards."""

    name = "greedy-rummy"
    games = ("rummy/*",)

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        # Imported by the bot that plays Rummy only: a Gin bot's process never loads it.
        from arena.policies.rummy import greedy_rummy

        self.rummy_policy = greedy_rummy

    def decide(self, decision: Decision[Any, Any]) -> Any:
        return self.rummy_policy(decision.observation, decision.legal_actions, self.rng)
