"""The ecosystems' own checkers: PettingZoo's api_test and seed test on every preset
and seat count, Gymnasium's check_env on the single-agent environments, make_vec."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import arena.envs
from arena.envs import gin_rummy_v0, rummy_v0

from .helpers import GIN_CONFIGS, RUMMY_CONFIGS, config_id

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("config", GIN_CONFIGS, ids=config_id)
def test_gin_api(config: dict[str, Any]) -> None:
    api_test(gin_rummy_v0.env(**config), num_cycles=300)
    seed_test(lambda: gin_rummy_v0.env(**config), num_cycles=100)


@pytest.mark.parametrize("config", RUMMY_CONFIGS, ids=config_id)
def test_rummy_api(config: dict[str, Any]) -> None:
    api_test(rummy_v0.env(**config), num_cycles=100)
    seed_test(lambda: rummy_v0.env(**config), num_cycles=40)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"opponent": "random"},
        {"opponent": "greedy", "preset": "classic"},
        {"opponent": "simple", "preset": "oklahoma"},
        {"opponent": "simple", "encoding": "rlcard", "hands_only": True},
        {"opponent": "random", "seat": 1, "last_discard": True},
    ],
    ids=config_id,
)
def test_gin_check_env(kwargs: dict[str, Any]) -> None:
    env = gymnasium.make("arena/GinRummy-v0", **kwargs)
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("num_players", range(2, 7))
def test_rummy_check_env(num_players: int) -> None:
    opponents = ["greedy-rummy", "random"] * 3
    env = gymnasium.make(
        "arena/Rummy-v0", num_players=num_players, opponents=opponents[: num_players - 1]
    )
    check_env(env.unwrapped, skip_render_check=True)


def test_registered_under_module_prefix() -> None:
    env = gymnasium.make("arena.envs:arena/GinRummy-v0", opponent="random")
    assert env.unwrapped.action_space == gymnasium.spaces.Discrete(109)
    arena.envs.register_envs()  # again: harmless
    assert gymnasium.make("arena/GinRummy-v0").unwrapped.action_space == env.action_space


def test_make_vec_is_native_and_batched() -> None:
    envs = gymnasium.make_vec("arena/GinRummy-v0", num_envs=5, opponent="simple")
    assert type(envs).__name__ == "GinRummyVectorEnv"
    obs, infos = envs.reset(seed=7)
    assert obs.shape == (5, 587) and infos["action_mask"].shape == (5, 109)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(600):
        actions = [
            rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in infos["action_mask"]
        ]
        obs, _, terminated, _, infos = envs.step(np.array(actions))
        ended += int(terminated.sum())
        # A finished game shows no legal id; the next step resets it (NEXT_STEP).
        assert (infos["action_mask"].any(axis=1) == ~terminated).all()
    assert ended > 0
    # Game i of reset(seed=s) is the single environment's game with seed s + i.
    single = gymnasium.make("arena/GinRummy-v0", opponent="simple").unwrapped
    first, _ = single.reset(seed=9)
    batch, _ = envs.reset(seed=7)
    np.testing.assert_array_equal(batch[2], first)


def test_render_ansi() -> None:
    env = gin_rummy_v0.env(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "Gin Rummy (standard), match seed 1" in text and "seat 0:" in text
    env = rummy_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=1)
    assert "Basic Rummy (standard, 3 seats)" in env.render()


@pytest.mark.parametrize("terminate_illegal", [False, True])
def test_order_checks_are_pettingzoos(terminate_illegal: bool) -> None:
    """env() is PettingZoo's OrderEnforcingWrapper (a subclass on a faster path once
    reset): the same errors before reset, the same name, the same attributes after."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    ours = gin_rummy_v0.env(terminate_illegal=terminate_illegal)
    theirs = OrderEnforcingWrapper(ours.env)
    assert isinstance(ours, OrderEnforcingWrapper)
    assert str(ours) == str(theirs) == "gin_rummy_v0"
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos"):
        for env in (ours, theirs):
            with pytest.raises(AttributeError, match=f"^{name} cannot be accessed before reset$"):
                getattr(env, name)
            assert not hasattr(env, name)
    for env in (ours, theirs):
        with pytest.raises(AssertionError, match="reset"):
            env.step(0)
        with pytest.raises(AssertionError, match="reset"):
            env.observe("player_0")
    ours.reset(seed=3)
    inner = ours.unwrapped
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos"):
        assert getattr(ours, name) is getattr(inner, name)
    ours.step(int(np.flatnonzero(ours.observe(ours.agent_selection)["action_mask"])[0]))
    assert ours.agent_selection == inner.agent_selection
    assert ours.terminations is inner.terminations
    # PettingZoo's wrapper would keep a copy that hides the env's value; ours refuses.
    with pytest.raises(AttributeError, match="agent_selection is the wrapped environment's"):
        ours.agent_selection = "set on the wrapper"
    assert ours.agent_selection == inner.agent_selection
    observation, _, terminated, _, _ = ours.last()
    assert observation is not None and terminated == inner.terminations[inner.agent_selection]
