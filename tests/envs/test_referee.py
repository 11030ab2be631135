"""An episode through the environment and the same seed played by the engine and by
the referee give the same deals, actions and points; the rewards sum to the score."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.cards import derive_seed
from arena.envs import gin_rummy_v0, rummy_v0
from arena.games.registry import find_game
from arena.hosting.connection import InProcessConnection
from arena.referee.match import MatchConfig, Seat, play_match
from arena.sdk import Bot, Decision

from .helpers import legal_ids


def _episode(
    env: Any, seed: int, rng: random.Random
) -> tuple[list[Any], list[Any], dict[str, float]]:
    """Random play; (engine actions in order, deck of each hand, summed rewards)."""
    env.reset(seed=seed)
    core = env.core
    actions: list[Any] = []
    decks: list[Any] = [core.game.hand.deck]
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while not all(env.terminations.values()):
        ident = rng.choice(legal_ids(env.observe(env.agent_selection)["action_mask"]))
        actions.append((core.to_act(), core.action_of(ident)))
        hand = core.game.hand
        env.step(ident)
        for agent, reward in env.rewards.items():
            totals[agent] += reward
        if core.game.hand is not hand:
            decks.append(core.game.hand.deck)
    # What the core played for the defender itself (the RLCard encoding) is not an id:
    # here every action went through an id.
    return actions, decks, totals


@pytest.mark.parametrize(
    ("make", "game_id", "seeds"),
    [
        (lambda: gin_rummy_v0.raw_env(), "gin-rummy/standard", range(6)),
        (lambda: gin_rummy_v0.raw_env(preset="classic"), "gin-rummy/classic", range(5)),
        (lambda: gin_rummy_v0.raw_env(hands_only=True), "gin-rummy/standard", range(300)),
        (lambda: rummy_v0.raw_env(num_players=4), "rummy/standard", range(5)),
        (
            lambda: rummy_v0.raw_env(num_players=6, preset="winner-takes-all"),
            "rummy/winner-takes-all",
            range(5),
        ),
    ],
    ids=["gin-standard", "gin-classic", "gin-hands", "rummy-4", "rummy-6-wta"],
)
def test_env_matches_the_engine_and_rewards_sum_to_the_score(
    make: Any, game_id: str, seeds: range
) -> None:
    env = make()
    spec = find_game(game_id)
    rng = random.Random(1)
    for seed in seeds:
        actions, decks, totals = _episode(env, seed, rng)
        # The referee's game 0 of a match seeded `seed`, played through the engine.
        game = spec.new_game(
            derive_seed(seed, 1, 0),
            env.core.num_seats,
            hands_only=env.core.options.hands_only,
            max_deals=200,
        )
        replay_decks = [game.hand.deck]
        for seat, action in actions:
            assert game.current_seat() == seat
            assert action in game.legal_actions() or type(action).__name__ == "Knock"
            hand = game.hand
            game.apply(action)
            if game.hand is not hand:
                replay_decks.append(game.hand.deck)
        assert game.is_terminal()
        assert replay_decks[: len(decks)] == decks
        scores = game.outcome().scores
        assert [totals[agent] for agent in env.possible_agents] == [float(s) for s in scores]


class _Replay(Bot[Any, Any]):
    """Plays a given list of actions (the environment's, for its seat), in order."""

    name = "replay"
    games = ("*",)

    def __init__(self, actions: list[Any]) -> None:
        self.actions = list(actions)

    def decide(self, decision: Decision[Any, Any]) -> Any:
        action = self.actions.pop(0)
        assert str(action) in {str(a) for a in decision.legal_actions} or str(action).startswith(
            "knock"
        )
        return action


@pytest.mark.parametrize(
    ("make", "game_id", "seeds"),
    [
        (lambda: gin_rummy_v0.raw_env(hands_only=True), "gin-rummy/standard", (3, 17)),
        (lambda: gin_rummy_v0.raw_env(preset="classic"), "gin-rummy/classic", (5,)),
        (lambda: rummy_v0.raw_env(num_players=3, hands_only=True), "rummy/standard", (8,)),
    ],
    ids=["gin-hands", "gin-classic", "rummy-3-hands"],
)
def test_referee_match_with_the_same_seed_scores_the_same(
    make: Any, game_id: str, seeds: tuple[int, ...]
) -> None:
    env = make()
    for seed in seeds:
        actions, _, totals = _episode(env, seed, random.Random(seed))
        n = env.core.num_seats
        seats = [
            Seat(
                InProcessConnection(_Replay([a for s, a in actions if s == seat])), f"replay{seat}"
            )
            for seat in range(n)
        ]
        config = MatchConfig(
            spec=find_game(game_id), seed=seed, hands_only=env.core.options.hands_only
        )
        result = play_match(config, seats)
        assert list(result.games[0].scores) == [int(totals[a]) for a in env.possible_agents]
