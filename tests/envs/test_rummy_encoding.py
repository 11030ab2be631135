"""The Basic Rummy observation is what docs/ENVS.md says, plane by plane and scalar by
scalar: rebuilt here from the seat's engine observation and from the pile refusals
this test saw, in random games of every seat count and with wild cards."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

from arena.envs import rummy_v0
from arena.envs._rummy import RummyCore
from arena.games.rummy.observation import RummyObservation

from .helpers import legal_ids

FACES = 53  # 52 cards, then the joker
PLANES = 17
SEAT_SLOTS = 6
DRAW_STOCK_ID = 0


def documented(
    obs: RummyObservation, refused: list[set[int]], composition: Counter[int], target: int
) -> np.ndarray[Any, Any]:
    """The observation as docs/ENVS.md ("Basic Rummy") describes it."""
    planes = np.zeros((PLANES, FACES))
    seat, n = obs.seat, obs.num_seats
    for card in obs.hand:
        planes[0, card.index] += 1
    if obs.discard_pile:
        planes[1, obs.discard_pile[-1].index] = 1
        for card in obs.discard_pile[:-1]:
            planes[2, card.index] += 1
    seen = Counter(card.index for card in obs.hand)
    seen.update(card.index for card in obs.discard_pile)
    for meld in obs.table:
        for card, stands in zip(meld.cards, meld.stands_for, strict=True):
            natural = card.index if stands is None else stands.index
            planes[3, natural] += 1  # a wild card counts as the natural it stands for
            if stands is not None:
                planes[4, stands.index] = 1
            seen[card.index] += 1
    if obs.forbidden_discard is not None:
        planes[5, obs.forbidden_discard.index] = 1
    for step in range(1, n):
        other = (seat + step) % n
        for card in obs.seats[other].known:
            planes[5 + step, card.index] += 1
            seen[card.index] += 1
        for face in refused[other]:
            planes[10 + step, face] = 1
    for face in range(FACES):
        planes[16, face] = max(composition[face] - seen[face], 0)
    scalars = [
        float(obs.phase.value == "draw"),
        float(obs.phase.value == "play"),
        float(obs.to_act == seat),
        obs.stock_size / 108,
        obs.reshuffles / (obs.max_reshuffles + 1),
        float(obs.melded_this_hand),
    ]
    for step in range(SEAT_SLOTS):
        if step < n:
            info = obs.seats[(seat + step) % n]
            scalars += [
                1.0,
                info.hand_size / 10,
                min(info.score / target, 1.0),
                float(info.eliminated),
                float(obs.dealer == (seat + step) % n),
            ]
        else:
            scalars += [0.0] * 5
    return np.concatenate([planes.reshape(-1), scalars]).astype(np.float32)


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2},
        {"num_players": 4},
        {"num_players": 6},
        {"num_players": 3, "preset": "jokers"},
        {"num_players": 5, "preset": "jokers"},
        {"num_players": 4, "wild": "deuces"},
    ],
    ids=["2-seats", "4-seats", "6-seats", "3-jokers", "5-jokers", "4-deuces"],
)
def test_the_observation_is_the_documented_one(options: dict[str, Any]) -> None:
    env = rummy_v0.raw_env(max_deals=3, **options)
    core = env.core
    assert isinstance(core, RummyCore)
    composition = Counter(card.index for card in core.rules.composition(core.num_seats))
    rng = random.Random(3)
    compared = wilds = refusals = 0
    for seed in range(3):
        env.reset(seed=seed)
        hand = core.game.hand
        refused: list[set[int]] = [set() for _ in range(core.num_seats)]
        while not all(env.terminations.values()):
            if core.game.hand is not hand:  # a new deal: no refusals yet
                hand, refused = core.game.hand, [set() for _ in range(core.num_seats)]
            # Every seat's view, not only the one to act (its mask is then all zeros).
            for seat in range(core.num_seats):
                seen = hand.observation(seat)
                agent = env.possible_agents[seat]
                np.testing.assert_array_equal(
                    env.observe(agent)["observation"],
                    documented(seen, refused, composition, core.target),
                    err_msg=f"seed {seed}, seat {seat}",
                )
                compared += 1
                wilds += any(s is not None for meld in seen.table for s in meld.stands_for)
            actor = core.to_act()
            assert actor is not None
            ident = rng.choice(legal_ids(env.observe(env.agent_selection)["action_mask"]))
            if ident == DRAW_STOCK_ID and hand.discard_pile:
                refused[actor].add(hand.discard_pile[-1].index)
                refusals += 1
            env.step(ident)
    assert compared > 500 and refusals > 20, (compared, refusals)
    if "preset" in options or "wild" in options:
        assert wilds > 0, "no wild card reached the table: the wild planes went untested"
