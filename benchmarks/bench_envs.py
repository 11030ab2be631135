"""The learning environments' step rate against RLCard and OpenSpiel (issue 31).

One run, interleaved rounds: each round times every contender on the same CPU clock
(``time.process_time``) for about ``--seconds`` each, all with a uniformly random legal
policy; a "step" is one player's decision with its observation and legal actions:

* arena single: ``gin_rummy_v0`` (raw AEC env) ``observe`` + ``step``; and the same
  through ``gin_rummy_v0.env()`` (PettingZoo's order checks: the env users make);
* arena vector: ``GinRummyVectorEnv`` (64 games) ``step`` with batched observations
  and masks, counting every seat's decisions (the opponent is the random id policy);
* RLCard: ``env.step`` of ``rlcard.make("gin-rummy")`` (its state carries the 5x52
  observation and the legal ids);
* OpenSpiel: ``observation_tensor`` + ``legal_actions`` + ``apply_action``;
* Basic Rummy 2 and 6 seats through ``rummy_v0`` (no reference has it).

Printed: each round's steps per CPU-second and ratios, then the median of the
per-round ratios.  Targets: single >= 10x RLCard and >= 5x OpenSpiel with the compiled
copy (``PYTHONPATH=build/compiled``; 7x and 3.5x pure), vector >= 2x single.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import arena.envs
from arena.envs import gin_rummy_v0, rummy_v0
from arena.envs.vector import GinRummyVectorEnv

Runner = Callable[[float], float]  # seconds -> steps per CPU-second


def _timed(step: Callable[[], int], seconds: float) -> float:
    start = time.process_time()
    steps = 0
    while True:
        for _ in range(200):
            steps += step()
        spent = time.process_time() - start
        if spent >= seconds:
            return steps / spent


def aec(make: Callable[[], Any]) -> Runner:
    env = make()
    rng = random.Random(1)
    env.reset(seed=1)

    def step() -> int:
        if all(env.terminations.values()):
            env.reset()
        mask = env.observe(env.agent_selection)["action_mask"]
        ids = mask.nonzero()[0]  # 0.3 us; np.flatnonzero's wrapper takes 1.5 (a tenth of a step)
        env.step(int(ids[rng.randrange(len(ids))]))
        return 1

    return lambda seconds: _timed(step, seconds)


def vector(num_envs: int) -> Runner:
    envs = GinRummyVectorEnv(num_envs=num_envs, opponent="random")
    _, infos = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    state = {"infos": infos}

    def step() -> int:
        masks = state["infos"]["action_mask"]
        # A random legal id per game, batched: random scores, the best legal one.
        scores = rng.random(masks.shape) * masks
        before = sum(solo.decisions for solo in envs.solos)
        _, _, _, _, state["infos"] = envs.step(scores.argmax(axis=1))
        return sum(solo.decisions for solo in envs.solos) - before

    return lambda seconds: _timed(step, seconds)


def rlcard_runner() -> Runner | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("gin-rummy", config={"seed": 1})
    rng = random.Random(1)
    holder = {"state": env.reset()[0]}

    def step() -> int:
        if env.is_over():
            holder["state"] = env.reset()[0]
        legal = list(holder["state"]["legal_actions"])
        holder["state"], _ = env.step(legal[rng.randrange(len(legal))])
        return 1

    return lambda seconds: _timed(step, seconds)


def openspiel_runner() -> Runner | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(1)
    holder = {"state": game.new_initial_state()}

    def step() -> int:
        state = holder["state"]
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        if state.is_terminal():
            holder["state"] = game.new_initial_state()
            return 0
        state.observation_tensor(state.current_player())
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        return 1

    return lambda seconds: _timed(step, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0, help="per contender per round")
    args = parser.parse_args()
    compiled = "compiled" in (arena.envs.__file__ or "")
    import arena.games.gin_rummy.encoding as enc

    print(f"bench_envs: arena from {arena.envs.__file__.rsplit('/arena/', 1)[0]}")
    print(
        f"  encoding module: {enc.__file__} ({'compiled' if enc.__file__.endswith('.so') else 'pure'})"
    )
    contenders: dict[str, Runner | None] = {
        "arena single": aec(lambda: gin_rummy_v0.raw_env()),
        "arena env()": aec(lambda: gin_rummy_v0.env()),
        "arena vector(64)": vector(64),
        "RLCard": rlcard_runner(),
        "OpenSpiel": openspiel_runner(),
        "rummy 2 seats": aec(lambda: rummy_v0.raw_env(num_players=2)),
        "rummy 6 seats": aec(lambda: rummy_v0.raw_env(num_players=6)),
    }
    names = [name for name, run in contenders.items() if run is not None]
    missing = [name for name, run in contenders.items() if run is None]
    if missing:
        print(f"  not installed, skipped: {', '.join(missing)}")
    ratios: dict[str, list[float]] = {}
    header = " ".join(f"{name:>17}" for name in names)
    print(f"round {header}   single/RLCard single/OpenSpiel vector/single  env()/RLCard")
    for number in range(1, args.rounds + 1):
        rates = {}
        for name in names:
            run = contenders[name]
            assert run is not None
            rates[name] = run(args.seconds)
        row = {
            "single/RLCard": rates["arena single"] / rates["RLCard"] if "RLCard" in rates else None,
            "single/OpenSpiel": rates["arena single"] / rates["OpenSpiel"]
            if "OpenSpiel" in rates
            else None,
            "vector/single": rates["arena vector(64)"] / rates["arena single"],
            "env()/RLCard": rates["arena env()"] / rates["RLCard"] if "RLCard" in rates else None,
        }
        for key, value in row.items():
            if value is not None:
                ratios.setdefault(key, []).append(value)
        cells = " ".join(f"{rates[name]:>17,.0f}" for name in names)
        shown = "  ".join(f"{v:>13.2f}x" if v is not None else f"{'n/a':>14}" for v in row.values())
        print(f"{number:>5} {cells}   {shown}")
    print("median of the per-round ratios:")
    targets = {
        "single/RLCard": 10.0 if compiled else 7.0,
        "single/OpenSpiel": 5.0 if compiled else 3.5,
        "vector/single": 2.0,
    }
    for key, values in ratios.items():
        median = statistics.median(values)
        if key not in targets:  # shown beside the targets, not judged
            print(f"  {key:<17} {median:6.2f}x")
            continue
        verdict = "met" if median >= targets[key] else "MISSED"
        print(f"  {key:<17} {median:6.2f}x  (target {targets[key]}x: {verdict})")


if __name__ == "__main__":
    main()
