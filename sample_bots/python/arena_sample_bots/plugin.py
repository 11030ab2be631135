"""The plugin module named by the ``rummy_arena`` entry point of this package.

The arena's plugin manager calls ``arena_register_bots`` and registers each bot
factory it returns (a ``Bot`` subclass is a factory: calling it makes a bot).
"""

from __future__ import annotations

from arena.plugins import hookimpl
from arena.sdk import Bot

from arena_sample_bots.strong import StrongBot

__all__ = ["arena_register_bots"]


@hookimpl
def arena_register_bots() -> list[type[Bot]]:
    """The sample bots this package adds to the arena."""
    return [StrongBot]
