"""Train a Gin Rummy policy on the learning environments and write it as a bot folder.

    python examples/train_gin.py --quick --out my-gin-bot    # about a minute on one core
    arena check my-gin-bot
    arena match my-gin-bot/bot.toml random --games 100
    arena submit URL my-gin-bot --token TOKEN --wait

numpy only (the ``learn`` extra): no torch, no GPU.  The policy is a small multi-layer
perceptron over the environment's observation (``gin_rummy_v0``, ``encoding="arena"``:
587 floats in, 109 action ids out, docs/ENVS.md), trained in two steps:

1. **Behaviour cloning** of the built-in ``simple`` bot (the EAAI challenge's
   SimpleGinRummyPlayer, ``arena/policies/simple_gin.py``): the expert plays games
   against ``random`` and against itself, and the network learns its action id in
   every position (cross-entropy over the legal ids only: the action mask).
2. **DAgger** (Ross, Gordon and Bagnell, AISTATS 2011): the network plays, the expert
   labels the positions the network reached, the network learns them too, so that its
   own mistakes are among what it was taught to recover from.

Then it plays ``--eval-games`` games against ``random`` (and a few against ``simple``)
through the environment and writes ``OUT``: ``bot.toml`` (runs ``bot.py`` on the
arena's Python), ``bot.py`` (``examples/gin_policy_bot.py``: the observation rebuilt
from what the referee sends, the forward pass in numpy, on the Python SDK) and
``policy.npz`` (the weights).  ``--quick`` is a small budget (minutes on 2 cores at
most); without it, more games, a wider network and more epochs.
"""

from __future__ import annotations

import os

# One BLAS thread: this example shares its machine (and a larger batch is faster than
# more threads for a network this small).  Set before numpy is imported.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402 (after the thread settings above)
import itertools  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from arena.envs import gin_rummy_v0  # noqa: E402
from arena.games.gin_rummy import encoding as enc  # noqa: E402
from arena.policies import SimpleGinPolicy  # noqa: E402

HERE = Path(__file__).resolve().parent
FloatArray = np.ndarray[Any, np.dtype[np.float32]]


@dataclass(frozen=True)
class Budget:
    games: int  # expert games for behaviour cloning
    dagger_rounds: int
    dagger_games: int  # games per DAgger round
    hidden: tuple[int, ...]
    epochs: int
    eval_games: int  # against random
    eval_simple: int  # against simple


# About 160 positions a game; stored as float16, 1.2 kB each (the full budget: 0.5 GB).
QUICK = Budget(
    games=300, dagger_rounds=2, dagger_games=150, hidden=(256,), epochs=8, eval_games=100,
    eval_simple=20,
)  # fmt: skip
FULL = Budget(
    games=1500, dagger_rounds=3, dagger_games=500, hidden=(512, 256), epochs=12,
    eval_games=400, eval_simple=100,
)  # fmt: skip


# -- the network -----------------------------------------------------------------------


class MLP:
    """Dense layers with ReLU between them; masked softmax cross-entropy; Adam."""

    def __init__(self, sizes: list[int], rng: np.random.Generator) -> None:
        self.layers = [
            (
                (rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32),
                np.zeros(n_out, dtype=np.float32),
            )
            for n_in, n_out in itertools.pairwise(sizes)
        ]
        self._moments = [
            [np.zeros_like(a) for a in (w, b, w, b)] for w, b in self.layers
        ]  # m_w, m_b, v_w, v_b
        self._steps = 0

    def forward(self, x: FloatArray) -> tuple[FloatArray, list[FloatArray]]:
        inputs = []
        for i, (w, b) in enumerate(self.layers):
            inputs.append(x)
            x = x @ w + b
            if i < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        return x, inputs

    def act(self, x: FloatArray, mask: np.ndarray[Any, Any]) -> int:
        scores = self.forward(x[None, :])[0][0]
        return int(np.where(mask, scores, -np.inf).argmax())

    def train_step(
        self,
        x: np.ndarray[Any, Any],
        mask: np.ndarray[Any, Any],
        label: np.ndarray[Any, Any],
        lr: float,
    ) -> float:
        logits, inputs = self.forward(x.astype(np.float32))
        logits = np.where(mask, logits, -1e9)
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        rows = np.arange(len(label))
        loss = float(-np.log(probs[rows, label] + 1e-12).mean())
        grad = probs
        grad[rows, label] -= 1.0
        grad /= len(label)
        self._steps += 1
        beta1, beta2 = 0.9, 0.999
        for i in range(len(self.layers) - 1, -1, -1):
            w, b = self.layers[i]
            grads = (inputs[i].T @ grad, grad.sum(axis=0))
            if i > 0:
                grad = (grad @ w.T) * (inputs[i] > 0)
            m_w, m_b, v_w, v_b = self._moments[i]
            for param, g, m, v in ((w, grads[0], m_w, v_w), (b, grads[1], m_b, v_b)):
                m *= beta1
                m += (1 - beta1) * g
                v *= beta2
                v += (1 - beta2) * g * g
                m_hat = m / (1 - beta1**self._steps)
                v_hat = v / (1 - beta2**self._steps)
                param -= lr * m_hat / (np.sqrt(v_hat) + 1e-8)
        return loss

    def fit(
        self, data: Data, epochs: int, rng: np.random.Generator, lr: float = 1e-3, batch: int = 256
    ) -> float:
        x, mask, label = data.arrays()
        loss = float("nan")
        for _ in range(epochs):
            order = rng.permutation(len(label))
            losses = []
            for start in range(0, len(order), batch):
                rows = order[start : start + batch]
                losses.append(self.train_step(x[rows], mask[rows], label[rows], lr))
            loss = float(np.mean(losses))
        return loss

    def save(self, path: Path) -> None:
        arrays: dict[str, Any] = {"layers": np.array(len(self.layers))}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"layer{i}.w"] = w
            arrays[f"layer{i}.b"] = b
        np.savez(path, **arrays)


# -- playing through the environment ---------------------------------------------------


@dataclass
class Data:
    """Positions with the expert's action id: observations, legal-id masks, labels."""

    observations: list[np.ndarray[Any, Any]] = field(default_factory=list)
    masks: list[np.ndarray[Any, Any]] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)

    def add(self, observation: dict[str, Any], label: int) -> None:
        assert observation["action_mask"][label], "the expert's action id is not legal"
        self.observations.append(observation["observation"].astype(np.float16))
        self.masks.append(observation["action_mask"].astype(bool))
        self.labels.append(label)

    def arrays(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        return (
            np.stack(self.observations),
            np.stack(self.masks),
            np.array(self.labels, dtype=np.int64),
        )


def play(
    games: int,
    seed: int,
    learner: MLP | None,
    opponents: tuple[str, ...],
    data: Data | None = None,
) -> list[int]:
    """Play ``games`` games of ``gin_rummy_v0``: the learner's seat (alternating) is
    played by ``learner`` (or by the expert when None), the other seat by each of
    ``opponents`` in turn (``random`` or ``simple``).  With ``data``, every position of
    the learner's seat is recorded with the expert's action id, and so is every
    decision of a ``simple`` opponent.  Returns the learner's result per game (1 won,
    0 drawn, -1 lost)."""
    env = gin_rummy_v0.raw_env()
    game_rng = random.Random(seed)
    results = []
    for number in range(games):
        env.reset(seed=seed + number)
        me = number % 2
        opponent = opponents[number // 2 % len(opponents)]
        experts = [SimpleGinPolicy(), SimpleGinPolicy()]
        hand = None
        while not all(env.terminations.values()):
            game = env.core.game
            if game.hand is not hand:
                hand = game.hand
                for expert in experts:
                    expert.new_hand()
            seat = env.core.to_act()
            assert seat is not None and hand is not None
            observation = env.observe(env.agent_selection)
            mask = observation["action_mask"]
            expert_id: int | None = None
            if (seat == me and (data is not None or learner is None)) or (
                seat != me and opponent == "simple"
            ):
                action = experts[seat](hand.observation(seat), hand.legal_actions(), game_rng)
                expert_id = enc.action_id(action)
                if data is not None:
                    data.add(observation, expert_id)
            if seat == me:
                ident = learner.act(observation["observation"], mask) if learner else expert_id
            elif opponent == "simple":
                ident = expert_id
            else:
                ident = game_rng.choice(np.flatnonzero(mask).tolist())
            assert ident is not None
            env.step(ident)
        winner = env.core.game.summary.winner if env.core.game.summary else None
        results.append(0 if winner is None else 1 if winner == me else -1)
    return results


def win_rate(results: list[int]) -> str:
    wins = sum(1 for r in results if r > 0)
    return f"{wins}/{len(results)} ({100 * wins / max(len(results), 1):.0f}%)"


# -- the bot folder --------------------------------------------------------------------


def write_bot(model: MLP, out: Path, name: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    model.save(out / "policy.npz")
    shutil.copyfile(HERE / "gin_policy_bot.py", out / "bot.py")
    (out / "bot.toml").write_text(
        "# Written by examples/train_gin.py: a policy trained on arena.envs (docs/ENVS.md).\n"
        "# Check it with `arena check DIR`; play it with `arena match DIR/bot.toml random`.\n"
        f'name = "{name}"\n'
        'command = ["{python}", "bot.py"]   # the arena\'s Python: arena.sdk and numpy\n'
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the bot folder to write")
    parser.add_argument("--quick", action="store_true", help="a small budget (minutes)")
    parser.add_argument("--name", default="trained-gin", help="the bot's name (bot.toml)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, help="expert games (overrides the budget)")
    parser.add_argument("--dagger-rounds", type=int, help="DAgger rounds (overrides)")
    parser.add_argument("--epochs", type=int, help="epochs per fit (overrides)")
    parser.add_argument(
        "--eval-games", type=int, help="games against random to measure (overrides; 0: none)"
    )
    args = parser.parse_args(argv)
    budget = QUICK if args.quick else FULL
    games = budget.games if args.games is None else args.games
    rounds = budget.dagger_rounds if args.dagger_rounds is None else args.dagger_rounds
    dagger_games = max(1, min(budget.dagger_games, games // 2))
    epochs = budget.epochs if args.epochs is None else args.epochs
    eval_games = budget.eval_games if args.eval_games is None else args.eval_games
    eval_simple = min(budget.eval_simple, eval_games)
    rng = np.random.default_rng(args.seed)
    started = time.process_time()

    def say(text: str) -> None:
        print(f"[{time.process_time() - started:6.1f} s CPU] {text}", flush=True)

    data = Data()
    play(games, args.seed * 1_000_003, None, ("random", "simple"), data)
    say(f"behaviour cloning: {len(data.labels)} positions of the expert from {games} games")
    model = MLP([enc.OBSERVATION_SIZE, *budget.hidden, enc.ACTIONS], rng)
    loss = model.fit(data, epochs, rng)
    say(f"  fitted, loss {loss:.3f}")
    for round_number in range(1, rounds + 1):
        before = len(data.labels)
        seed = args.seed * 1_000_003 + round_number * 100_000
        results = play(dagger_games, seed, model, ("random", "simple"), data)
        loss = model.fit(data, max(1, epochs // 2), rng)
        say(
            f"DAgger round {round_number}: {len(data.labels) - before} positions the network "
            f"reached (it won {win_rate(results)}), {len(data.labels)} in all, loss {loss:.3f}"
        )
    if eval_games:
        seed = 10**9 + args.seed
        say(f"against random: won {win_rate(play(eval_games, seed, model, ('random',)))}")
        say(f"against simple: won {win_rate(play(eval_simple, seed, model, ('simple',)))}")
    write_bot(model, args.out, args.name)
    say(f"wrote {args.out}/ (bot.toml, bot.py, policy.npz): arena check {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
