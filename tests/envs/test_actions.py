"""Action ids: the mask is the engine's listing, every id in it is accepted, every
other is refused naming the rule and the legal ids; bad configurations are refused
before the first reset; finished episodes refuse steps."""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
import pytest

from arena.envs import EnvConfigError, IllegalActionIdError, gin_rummy_v0, rummy_v0
from arena.games.gin_rummy import encoding as enc

from .helpers import legal_ids

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize(
    "options",
    [{}, {"preset": "oklahoma"}, {"last_discard": True}, {"knock_limit": 0}],
    ids=str,
)
def test_gin_fast_mask_is_the_engines_listing(options: dict[str, Any]) -> None:
    env = gin_rummy_v0.raw_env(hands_only=True, **options)
    rng = random.Random(5)
    decisions = 0
    for seed in range(50):
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            hand = env.core.game.hand
            seat = hand.current_seat()
            listed = hand.legal_actions()
            expected = 0
            for action in listed:
                expected |= 1 << enc.action_id(action)
            assert enc.legal_ids(hand, hand.visible(seat)) == expected
            for action in listed:  # each id plays the listed action (knocks: same melds)
                if not isinstance(action, enc.Defend):
                    assert enc.arena_action(hand, enc.action_id(action)) == action
            decisions += 1
            env.step(rng.choice(legal_ids(env.observe(env.agent_selection)["action_mask"])))
    assert decisions > 1500


def _positions(make: Any, seeds: range, every: int) -> list[tuple[int, list[int]]]:
    """(seed, ids played so far) at every ``every``-th decision of random episodes."""
    rng = random.Random(11)
    found: list[tuple[int, list[int]]] = []
    for seed in seeds:
        env = make()
        env.reset(seed=seed)
        played: list[int] = []
        while not all(env.terminations.values()):
            if len(played) % every == 0 and len(found) < 40:
                found.append((seed, list(played)))
            ident = rng.choice(legal_ids(env.observe(env.agent_selection)["action_mask"]))
            played.append(ident)
            env.step(ident)
    return found


def _at(make: Any, seed: int, played: list[int]) -> Any:
    env = make()
    env.reset(seed=seed)
    for ident in played:
        env.step(ident)
    return env


@pytest.mark.parametrize(
    ("make", "seeds", "every"),
    [
        (lambda: gin_rummy_v0.raw_env(hands_only=True), range(4), 7),
        (lambda: gin_rummy_v0.raw_env(encoding="rlcard", hands_only=True), range(3), 7),
        (lambda: gin_rummy_v0.raw_env(last_discard=True, hands_only=True), range(4), 7),
        (lambda: rummy_v0.raw_env(num_players=3, preset="jokers", hands_only=True), range(1), 15),
        (lambda: rummy_v0.raw_env(num_players=6, preset="deuces", hands_only=True), range(1), 15),
    ],
    ids=["gin", "gin-rlcard", "gin-last-discard", "rummy-3-jokers", "rummy-6-deuces"],
)
def test_mask_ids_accepted_others_refused_with_the_rule(
    make: Any, seeds: range, every: int
) -> None:
    for seed, played in _positions(make, seeds, every):
        env = _at(make, seed, played)
        agent = env.agent_selection
        before = env.observe(agent)
        legal = legal_ids(before["action_mask"])
        assert legal
        for ident in range(env.action_space(agent).n):
            if ident in legal:
                continue
            with pytest.raises(IllegalActionIdError) as refused:
                env.step(ident)
            error = refused.value
            assert error.action == ident and list(error.legal) == legal
            assert f"action {ident} is not legal now" in str(error)
            assert error.rule, f"no rule named for id {ident}: {error}"
            assert str(legal[-1]) in str(error)
        after = env.observe(agent)  # nothing changed
        np.testing.assert_array_equal(after["observation"], before["observation"])
        for ident in legal:
            _at(make, seed, played).step(ident)  # accepted


def test_illegal_move_loss_flag() -> None:
    env = gin_rummy_v0.env(terminate_illegal=True, illegal_reward=-5.0)
    env.reset(seed=3)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))  # PettingZoo logs a warning
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -5.0
    # Without the flag the error names the action, the rule and the legal ids.
    env = gin_rummy_v0.env()
    env.reset(seed=3)
    with pytest.raises(IllegalActionIdError, match=r"legal ids: \[1, 2\]"):
        env.step(50)


def test_gymnasium_illegal_id_raises_when_asked() -> None:
    env = gymnasium.make("arena/GinRummy-v0", opponent="random", terminate_illegal=False)
    env.reset(seed=2)
    with pytest.raises(IllegalActionIdError, match="first turn"):
        env.step(100)
    lossy = gymnasium.make("arena/GinRummy-v0", opponent="random").unwrapped
    lossy.reset(seed=2)
    _, reward, terminated, _, _ = lossy.step(100)
    assert terminated and reward == -1.0


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: gin_rummy_v0.env(preset="vegas"), "presets: standard, classic, oklahoma"),
        (lambda: gin_rummy_v0.env(encoding="openspiel"), "encodings: arena, rlcard"),
        (lambda: gin_rummy_v0.env(knock_limt=5), "rule options: knock_limit"),
        (lambda: gin_rummy_v0.env(knock_limit=500), "knock_limit must be 0..100"),
        (lambda: gin_rummy_v0.env(reward="points"), "raw, normalised"),
        (lambda: gin_rummy_v0.env(render_mode="human"), "None or 'ansi'"),
        (lambda: rummy_v0.env(num_players=7), "num_players must be 2, 3, 4, 5 or 6"),
        (lambda: rummy_v0.env(num_players=1), "num_players must be 2, 3, 4, 5 or 6"),
        (lambda: rummy_v0.env(preset="500"), "presets: standard, winner-takes-all"),
        (lambda: rummy_v0.env(wild="tens"), "none, jokers, deuces"),
        (
            lambda: gymnasium.make("arena/GinRummy-v0", opponent="nobody"),
            "built-in: random, greedy, simple",
        ),
        (
            lambda: gymnasium.make("arena/Rummy-v0", num_players=4, opponents=["random"]),
            "opponents must name 3 bots",
        ),
    ],
)
def test_bad_configuration_refused_before_reset(make: Any, message: str) -> None:
    with pytest.raises(EnvConfigError, match=message.replace("(", r"\(")):
        make()


def test_stepping_a_finished_episode_raises() -> None:
    env: Any = gymnasium.make("arena/GinRummy-v0", opponent="random", hands_only=True).unwrapped
    env.reset(seed=4)
    rng = random.Random(0)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(rng.choice(legal_ids(env.action_masks())))
    with pytest.raises(gymnasium.error.ResetNeeded, match="episode is over"):
        env.step(0)
    with pytest.raises(gymnasium.error.ResetNeeded):
        gymnasium.make("arena/GinRummy-v0").unwrapped.step(0)


def test_action_space_sample_is_legal() -> None:
    env: Any = gymnasium.make("arena/Rummy-v0", num_players=3).unwrapped
    env.reset(seed=1)
    for _ in range(50):
        action = env.action_space.sample()
        assert env.action_masks()[action]
        _, _, terminated, _, _ = env.step(action)
        if terminated:
            break
