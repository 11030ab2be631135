"""Basic Rummy for 2 to 6 players as a PettingZoo AEC environment.

    from arena.envs import rummy_v0
    env = rummy_v0.env(num_players=4, preset="standard", render_mode=None)

``preset``: ``standard``, ``winner-takes-all``, ``jokers`` or ``deuces``; ``**options``:
any ``RummyRules`` parameter (``wild``, ``ace``, ``target``, ...) and the environment
options (``reward``, ``hands_only``, ``max_deals``, ``terminate_illegal``,
``illegal_reward``).  docs/ENVS.md describes it all.
"""

from __future__ import annotations

from typing import Any

from arena.envs._aec import CardGameAEC, wrap
from arena.envs._rummy import RummyCore, rummy_rules

__all__ = ["env", "raw_env"]

NAME = "rummy_v0"


def raw_env(num_players: int = 2, render_mode: str | None = None, **options: Any) -> CardGameAEC:
    """The environment without wrappers (bad names and values refused here)."""
    rules, env_options = rummy_rules(num_players, dict(options))
    return CardGameAEC(RummyCore(rules, num_players, env_options), NAME, render_mode)


def env(num_players: int = 2, render_mode: str | None = None, **options: Any) -> Any:
    """The environment with PettingZoo's wrappers (``terminate_illegal=True`` adds the
    illegal-move loss of ``TerminateIllegalWrapper``)."""
    return wrap(raw_env(num_players, render_mode, **options))
