"""``strong-rummy``: every decision legal in every Basic Rummy preset and seat count,
its reading of the table, and its registration."""

from __future__ import annotations

import random

import pytest

from arena.bots import BUILTIN_BOTS
from arena.bots.reference import StrongRummyBot
from arena.cards import Card, CardSet
from arena.cli.main import main as arena_main
from arena.games.rummy import PRESETS, RummyHand, RummyRules
from arena.policies import greedy_rummy
from arena.policies.strong_rummy import StrongRummyPolicy, hand_value, layoff_mask, table_openings


def play_hand(rules: RummyRules, seats: int, seed: int) -> int:
    """One hand, ``strong-rummy`` in one seat against ``greedy-rummy``; every one of
    its decisions must be in the referee's legal list.  Returns the decisions checked."""
    rng = random.Random(seed)
    hand = RummyHand.from_seed(rules, seed, seats, dealer=seed % seats)
    me = (seed // seats) % seats
    policy = StrongRummyPolicy()
    checked = 0
    while not hand.is_terminal():
        seat = hand.current_seat()
        assert seat is not None
        observation = hand.observation(seat)
        legal = hand.legal_actions()
        if seat == me:
            action = policy(observation, legal, rng)
            assert action in legal, f"seed {seed}: {action} not legal"
            checked += 1
        else:
            action = greedy_rummy(observation, legal, rng)
        hand.apply(action)
    return checked


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_decision_is_legal(preset: str) -> None:
    rules = PRESETS[preset]
    checked = 0
    for seats in (2, 3, 4, 5, 6):
        checked += sum(play_hand(rules, seats, seed) for seed in range(40))
    assert checked > 2000


def test_the_table_s_openings_include_chains() -> None:
    from arena.games.rummy.observation import TableMeld

    run = TableMeld(0, 1, tuple(CardSet.parse("5H 6H 7H")), (None, None, None))
    three = TableMeld(1, 1, tuple(CardSet.parse("9C 9D 9S")), (None, None, None))
    sets, runs = table_openings((run, three))
    assert CardSet(sets) == CardSet.parse("9C 9D 9H 9S")
    hand = CardSet.parse("8H 9H 4H KS").mask
    # 8H then 9H extend the run; 4H extends it below; 9H also fits the set.
    assert CardSet(layoff_mask(hand, sets, runs, ace_high=False)) == CardSet.parse("4H 8H 9H")
    # Cards that can be laid off count as played.
    assert hand_value(CardSet.parse("8H 9H KS").mask, CardSet.parse("8H 9H").mask) == 10
    assert Card.parse("KS").value == 10


@pytest.mark.slow  # arena match probes the sandbox (a process) even in-process
def test_registered_and_playable(capsys: pytest.CaptureFixture[str]) -> None:
    assert BUILTIN_BOTS["strong-rummy"] is StrongRummyBot
    args = ["strong-rummy", "greedy-rummy", "greedy-rummy", "greedy-rummy", "--game", "rummy"]
    status = arena_main(
        ["match", *args, "--games", "1", "--seed", "2", "--in-process", "--no-plugin-autoload"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "strong-rummy vs greedy-rummy#1" in out
