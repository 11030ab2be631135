"""A bot builds from what it is sent (its observation and the events since its last
decision) exactly the observation the environment gave its policy in training."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from arena.envs import gin_rummy_v0
from arena.envs._core import masks_to_array
from arena.games.gin_rummy import encoding as enc

from .helpers import legal_ids


def _bot_view(observation: Any, memory: enc.OpponentMemory, target: int) -> np.ndarray[Any, Any]:
    planes = masks_to_array(enc.observation_planes(observation, memory), 52).reshape(-1)
    return np.concatenate([planes, enc.observation_tail(observation, target)]).astype(np.float32)


@pytest.mark.parametrize(
    "options",
    [{}, {"preset": "classic"}, {"preset": "oklahoma"}, {"last_discard": True}],
    ids=["standard", "classic", "oklahoma", "last-discard"],
)
def test_a_bot_sees_what_the_environment_showed(options: dict[str, Any]) -> None:
    env = gin_rummy_v0.raw_env(max_deals=4, **options)  # scores, and a quick test
    core = env.core
    rng = random.Random(7)
    compared = 0
    for seed in range(20):
        env.reset(seed=seed)
        memories = [enc.OpponentMemory(0), enc.OpponentMemory(1)]
        seen = [0, 0]  # events each seat was sent, as the referee sends them
        hand = core.game.hand
        while not all(env.terminations.values()):
            if core.game.hand is not hand:
                hand, seen = core.game.hand, [0, 0]
            seat = core.to_act()
            assert seat is not None
            memories[seat].see(hand.events[seen[seat] :])
            seen[seat] = len(hand.events)
            mine = _bot_view(hand.observation(seat), memories[seat], core.target)
            theirs = env.observe(env.agent_selection)
            np.testing.assert_array_equal(mine, theirs["observation"])
            compared += 1
            env.step(rng.choice(legal_ids(theirs["action_mask"])))
    assert compared > 500


def test_pile_facts_follow_a_pile_as_if_built_anew() -> None:
    """GinCore keeps one PileFacts and updates it position by position: whatever the
    pile did in between (a card on top, the top taken, several moves, a new hand), the
    facts are those of the pile read from scratch."""
    from arena.cards import ALL_CARDS

    rng = random.Random(11)
    facts = enc.PileFacts()
    pile: list[int] = []
    for _ in range(3000):
        move = rng.random()
        free = [i for i in range(52) if i not in pile]
        if move < 0.45 and free:
            pile.append(rng.choice(free))
        elif move < 0.8 and pile:
            pile.pop()
        elif move < 0.95 and pile and free:
            pile[-1] = rng.choice(free)  # taken and another discarded: same size
        else:
            pile = rng.sample(range(52), rng.randrange(0, 8))  # a new hand
        cards = tuple(ALL_CARDS[i] for i in pile)
        assert facts.update(cards) is facts
        fresh = enc.PileFacts.of(cards)
        assert facts.indices == fresh.indices == pile
        assert facts.mask == fresh.mask == sum(1 << i for i in pile)
