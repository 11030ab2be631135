"""Simple in-process policies: the demo's players and the sample bots' brains."""

from arena.policies.gin import GinPolicy, greedy_gin, random_gin

__all__ = ["GinPolicy", "greedy_gin", "random_gin"]
