"""The RLCard encoding against RLCard itself: in every draw and discard position of a
hundred and twenty hands, RLCard's own ``_extract_state`` and judge, given the same cards,
give the same five planes and the same legal ids as ``encoding="rlcard"``.

RLCard deals 11 cards to the non-dealer and has no upcard offer, so its games cannot
follow ours from the deal; each of our positions is set up in an RLCard game instead
(hands, known cards, stock, discard pile, last action) and RLCard is asked.  Where
the rules differ (docs/ENVS.md, "RLCard encoding"), the comparison says so."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from arena.envs import gin_rummy_v0
from arena.games.gin_rummy import Phase
from arena.games.gin_rummy.encoding import RL_KNOCK_BASE, rlcard_card

from .helpers import legal_ids

rlcard = pytest.importorskip(
    "rlcard", reason="[rlcard] rlcard is not installed (pip install -e '.[learn-reference]')"
)
from rlcard.games.gin_rummy.utils import utils as rl_utils  # noqa: E402
from rlcard.games.gin_rummy.utils.action_event import (  # noqa: E402
    DiscardAction,
    DrawCardAction,
    PickUpDiscardAction,
)
from rlcard.games.gin_rummy.utils.move import PickupDiscardMove  # noqa: E402


def _cards(mask: int) -> list[Any]:
    return [rl_utils.get_card(rlcard_card(i)) for i in range(52) if mask >> i & 1]


def _rlcard_position(rl_env: Any, core: Any) -> tuple[np.ndarray[Any, Any], list[int]]:
    """Set our position up in RLCard's game; its observation and legal ids."""
    hand = core.game.hand
    seat = hand.current_seat()
    game = rl_env.game
    rnd = game.round
    rnd.current_player_id = seat
    for s in (0, 1):
        player = rnd.players[s]
        player.hand = _cards(hand.hand_of(s).mask)
        player.known_cards = _cards(hand.visible(1 - s).opponent_known)
        player.did_populate_hand()
    view = hand.visible(seat)
    rnd.dealer.discard_pile = [rl_utils.get_card(rlcard_card(c.index)) for c in view.discard_pile]
    rnd.dealer.stock_pile = _cards(hand.card_locations()["stock"].mask)
    if view.phase is Phase.DRAW:
        last = DiscardAction(card=rl_utils.get_card(rlcard_card(view.discard_pile[-1].index)))
        game.actions = [last]
    elif view.forbidden_discard is None:
        game.actions = [DrawCardAction()]
    else:
        action = PickUpDiscardAction()
        card = rl_utils.get_card(rlcard_card(view.forbidden_discard.index))
        rnd.move_sheet = [PickupDiscardMove(rnd.players[seat], action, card)]
        game.actions = [action]
    state = rl_env._extract_state(game.get_state(seat))
    return state["obs"], sorted(state["legal_actions"])


def test_rlcard_planes_and_legal_ids_on_the_same_positions() -> None:
    rl_env = rlcard.make("gin-rummy", config={"seed": 0})
    rl_env.reset()
    env = gin_rummy_v0.raw_env(encoding="rlcard", hands_only=True)
    rng = random.Random(2)
    compared = knock_after_pickup = 0
    for seed in range(120):
        env.reset(seed=seed)
        core = env.core
        while not all(env.terminations.values()):
            agent = env.agent_selection
            ours = env.observe(agent)
            hand = core.game.hand
            if hand.phase in (Phase.DRAW, Phase.DISCARD) and hand.stock_size > 2:
                obs, legal = _rlcard_position(rl_env, core)
                np.testing.assert_array_equal(ours["observation"], obs.astype(np.float32))
                mine = legal_ids(ours["action_mask"])
                view = hand.visible(hand.current_seat())
                if mine != legal and view.forbidden_discard is not None:
                    # RLCard lists a knock discarding the card just picked up: our
                    # rules (and the referee's) refuse it.
                    taken = RL_KNOCK_BASE + rlcard_card(view.forbidden_discard.index)
                    legal = [i for i in legal if i != taken]
                    knock_after_pickup += 1
                assert mine == legal, f"seed {seed}: ours {mine}, RLCard {legal}"
                compared += 1
            env.step(rng.choice(legal_ids(ours["action_mask"])))
    assert compared > 4_000
    assert knock_after_pickup < compared // 100
