"""The ``strong`` sample bot: legal in every situation, and the behaviours it promises.

Playing strength is measured by ``benchmarks/bench_strong.py``, not here: the suite
holds no statistical tests.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from types import SimpleNamespace

import pytest
from arena_sample_bots import HandMemory, StrongBot, StrongPolicy, decide
from arena_sample_bots.plugin import arena_register_bots
from arena_sample_bots.strong import arrangements

from arena.cards import Arrangement, Card, CardSet, MeldKind, deadwood_of_mask
from arena.games.gin_rummy import (
    CLASSIC,
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    STANDARD,
    Action,
    Defend,
    Discard,
    GinGame,
    GinHand,
    GinObservation,
    GinRules,
    Knock,
    Phase,
    discard,
)
from arena.games.gin_rummy.scenario import deck_order
from arena.policies import greedy_gin, random_gin


def cards(text: str) -> CardSet:
    return CardSet.parse(text)


def card(text: str) -> Card:
    return Card.parse(text)


def observation(
    hand: str,
    *,
    pile: str = "",
    phase: Phase = Phase.DISCARD,
    opponent_known: str = "",
    stock_size: int = 20,
    knock_limit: int = 10,
    forbidden: str | None = None,
) -> GinObservation:
    """What seat 0 sees, its opponent (seat 1) dealing; ``pile`` is listed bottom first."""
    return GinObservation(
        seat=0,
        dealer=1,
        phase=phase,
        to_act=0,
        hand=cards(hand),
        discard_pile=tuple(card(word) for word in pile.split()),
        stock_size=stock_size,
        opponent_hand_size=10,
        opponent_known=cards(opponent_known),
        own_known=CardSet(),
        knock_limit=knock_limit,
        doubled=False,
        forbidden_discard=card(forbidden) if forbidden else None,
        knock=None,
        scores=(0, 0),
        hand_number=0,
    )


def discards(obs: GinObservation) -> list[Action]:
    return [discard(c) for c in obs.hand if c is not obs.forbidden_discard]


# -- legality over whole games ------------------------------------------------

OKLAHOMA = replace(STANDARD, name="oklahoma", oklahoma=True)
LAST_DISCARD = replace(STANDARD, name="last-discard", last_discard=True)

GAMES = [
    *[(STANDARD, random_gin, seed) for seed in range(12)],
    *[(STANDARD, greedy_gin, seed) for seed in range(12)],
    *[(CLASSIC, greedy_gin, seed) for seed in range(2)],
    *[(OKLAHOMA, random_gin, seed) for seed in range(2)],
    *[(LAST_DISCARD, greedy_gin, seed) for seed in range(2)],
]


def _check_legal(action: Action, legal: list[Action], obs: GinObservation) -> None:
    if action in legal:
        return
    # The bot may show other melds than the engine's listed knock: same card, least
    # deadwood.  The engine validates them when the action is applied.
    assert isinstance(action, Knock), f"{action} is not legal in {obs.phase}"
    listed = [a for a in legal if isinstance(a, Knock) and a.card is action.card]
    assert listed, f"no legal knock discards {action.card}"
    rest = obs.hand - CardSet.of([action.card])
    assert Arrangement.of(rest, action.melds).deadwood == deadwood_of_mask(rest.mask)


@pytest.mark.parametrize(("rules", "opponent", "seed"), GAMES)
def test_every_action_is_legal_in_whole_games(
    rules: GinRules,
    opponent: Callable[[GinObservation, list[Action], random.Random], Action],
    seed: int,
) -> None:
    game = GinGame(rules, seed, max_deals=40)
    strong_seat = seed % 2
    policy = StrongPolicy()
    rng = random.Random(seed)
    while not game.is_terminal():
        seat = game.current_seat()
        assert seat is not None
        obs = game.observation(seat)
        legal = game.legal_actions()
        if seat == strong_seat:
            action = policy(obs, legal, rng)
            _check_legal(action, legal, obs)
        else:
            action = opponent(obs, legal, rng)
        game.apply(action, seat)
    assert game.summary is not None


def test_the_same_situation_gets_the_same_action() -> None:
    game = GinGame(STANDARD, 7)
    first = [StrongPolicy(), StrongPolicy()]
    second = [StrongPolicy(), StrongPolicy()]
    rng = random.Random(0)
    for _ in range(60):
        if game.is_terminal():
            break
        seat = game.current_seat()
        assert seat is not None
        obs, legal = game.observation(seat), game.legal_actions()
        action = first[seat](obs, legal, rng)
        assert second[seat](obs, legal, rng) == action
        game.apply(action, seat)


# -- knocking -----------------------------------------------------------------


def test_goes_gin_when_gin_is_available() -> None:
    obs = observation("2C 3C 4C 5D 6D 7D 9H TH JH QH KS", stock_size=28)
    legal: list[Action] = [*discards(obs)]
    legal.append(Knock(card("KS"), ()))  # placeholder: the bot builds its own melds
    action = decide(obs, legal)
    assert isinstance(action, Knock)
    assert action.card == card("KS")
    rest = obs.hand - cards("KS")
    assert Arrangement.of(rest, action.melds).deadwood == 0


def test_knocks_early_with_low_deadwood() -> None:
    hand = GinHand(
        STANDARD,
        deck_order(
            non_dealer="2C 3C 4C 5D 6D 7D 9H TH JH AS",
            dealer="KC KD QS JS 8C 8D 6H 5H 4S 3D",
            upcard="2S",
        ),
        dealer=1,
    )
    hand.apply(DRAW_DISCARD)  # seat 0 (non-dealer) takes 2S: deadwood 3 after a discard
    obs = hand.observation(0)
    action = decide(obs, hand.legal_actions())
    assert isinstance(action, Knock)
    hand.apply(action)
    assert hand.phase is Phase.DEFEND


def test_knock_shows_the_melds_that_leave_the_fewest_layoffs() -> None:
    # 4C 4D 4H 4S 2H 3H 2S 3S AC AD: either 4C-4D-4S with 2H-3H-4H, or 4C-4D-4H with
    # 2S-3S-4S, deadwood 7 both ways.  The opponent took 5H and 6H: he would lay
    # them off on a heart run, so the bot melds the spade run.
    obs = observation(
        "4C 4D 4H 4S 2H 3H 2S 3S AC AD KC",
        opponent_known="5H 6H",
        pile="9C",
        stock_size=25,
    )
    assert len(arrangements(obs.hand.mask & ~card("KC").mask, 7)) == 2
    legal: list[Action] = [*discards(obs), Knock(card("KC"), ())]
    action = decide(obs, legal)
    assert isinstance(action, Knock)
    runs = [meld for meld in action.melds if meld.kind is MeldKind.RUN]
    assert [str(meld) for meld in runs] == ["2S-3S-4S"]


# -- discarding -----------------------------------------------------------------


def test_does_not_feed_a_meld_the_opponent_shows() -> None:
    # KC and KH leave the same deadwood and neither has an out left for us (KD, KS,
    # QH, JH are in the pile), but the opponent holds JC QC: KC completes his run.
    obs = observation(
        "2C 3C 4C 5D 6D 7D 8H 9H TH KC KH",
        pile="KD KS QH JH",
        opponent_known="JC QC",
        knock_limit=5,
    )
    assert deadwood_of_mask(obs.hand.mask & ~card("KC").mask) == deadwood_of_mask(
        obs.hand.mask & ~card("KH").mask
    )
    assert decide(obs, discards(obs)) == discard(card("KH"))


def test_keeps_the_card_with_live_outs() -> None:
    # 9D and 9S are worth the same, but 8S-9S waits on 7S and TS while nothing is
    # left for 9D (9C, 9H, 8D and TD are in the pile).
    obs = observation("AC 2C 3C 4D 5D 6D 5H 6H 8S 9S 9D", pile="9C 9H 8D TD")
    assert decide(obs, discards(obs)) == discard(card("9D"))


def test_never_throws_back_the_card_just_taken() -> None:
    obs = observation("2C 3C 4C 5D 6D 7D 9H TH JH QS KS", forbidden="KS", knock_limit=0)
    action = decide(obs, discards(obs))
    assert isinstance(action, Discard)
    assert action.card != card("KS")


# -- drawing --------------------------------------------------------------------


def test_takes_the_upcard_that_completes_a_meld() -> None:
    obs = observation("2C 3C 4C 5D 6D 7H 8H QS KS KD", pile="4S 9H", phase=Phase.DRAW)
    assert decide(obs, [DRAW_STOCK, DRAW_DISCARD]) == DRAW_DISCARD


def test_takes_a_first_upcard_that_completes_a_meld() -> None:
    obs = observation("2C 3C 4C 5D 6D 7H 8H QS KS KD", pile="9H", phase=Phase.FIRST_UPCARD)
    assert decide(obs, [DRAW_DISCARD, PASS]) == DRAW_DISCARD


def test_leaves_a_useless_high_upcard() -> None:
    obs = observation("2C 3C 4C 5D 6D 7D 7H 8H 2S 3S", pile="4S KC", phase=Phase.DRAW)
    assert decide(obs, [DRAW_STOCK, DRAW_DISCARD]) == DRAW_STOCK
    first = replace(obs, phase=Phase.FIRST_UPCARD, discard_pile=(card("KC"),))
    assert decide(first, [DRAW_DISCARD, PASS]) == PASS


# -- defending and memory ---------------------------------------------------------


def test_defends_with_the_engines_best_option() -> None:
    hand = GinHand(
        STANDARD,
        deck_order(
            non_dealer="2C 3C 4C 5D 6D 7D 9H TH JH AS",
            dealer="KC KD QS JS 8H 8D 6H 5H 4S 3D",
            upcard="2S",
        ),
        dealer=1,
    )
    hand.apply(DRAW_DISCARD)
    hand.apply(next(a for a in hand.legal_actions() if isinstance(a, Knock)))
    legal = hand.legal_actions()
    action = decide(hand.observation(1), legal)
    assert isinstance(action, Defend)
    assert action == legal[0]


def test_memory_sees_what_the_opponent_passed_and_discarded() -> None:
    hand = GinHand(
        STANDARD,
        deck_order(
            non_dealer="2C 3C 4C 5D 6D 7D 9H TH JH AS",
            dealer="KC KD QS JS 8H 8D 6H 5H 4S 3D",
            upcard="QH",
            stock="7S 2D",
        ),
        dealer=1,
    )
    memory = HandMemory()
    obs = hand.observation(0)
    memory.observe(obs)
    memory.record(obs, PASS)
    hand.apply(PASS)  # seat 0 passes QH
    hand.apply(PASS)  # the dealer passes QH too; seat 0 draws 7S
    obs = hand.observation(0)
    memory.observe(obs)
    assert memory.opp_passed == card("QH").mask
    memory.record(obs, discard(card("7S")))
    hand.apply(discard(card("7S")))
    hand.apply(DRAW_STOCK)  # the dealer leaves 7S, draws 2D and throws KC
    hand.apply(discard(card("KC")))
    obs = hand.observation(0)
    memory.observe(obs)
    assert memory.opp_passed == cards("QH 7S").mask
    assert memory.opp_discards == card("KC").mask


def test_memory_resets_on_a_new_hand() -> None:
    memory = HandMemory()
    first = observation("2C 3C 4C 5D 6D 7D 9H TH JH AS", pile="KS", phase=Phase.DRAW)
    memory.observe(first)
    memory.record(first, DRAW_STOCK)
    memory.opp_passed = cards("QS").mask
    later = replace(first, hand_number=1)
    memory.observe(later)
    assert memory.opp_passed == 0


# -- the bot and the plugin -------------------------------------------------------


def test_strong_bot_decides_through_its_policy() -> None:
    bot = StrongBot()
    assert bot.name == "strong"
    assert bot.plays("gin-rummy/standard")
    obs = observation("2C 3C 4C 5D 6D 7H 8H QS KS KD", pile="4S 9H", phase=Phase.DRAW)
    decision = SimpleNamespace(observation=obs, legal_actions=[DRAW_STOCK, DRAW_DISCARD])
    # A stand-in with only the fields the bot reads, not a Decision built from a request.
    assert bot.decide(decision) == DRAW_DISCARD  # type: ignore[arg-type]


def test_plugin_registers_the_strong_bot() -> None:
    assert arena_register_bots() == [StrongBot]
