"""Simple in-process policies: the demo's players and the built-in bots' brains.

The names below are imported when first used: a bot that plays one game loads only
that game's policies (and engine)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.policies.gin import GinPolicy, greedy_gin, random_gin
    from arena.policies.rummy import greedy_rummy
    from arena.policies.simple_gin import SimpleGinPolicy

_HOMES = {
    "GinPolicy": "gin",
    "SimpleGinPolicy": "simple_gin",
    "greedy_gin": "gin",
    "greedy_rummy": "rummy",
    "random_gin": "gin",
}

__all__ = ["GinPolicy", "SimpleGinPolicy", "greedy_gin", "greedy_rummy", "random_gin"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
