"""Gymnasium single-agent environments: one learner against in-process opponents.

    import arena.envs, gymnasium
    env = gymnasium.make("arena/GinRummy-v0", opponent="simple")
    env = gymnasium.make("arena/Rummy-v0", num_players=4, opponents=["greedy-rummy"] * 3)

The ``random`` opponent plays a uniformly random legal id.  Observations are the flat float32 arrays of the PettingZoo environments (for
``encoding="rlcard"`` the 5x52 planes); the mask is ``info["action_mask"]`` and
``env.action_masks()`` (what sb3-contrib's MaskablePPO reads).  An opponent is a
built-in bot name, a registered plugin bot's name, a policy callable
``(observation, legal_actions, rng) -> action`` on the engine's types, or an SDK
``Bot``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from arena.envs._core import (
    EnvConfigError,
    IllegalActionIdError,
    Opponent,
    make_opponent,
    masks_to_array,
)
from arena.envs._gin import GinCore, gin_rules
from arena.envs._rummy import RummyCore, rummy_rules
from arena.envs._solo import Solo

__all__ = ["GIN_OPPONENTS", "RUMMY_OPPONENTS", "GinRummyEnv", "LegalDiscrete", "RummyEnv", "Solo"]


def _gin_opponents() -> dict[str, Any]:
    from arena.policies import SimpleGinPolicy, greedy_gin

    def simple() -> Opponent:
        player = SimpleGinPolicy()
        return Opponent("simple", player, player.new_hand)

    return {
        "random": lambda: Opponent("random", None),
        "greedy": lambda: Opponent("greedy", greedy_gin),
        "simple": simple,
    }


def _rummy_opponents() -> dict[str, Any]:
    from arena.policies import greedy_rummy

    return {
        "random": lambda: Opponent("random", None),
        "greedy-rummy": lambda: Opponent("greedy-rummy", greedy_rummy),
    }


GIN_OPPONENTS = ("random", "greedy", "simple")
RUMMY_OPPONENTS = ("random", "greedy-rummy")


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws a legal id of the env's
    current position (so a random agent, and Gymnasium's ``check_env``, play legal
    moves); with a mask or probabilities it is ``Discrete.sample``."""

    def __init__(self, n: int, legal: Any = None) -> None:
        super().__init__(n)
        self._legal = legal

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None and self._legal is not None:
            legal = self._legal()
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __deepcopy__(self, memo: dict[int, Any]) -> LegalDiscrete:
        copy = LegalDiscrete(int(self.n))
        copy.np_random.bit_generator.state = self.np_random.bit_generator.state
        return copy


class _SoloEnv(gymnasium.Env[npt.NDArray[np.float32], np.int64]):
    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium's attribute)

    def _setup(self, solo: Solo, render_mode: str | None, options: dict[str, Any]) -> None:
        # Gymnasium's contract (and check_env) is that any action of the action space
        # may be stepped, so here an illegal id ends the episode as a loss unless
        # terminate_illegal=False, which raises the error instead (the PettingZoo
        # environments raise unless terminate_illegal=True).
        self.terminate_illegal = options.get("terminate_illegal", True)
        if render_mode not in (None, "ansi"):
            raise EnvConfigError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.solo = solo
        core = solo.core
        shape = core.obs_shape
        self.observation_space = spaces.Box(0.0, core.obs_high, shape, dtype=np.float32)
        self.action_space = LegalDiscrete(core.num_actions, self.action_masks)
        self._seed: int | None = None
        self._done = True
        self._started = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seed = seed
        elif self._seed is None:
            self._seed = int(self.np_random.integers(2**63))
        else:
            self._seed += 1
        self.solo.reset(self._seed)
        self._done = self.solo.core.is_over()
        self._started = True
        return self._obs(), self._info()

    def _obs(self) -> npt.NDArray[np.float32]:
        return self.solo.core.observe(self.solo.seat)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal ids as booleans (sb3-contrib's MaskablePPO calls this)."""
        core = self.solo.core
        if core.to_act() != self.solo.seat:
            return np.zeros(core.num_actions, dtype=bool)
        mask: npt.NDArray[np.bool_] = masks_to_array([core.legal_mask()], core.num_actions)[0]
        return mask.astype(bool)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks().astype(np.int8)}

    def step(
        self, action: Any
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if self._done:
            raise gymnasium.error.ResetNeeded(
                "cannot step: the episode is over (terminated); call reset()"
            )
        core = self.solo.core
        try:
            reward = self.solo.step(int(action))
        except IllegalActionIdError as error:
            if not self.terminate_illegal:
                raise
            gymnasium.logger.warn(f"illegal action, the episode ends as a loss: {error}")
            self._done = True
            return self._obs(), float(core.options.illegal_reward), True, False, self._info()
        self._done = core.is_over()
        return self._obs(), reward, self._done, False, self._info()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (use 'ansi')")
            return None
        return self.solo.core.render()


class GinRummyEnv(_SoloEnv):
    """``arena/GinRummy-v0``: the learner at ``seat`` (0) against ``opponent``."""

    def __init__(
        self,
        opponent: Any = "random",
        preset: str = "standard",
        encoding: str = "arena",
        seat: int = 0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        rules, env_options = gin_rules(preset, options)
        core = GinCore(rules, env_options, encoding)
        given = dict(options)
        if seat not in (0, 1):
            raise EnvConfigError(f"seat must be 0 or 1, got {seat!r}")
        rival = make_opponent(opponent, f"gin-rummy/{rules.name}", _gin_opponents())
        opponents = [rival, None] if seat == 1 else [None, rival]
        self._setup(Solo(core, seat, opponents), render_mode, given)


class RummyEnv(_SoloEnv):
    """``arena/Rummy-v0``: the learner at ``seat`` (0) against ``opponents`` (one per
    other seat, in seat order; default all ``random``)."""

    def __init__(
        self,
        num_players: int = 2,
        opponents: Sequence[Any] | None = None,
        seat: int = 0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        given = dict(options)
        rules, env_options = rummy_rules(num_players, dict(options))
        core = RummyCore(rules, num_players, env_options)
        names = list(opponents) if opponents is not None else ["random"] * (num_players - 1)
        if len(names) != num_players - 1:
            raise EnvConfigError(
                f"opponents must name {num_players - 1} bots for {num_players} players, got {len(names)}"
            )
        if not 0 <= seat < num_players:
            raise EnvConfigError(f"seat must be 0..{num_players - 1}, got {seat!r}")
        made = [make_opponent(n, f"rummy/{rules.name}", _rummy_opponents()) for n in names]
        seats: list[Opponent | None] = [*made[:seat], None, *made[seat:]]
        self._setup(Solo(core, seat, seats), render_mode, given)
