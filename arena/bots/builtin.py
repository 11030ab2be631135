"""The baseline bots: ``random`` and ``greedy`` (Gin Rummy)."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from arena.policies import GinPolicy, greedy_gin, random_gin
from arena.sdk import Bot, Decision

__all__ = ["BUILTIN_BOTS", "GreedyBot", "PolicyBot", "RandomBot"]


class PolicyBot(Bot):
    """A bot that asks a policy function; its randomness is seeded per match."""

    policy: ClassVar[GinPolicy]
    author = "Rummy Arena"
    version = "1.0"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def decide(self, decision: Decision) -> Any:
        return type(self).policy(decision.observation, decision.legal_actions, self.rng)


class RandomBot(PolicyBot):
    """A uniformly random legal action."""

    name = "random"
    policy = staticmethod(random_gin)


class GreedyBot(PolicyBot):
    """Takes the upcard only into a meld, discards to least deadwood, knocks at once."""

    name = "greedy"
    policy = staticmethod(greedy_gin)


BUILTIN_BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot}
