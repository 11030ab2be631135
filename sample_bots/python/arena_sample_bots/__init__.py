"""Sample bots for Rummy Arena, packaged as a third-party plugin.

``strong`` is the strongest sample: see ``arena_sample_bots.strong``.
"""

from arena_sample_bots.memory import HandMemory
from arena_sample_bots.strong import StrongBot, StrongParams, StrongPolicy, decide

__all__ = ["HandMemory", "StrongBot", "StrongParams", "StrongPolicy", "decide"]
