"""Registers ``arena/GinRummy-v0`` and ``arena/Rummy-v0`` with Gymnasium.

``import arena.envs`` calls ``register_envs()``; ``gymnasium.make("arena.envs:arena/GinRummy-v0")``
imports it for you.  The package also declares this function under the
``gymnasium.envs`` entry-point group (pyproject.toml), which Gymnasium releases before
1.0 load by themselves.
"""

from __future__ import annotations

import gymnasium

__all__ = ["register_envs"]


def register_envs() -> None:
    """Register both environments (again is harmless)."""
    registry = gymnasium.envs.registration.registry
    if "arena/GinRummy-v0" not in registry:
        gymnasium.register(
            id="arena/GinRummy-v0",
            entry_point="arena.envs.gym:GinRummyEnv",
            vector_entry_point="arena.envs.vector:GinRummyVectorEnv",
            disable_env_checker=False,
        )
    if "arena/Rummy-v0" not in registry:
        gymnasium.register(id="arena/Rummy-v0", entry_point="arena.envs.gym:RummyEnv")
