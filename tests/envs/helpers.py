"""Shared by the environment tests: every environment configuration, and random play."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

GIN_CONFIGS: list[dict[str, Any]] = [
    {"preset": "standard"},
    {"preset": "classic"},
    {"preset": "oklahoma"},
    {"preset": "standard", "last_discard": True},
    {"preset": "standard", "encoding": "rlcard"},
    {"preset": "classic", "encoding": "rlcard", "hands_only": True},
    {"preset": "standard", "knock_limit": 0, "reward": "normalised"},
]

RUMMY_CONFIGS: list[dict[str, Any]] = [
    *({"num_players": n} for n in range(2, 7)),
    {"num_players": 3, "preset": "winner-takes-all"},
    {"num_players": 4, "preset": "jokers"},
    {"num_players": 5, "preset": "deuces", "ace": "high"},
    {"num_players": 6, "five_six_hand_size": 6, "reward": "normalised"},
]


def config_id(config: dict[str, Any]) -> str:
    return ",".join(f"{key}={value}" for key, value in config.items())


def legal_ids(mask: np.ndarray[Any, Any]) -> list[int]:
    return [int(i) for i in np.flatnonzero(mask)]


def play_random(env: Any, seed: int, rng: random.Random, max_steps: int = 100_000) -> list[int]:
    """Play one episode of a raw AEC env with random legal ids; the ids played."""
    env.reset(seed=seed)
    played: list[int] = []
    for _ in range(max_steps):
        if all(env.terminations.values()):
            return played
        mask = env.observe(env.agent_selection)["action_mask"]
        ident = rng.choice(legal_ids(mask))
        played.append(ident)
        env.step(ident)
    raise AssertionError("the episode did not end")
