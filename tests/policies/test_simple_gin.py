"""``simple``, the EAAI challenge's SimpleGinRummyPlayer: its decisions pinned on
hand-built positions (dealt by the engine, so the legal actions are the referee's)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from arena.bots import BUILTIN_BOTS, SimpleBot
from arena.cards import Card, CardSet, deadwood_of_mask
from arena.games.gin_rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    STANDARD,
    Action,
    Discard,
    GinGame,
    GinHand,
    GinObservation,
    Knock,
    Phase,
    discard,
)
from arena.games.gin_rummy.scenario import deck_order
from arena.policies import SimpleGinPolicy, greedy_gin, random_gin
from arena.policies.simple_gin import makes_any_meld

NON_DEALER, DEALER = 1, 0  # GinHand deals with seat 0 as the dealer: seat 1 acts first

# 6S makes the set 6C-6D-6S, but the best arrangement of the eleven cards keeps the
# run 6C-7C-8C (6D and 6S unmatched: 12, against 7C and 8C: 15), so 6S melds in no
# best arrangement.
FIRST = "6C 6D 7C 8C KS QH JH 2D 4S 9D"
OTHER = "AH 3H 5H 9H JC KC QC 2S 8S TS"


def hand_at(non_dealer: str, upcard: str, stock: str = "", dealer: str = OTHER) -> GinHand:
    return GinHand(STANDARD, deck_order(non_dealer, dealer, upcard, stock))


def test_makes_any_meld() -> None:
    hand = CardSet.parse("6C 6D 7C 8C 2H 3H").mask
    assert makes_any_meld(hand, Card.parse("6S"))  # set with 6C 6D
    assert makes_any_meld(hand, Card.parse("9C"))  # run 7C-8C-9C
    assert makes_any_meld(hand, Card.parse("5C"))  # run 5C-6C-7C
    assert makes_any_meld(hand, Card.parse("AH"))  # run AH-2H-3H, ace low
    assert makes_any_meld(hand, Card.parse("4H"))
    assert not makes_any_meld(hand, Card.parse("5H"))  # a gap at 4H
    assert not makes_any_meld(hand, Card.parse("KH"))
    assert not makes_any_meld(CardSet.parse("QH KH 2C").mask, Card.parse("AH"))  # no wrap
    assert not makes_any_meld(CardSet.parse("7H 7S").mask, Card.parse("8D"))


def test_takes_a_face_up_card_that_melds_outside_the_best_arrangement() -> None:
    hand = hand_at(FIRST, "6S")
    observation = hand.observation(NON_DEALER)
    assert observation.phase is Phase.FIRST_UPCARD
    with_six = observation.hand.mask | Card.parse("6S").mask
    # The difference from greedy: 6S adds its full value to the least deadwood.
    assert deadwood_of_mask(with_six) == deadwood_of_mask(observation.hand.mask) + 6
    rng = random.Random(0)
    assert greedy_gin(observation, hand.legal_actions(), rng) == PASS
    assert SimpleGinPolicy()(observation, hand.legal_actions(), rng) == DRAW_DISCARD


def test_draws_face_down_when_the_card_melds_with_nothing() -> None:
    hand = hand_at(FIRST, "TD")  # FIRST has 9D but not 8D or JD; OTHER has one ten
    rng = random.Random(0)
    assert SimpleGinPolicy()(hand.observation(NON_DEALER), hand.legal_actions(), rng) == PASS
    hand.apply(PASS)
    assert SimpleGinPolicy()(hand.observation(DEALER), hand.legal_actions(), rng) == PASS


def _tied_position() -> tuple[GinHand, GinObservation]:
    # After drawing 5S: one meld, 6C-7C-8C; the three tens KS, QH and JH tie as the
    # discard leaving least deadwood.
    hand = hand_at(FIRST, "AS", stock="5S")
    hand.apply(PASS)
    hand.apply(PASS)  # both passed: the non-dealer draws 5S from the stock
    observation = hand.observation(NON_DEALER)
    assert observation.phase is Phase.DISCARD and Card.parse("5S") in observation.hand
    return hand, observation


def test_ties_are_broken_at_random_from_the_seed_and_reproducibly() -> None:
    hand, observation = _tied_position()
    legal = hand.legal_actions()
    tens = {Card.parse(text) for text in ("KS", "QH", "JH")}
    chosen = {}
    for seed in range(30):
        first = SimpleGinPolicy()(observation, legal, random.Random(seed))
        again = SimpleGinPolicy()(observation, legal, random.Random(seed))
        assert first == again  # the same seed, the same choice
        assert isinstance(first, Discard) and first.card in tens
        chosen[seed] = first.card
    assert set(chosen.values()) == tens  # every tied card comes up for some seed
    # greedy breaks the same tie by card order, whatever its seed
    assert {greedy_gin(observation, legal, random.Random(s)) for s in range(30)} == {
        discard(Card.parse("JH"))
    }


def test_never_discards_the_face_up_card_just_taken() -> None:
    # Runs 6C-7C-8C, AH-2H-3H, TS-JS-QS and 6D; 6S makes the set 6C-6D-6S, so it is
    # taken.  Then 6D and 6S tie as the discard of least deadwood (6): 6S must stay,
    # and 6D goes with a knock.
    hand = hand_at("6C 6D 7C 8C AH 2H 3H TS JS QS", "6S", dealer="4H 5H 9H JC KC QC 2S 8S KD 5C")
    policy = SimpleGinPolicy()
    hand.apply(policy(hand.observation(NON_DEALER), hand.legal_actions(), random.Random(0)))
    observation = hand.observation(NON_DEALER)
    six = Card.parse("6S")
    assert observation.forbidden_discard == six
    least = [
        c
        for c in observation.hand
        if deadwood_of_mask(observation.hand.mask & ~c.mask)
        == min(deadwood_of_mask(observation.hand.mask & ~d.mask) for d in observation.hand)
    ]
    assert set(least) == {six, Card.parse("6D")}
    for seed in range(20):
        action = SimpleGinPolicy()(observation, hand.legal_actions(), random.Random(seed))
        assert isinstance(action, Knock) and action.card == Card.parse("6D")  # 6 left: knock


def test_may_discard_the_card_just_drawn_face_down() -> None:
    # No melds, nothing above 9; KD drawn from the stock is the one card of least
    # deadwood to let go, and it goes (only a face-up card must stay).
    hand = hand_at(
        "AC 3C 5D 7H 9S 2D 4H 6S 8C 9D", "QH", stock="KD", dealer="JC KC QC 2S 8S TS 3S 5S 7S JS"
    )
    policy, rng = SimpleGinPolicy(), random.Random(0)
    hand.apply(policy(hand.observation(NON_DEALER), hand.legal_actions(), rng))
    hand.apply(PASS)  # the dealer passes too: the non-dealer draws KD
    assert Card.parse("KD") in hand.observation(NON_DEALER).hand
    action = policy(hand.observation(NON_DEALER), hand.legal_actions(), rng)
    assert action == discard(Card.parse("KD"))


def test_knocks_as_soon_as_allowed() -> None:
    # Melds AC-2C-3C, 4D-5D-6D, 7C-7H-7S; 9S and KD: throwing KD leaves 9 (a knock).
    hand = hand_at("AC 2C 3C 4D 5D 6D 7S 7H 7C 9S", "KH", stock="KD")
    hand.apply(PASS)
    hand.apply(PASS)
    action = SimpleGinPolicy()(hand.observation(NON_DEALER), hand.legal_actions(), random.Random(0))
    assert isinstance(action, Knock) and action.card == Card.parse("KD")
    hand.apply(action)
    assert hand.observation(DEALER).phase is Phase.DEFEND


def test_goes_gin_when_the_discard_leaves_no_deadwood() -> None:
    hand = hand_at("AC 2C 3C 4D 5D 6D 7S 7H 7C 7D", "KH", stock="KD")
    hand.apply(PASS)
    hand.apply(PASS)
    action = SimpleGinPolicy()(hand.observation(NON_DEALER), hand.legal_actions(), random.Random(3))
    assert isinstance(action, Knock)
    remaining = hand.observation(NON_DEALER).hand.mask & ~action.card.mask
    assert deadwood_of_mask(remaining) == 0


def _observation(phase: Phase, hand: str, *, forbidden: str | None = None) -> GinObservation:
    return GinObservation(
        seat=0,
        dealer=1,
        phase=phase,
        to_act=0,
        hand=CardSet.parse(hand),
        discard_pile=(Card.parse("2H"),),
        stock_size=20,
        opponent_hand_size=10,
        opponent_known=CardSet(),
        own_known=CardSet(),
        knock_limit=10,
        doubled=False,
        forbidden_discard=Card.parse(forbidden) if forbidden else None,
        knock=None,
        scores=(0, 0),
        hand_number=1,
    )


def test_a_draw_and_discard_pair_is_not_repeated_within_a_hand() -> None:
    # Ten cards without melds; drawing QD, the least deadwood goes with KS (the only
    # king).  Should the same ten come back with QD drawn again, KS may not go with
    # it a second time in that hand: QD is thrown instead (the next best).
    ten = "AC 3C 5D 7H 9S JC 2D 4H 6S KS"
    eleven = ten + " QD"
    legal = [discard(card) for card in CardSet.parse(eleven)]
    policy = SimpleGinPolicy()
    rng = random.Random(0)
    assert policy(_observation(Phase.DRAW, ten), [DRAW_STOCK, DRAW_DISCARD], rng) == DRAW_STOCK
    first = policy(_observation(Phase.DISCARD, eleven), legal, rng)
    assert isinstance(first, Discard) and first.card in CardSet.parse("KS QD JC")
    policy(_observation(Phase.DRAW, ten), [DRAW_STOCK, DRAW_DISCARD], rng)
    second = policy(_observation(Phase.DISCARD, eleven), legal, rng)
    assert isinstance(second, Discard) and second.card != first.card
    policy.new_hand()  # a new hand forgets the pairs
    policy(_observation(Phase.DRAW, ten), [DRAW_STOCK, DRAW_DISCARD], rng)
    third = policy(_observation(Phase.DISCARD, eleven), legal, random.Random(0))
    assert third == first


@pytest.mark.parametrize("seed", range(6))
def test_plays_only_legal_actions_in_whole_games(seed: int) -> None:
    game = GinGame(STANDARD, seed, max_deals=200)
    players: list[Callable[..., Action]] = (
        [SimpleGinPolicy(), random_gin] if seed % 2 else [random_gin, SimpleGinPolicy()]
    )
    rng = random.Random(seed)
    while not game.is_terminal():
        seat = game.current_seat()
        assert seat is not None
        observation = game.observation(seat)
        legal = game.legal_actions()
        action = players[seat](observation, legal, rng)
        assert action in legal
        if isinstance(action, Discard | Knock):
            assert action.card != observation.forbidden_discard
        game.apply(action, seat)


def test_simple_is_a_builtin_bot() -> None:
    assert BUILTIN_BOTS["simple"] is SimpleBot
    assert SimpleBot.name == "simple" and SimpleBot().plays("gin-rummy/standard")
    assert not SimpleBot().plays("rummy/standard")
