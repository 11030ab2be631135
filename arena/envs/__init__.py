"""Learning environments: PettingZoo (``gin_rummy_v0``, ``rummy_v0``) and Gymnasium
(``arena/GinRummy-v0``, ``arena/Rummy-v0``, registered on import), over the engines.

Needs the ``learn`` extra (numpy, gymnasium, pettingzoo).  docs/ENVS.md describes the
observations, the action ids, the rewards and the seeding.
"""

from __future__ import annotations

from arena.envs._core import EnvConfigError, IllegalActionIdError
from arena.envs.registration import register_envs

__all__ = ["EnvConfigError", "IllegalActionIdError", "register_envs"]

register_envs()
