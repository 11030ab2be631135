"""A native vector environment: ``num_envs`` Gin Rummy games stepped in one process,
observations and masks as one batch array each (``gymnasium.make_vec``).

    envs = gymnasium.make_vec("arena/GinRummy-v0", num_envs=64, opponent="random")
    obs, infos = envs.reset(seed=1)          # obs (64, 587), infos["action_mask"] (64, 109)

The planes and legal ids of every game are turned into arrays by one numpy call per step
(in the compiled copy, by the C kernel's call per game into the batch arrays).  Episodes
reset themselves on the step after they end (Gymnasium's ``NEXT_STEP`` autoreset):
that step's action is ignored, its reward is 0 and it returns the new game's first
observation.  Game ``i`` of ``reset(seed=s)`` plays match seed ``s + i``.
"""

from __future__ import annotations

import math
import random
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from arena.envs._core import ENCODE_INTO, EnvConfigError, make_opponent
from arena.envs._gin import ARENA_OBS, GinCore, gin_rules
from arena.envs._solo import Solo, gin_batch, gin_batch_into, step_games
from arena.envs.gym import _gin_opponents

__all__ = ["GinRummyVectorEnv"]


class GinRummyVectorEnv(VectorEnv[npt.NDArray[np.float32], npt.NDArray[np.int64], Any]):
    """``num_envs`` games of ``arena/GinRummy-v0`` (same arguments) in one process."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (Gymnasium's class attribute)
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int = 8,
        opponent: Any = "random",
        preset: str = "standard",
        encoding: str = "arena",
        seat: int = 0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise EnvConfigError(f"num_envs must be a positive integer, got {num_envs!r}")
        if seat not in (0, 1):
            raise EnvConfigError(f"seat must be 0 or 1, got {seat!r}")
        if render_mode is not None:
            raise EnvConfigError("the vector environment does not render (render_mode=None)")
        rules, env_options = gin_rules(preset, options)
        self.num_envs = num_envs
        self.solos: list[Solo] = []
        for _ in range(num_envs):
            rival = make_opponent(opponent, f"gin-rummy/{rules.name}", _gin_opponents())
            opponents = [rival, None] if seat == 1 else [None, rival]
            self.solos.append(Solo(GinCore(rules, env_options, encoding), seat, opponents))
        core = self.solos[0].core
        self.rlcard = encoding == "rlcard"
        shape = core.obs_shape
        self.single_observation_space = spaces.Box(0.0, 1.0, shape, dtype=np.float32)
        self.single_action_space = spaces.Discrete(core.num_actions)
        self.observation_space = spaces.Box(0.0, 1.0, (num_envs, *shape), dtype=np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, core.num_actions))
        self.render_mode = None
        self._num_actions = core.num_actions
        self._obs_shape = shape
        self._seed: int | None = None
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._started = False

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        if isinstance(seed, list):
            raise EnvConfigError("reset(seed=) takes one integer: game i plays seed + i")
        if seed is not None:
            self._seed = seed
        elif self._seed is None:
            self._seed = random.SystemRandom().randrange(2**62)
        else:
            self._seed += self.num_envs
        for i, solo in enumerate(self.solos):
            solo.reset(self._seed + i)
        self._autoreset[:] = False
        self._started = True
        return self._batch()

    def _batch(self) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        n = self.num_envs
        if ENCODE_INTO is not None:  # the compiled copy's C kernel: a call per game
            obs = np.empty((n, math.prod(self._obs_shape)), dtype=np.float32)
            masks = np.empty((n, self._num_actions), dtype=np.int8)
            gin_batch_into(self.solos, obs, masks, self.rlcard, ENCODE_INTO)
            return obs.reshape(n, *self._obs_shape), {"action_mask": masks}
        cells = 52 * (5 if self.rlcard else 10)  # the planes, end to end, then the ids
        size = (cells + self._num_actions + 7) // 8
        packed, tails = gin_batch(self.solos, size, self.rlcard)
        raw = np.frombuffer(packed, dtype=np.uint8).reshape(n, size)
        bits = np.unpackbits(raw, axis=1, bitorder="little")
        masks = bits[:, cells : cells + self._num_actions].view(np.int8)
        if self.rlcard:
            return bits[:, :cells].reshape(n, 5, 52).astype(np.float32), {"action_mask": masks}
        obs = np.empty((n, ARENA_OBS), dtype=np.float32)
        obs[:, :cells] = bits[:, :cells]
        obs[:, cells:] = np.frombuffer(tails, np.float32).reshape(n, -1)
        return obs, {"action_mask": masks}

    def step(
        self, actions: Any
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        n = self.num_envs
        assert self._seed is not None
        ids = np.asarray(actions).tolist()  # Python ints, once
        if len(ids) != n:
            raise ValueError(f"step takes {n} actions, one per game, got {len(ids)}")
        # Python lists, each turned into an array once
        rewards, ended = step_games(self.solos, ids, self._autoreset.tolist(), n)
        terminated = np.array(ended, dtype=bool)
        self._autoreset = terminated.copy()
        obs, infos = self._batch()
        return obs, np.array(rewards), terminated, np.zeros(n, dtype=bool), infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal ids of every game, (num_envs, actions) booleans."""
        masks: npt.NDArray[np.int8] = self._batch()[1]["action_mask"]
        return masks.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        pass
