"""Built-in bots (SDK bots around the baseline policies) and how to serve one."""

from arena.bots.builtin import BUILTIN_BOTS, GreedyBot, GreedyRummyBot, RandomBot, SimpleBot

__all__ = ["BUILTIN_BOTS", "GreedyBot", "GreedyRummyBot", "RandomBot", "SimpleBot"]
