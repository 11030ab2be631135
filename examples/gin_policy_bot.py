"""A Gin Rummy bot that plays a policy trained on ``arena.envs`` (``examples/train_gin.py``
copies this file into the bot folder it writes, as ``bot.py``).

It rebuilds, from what the referee sends, the observation the environment gave the
policy in training (``encoding="arena"``, docs/ENVS.md): its ``OpponentMemory`` reads the
events since its last decision for what the opponent passed over and discarded.  The
policy is a small multi-layer perceptron whose weights are in ``policy.npz`` beside this
file (``layer{i}.w``, ``layer{i}.b``; ReLU between layers); its forward pass is numpy.
The answer is the legal action with the highest score.  Run it with
``arena match path/to/bot.toml random``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from arena.games.gin_rummy import encoding as enc
from arena.sdk import Bot, Decision, GinObservation, gin, serve

HERE = Path(__file__).resolve().parent


class Policy:
    """The trained network: ``scores(x)`` are the 109 action ids' scores."""

    def __init__(self, path: Path) -> None:
        with np.load(path) as saved:
            count = int(saved["layers"])
            self.layers = [(saved[f"layer{i}.w"], saved[f"layer{i}.b"]) for i in range(count)]

    def scores(self, x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        for i, (weights, bias) in enumerate(self.layers):
            x = x @ weights + bias
            if i < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        return x


def features(observation: GinObservation, memory: enc.OpponentMemory, target: int) -> Any:
    """The environment's observation vector (float32, ``enc.OBSERVATION_SIZE``)."""
    planes = enc.observation_planes(observation, memory)
    width = 7  # bytes of a 52-bit plane
    raw = b"".join(plane.to_bytes(width, "little") for plane in planes)
    bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
    x = np.empty(enc.OBSERVATION_SIZE, dtype=np.float32)
    x[: enc.PILE_ORDER_AT] = bits.reshape(len(planes), width * 8)[:, :52].reshape(-1)
    x[enc.PILE_ORDER_AT :] = enc.observation_tail(observation, target)
    return x


class PolicyBot(Bot[GinObservation, gin.Action]):
    games = ("gin-rummy/*",)
    name = tomllib.loads((HERE / "bot.toml").read_text())["name"]

    def __init__(self) -> None:
        self.policy = Policy(HERE / "policy.npz")
        self.target = 100
        self.memory: enc.OpponentMemory | None = None

    def on_match_start(self, message: Any) -> None:
        self.target = int(message.rules.get("target", "100"))
        self.memory = None

    def decide(self, decision: Decision[GinObservation, gin.Action]) -> gin.Action:
        observation = decision.observation
        if self.memory is None:
            self.memory = enc.OpponentMemory(observation.seat)
        self.memory.see(event for event in decision.events if isinstance(event, gin.PublicEvent))
        legal = decision.legal_actions
        scores = self.policy.scores(features(observation, self.memory, self.target))
        return max(legal, key=lambda action: scores[enc.action_id(action)])


if __name__ == "__main__":
    serve(PolicyBot())
