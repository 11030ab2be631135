"""Simple in-process policies: the demo's players and the built-in bots' brains."""

from arena.policies.gin import GinPolicy, greedy_gin, random_gin
from arena.policies.rummy import greedy_rummy
from arena.policies.simple_gin import SimpleGinPolicy

__all__ = ["GinPolicy", "SimpleGinPolicy", "greedy_gin", "greedy_rummy", "random_gin"]
