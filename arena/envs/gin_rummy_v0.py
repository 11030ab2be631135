"""Gin Rummy as a PettingZoo AEC environment (two agents, ``player_0`` and ``player_1``).

    from arena.envs import gin_rummy_v0
    env = gin_rummy_v0.env(preset="standard", encoding="arena", render_mode=None)

``preset``: ``standard``, ``classic`` or ``oklahoma``; ``encoding``: ``arena`` (every fact
a seat may know, 109 action ids) or ``rlcard`` (RLCard's 5x52 planes and 110 ids);
``**options``: any ``GinRules`` parameter (``knock_limit``, ``last_discard``, ...) and the
environment options (``reward``, ``hands_only``, ``max_deals``, ``terminate_illegal``,
``illegal_reward``).  docs/ENVS.md describes it all.
"""

from __future__ import annotations

from typing import Any

from arena.envs._aec import CardGameAEC, wrap
from arena.envs._gin import GinCore, gin_rules

__all__ = ["env", "raw_env"]

NAME = "gin_rummy_v0"


def raw_env(
    preset: str = "standard",
    encoding: str = "arena",
    render_mode: str | None = None,
    **options: Any,
) -> CardGameAEC:
    """The environment without wrappers (bad names and values refused here)."""
    rules, env_options = gin_rules(preset, options)
    return CardGameAEC(GinCore(rules, env_options, encoding), NAME, render_mode)


def env(
    preset: str = "standard",
    encoding: str = "arena",
    render_mode: str | None = None,
    **options: Any,
) -> Any:
    """The environment with PettingZoo's wrappers (``terminate_illegal=True`` adds the
    illegal-move loss of ``TerminateIllegalWrapper``)."""
    return wrap(raw_env(preset, encoding, render_mode, **options))
