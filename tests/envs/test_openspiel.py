"""Our Gin Rummy actions mapped to OpenSpiel's ids (arena.envs.openspiel), checked
against ``pyspiel`` on the same deals: OpenSpiel is dealt our cards and draws our
stock, every action of ours is played there through its ids (each one legal there),
the draw and discard choices agree, and the hand scores the same."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.cards import CardSet, knock_discards
from arena.envs import gin_rummy_v0
from arena.envs.openspiel import (
    DRAW_STOCK_ACTION,
    KNOCK_ACTION,
    from_openspiel,
    openspiel_card,
    to_openspiel,
)
from arena.games.gin_rummy import Defend, Knock, Phase

from .helpers import legal_ids

pyspiel = pytest.importorskip(
    "pyspiel", reason="[openspiel] OpenSpiel is not installed (pip install open-spiel)"
)


def test_openspiel_mapping_on_the_same_deals() -> None:
    game = pyspiel.load_game("gin_rummy")
    # OpenSpiel's wall is the last-discard variant; the rest is the standard preset.
    env = gin_rummy_v0.raw_env(hands_only=True, last_discard=True)
    rng = random.Random(4)
    compared = knocks = knock_with_taken = early = 0
    for seed in range(300):
        env.reset(seed=seed)
        hand = env.core.game.hand
        deck = hand.deck
        first = 1 - hand.dealer  # OpenSpiel's player 0
        state = game.new_initial_state()
        for i in [*range(0, 20, 2), *range(1, 20, 2), 20]:
            state.apply_action(openspiel_card(deck[i].index))
        stock = iter(deck[21:])

        def play(ids: list[int], state: Any = state, stock: Any = stock, seed: int = seed) -> None:
            for ident in ids:
                assert ident in state.legal_actions(), (seed, ident, state.legal_actions())
                state.apply_action(ident)
                if state.is_chance_node():
                    state.apply_action(openspiel_card(next(stock).index))

        while not all(env.terminations.values()):
            if state.is_terminal():
                break  # OpenSpiel ended it early (its repeated-move rule): not comparable
            seat = hand.current_seat()
            assert state.current_player() == (0 if seat == first else 1)
            listed = hand.legal_actions()
            if hand.phase in (Phase.DRAW, Phase.DISCARD, Phase.FIRST_UPCARD):
                ours = {to_openspiel(action)[0] for action in listed}
                theirs = set(state.legal_actions())
                forbidden = hand.visible(seat).forbidden_discard
                if forbidden is not None:
                    # OpenSpiel lets the card just taken be discarded; rule 3 does not.
                    theirs.discard(openspiel_card(forbidden.index))
                    if KNOCK_ACTION in theirs - ours:
                        # ... and knock with it: the engine's knocks leave it out.
                        rest = CardSet(hand.visible(seat).hand) - CardSet.of([forbidden])
                        assert set(knock_discards(rest | CardSet.of([forbidden]), 10)) <= {
                            forbidden
                        }
                        theirs.discard(KNOCK_ACTION)
                        knock_with_taken += 1
                assert ours == theirs, seed
                compared += 1
            choice = rng.choice(legal_ids(env.observe(env.agent_selection)["action_mask"]))
            action = env.core.action_of(choice)
            ids = to_openspiel(action)
            knock = hand.visible(seat).knock
            assert from_openspiel(ids, knock.melds if knock else ()) == action or isinstance(
                action, (Knock, Defend)
            )
            passes_before = hand.phase is Phase.FIRST_UPCARD and seat == hand.dealer
            play(ids)
            knocks += isinstance(action, Knock)
            env.step(choice)
            if passes_before and ids == [54]:
                play([DRAW_STOCK_ACTION])  # our engine drew for the non-dealer
        if not all(env.terminations.values()):
            early += 1
            continue
        assert state.is_terminal(), seed
        result = env.core.game.results[-1]
        returns = state.returns()
        points = [result.seats[first].points, result.seats[1 - first].points]
        assert [int(r) for r in returns] == [points[0] - points[1], points[1] - points[0]], seed
    assert compared > 5000 and knocks > 0  # random players seldom knock
    assert knock_with_taken < compared // 100 and early < 30
