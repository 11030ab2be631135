"""Games: dealer rotation, single hands, the deal limit, rule sets and registration."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from arena.cards import derive_seed
from arena.games.rummy import (
    DEUCES,
    JOKERS,
    PRESETS,
    STANDARD,
    WINNER_TAKES_ALL,
    Ace,
    RulesError,
    RummyGame,
    RummyRules,
    Scoring,
    Wild,
    draw_for_deal,
    hand_outcome,
    seeded_deck,
)
from arena.games.rummy.spec import game_specs


def play_randomly(game: RummyGame, seed: int, limit: int = 100_000) -> int:
    rng = random.Random(seed)
    actions = 0
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()), game.current_seat())
        actions += 1
        assert actions < limit
    return actions


def test_the_deal_passes_one_seat_left_each_hand() -> None:
    """Rule 3, with no one eliminated (a target no one reaches)."""
    for seats in (2, 4, 6):
        rules = replace(STANDARD, target=10_000)
        game = RummyGame(rules, 31, seats, max_deals=2 * seats + 1)
        dealers = [game.hand.dealer]
        rng = random.Random(seats)
        while not game.is_terminal():
            before = game.hand
            game.apply(rng.choice(game.legal_actions()))
            if game.hand is not before:
                dealers.append(game.hand.dealer)
                assert game.hand.current_seat() == (game.hand.dealer + 1) % seats
        first = draw_for_deal(31, seats)[0]
        assert dealers == [(first + k) % seats for k in range(2 * seats + 1)]


def test_seeded_games_are_reproducible() -> None:
    results = []
    for _ in range(2):
        game = RummyGame(JOKERS, 2024, 4, max_deals=3)
        play_randomly(game, 5)
        results.append((game.totals, [r.termination for r in game.results], game.outcome()))
    assert results[0] == results[1]
    game = RummyGame(JOKERS, 2024, 4, max_deals=3)
    assert list(game.hand.deck) == seeded_deck(JOKERS, 4, derive_seed(2024, 1, 0))
    assert game.hand.reshuffle_seed == derive_seed(2024, 2, 0)


def test_single_hand_game() -> None:
    game = RummyGame(STANDARD, 8, 3, single_hand=True)
    play_randomly(game, 8)
    assert len(game.results) == 1
    summary = game.summary
    assert summary is not None
    assert summary.reason == f"hand: {game.results[0].termination.value}"
    outcome = game.outcome()
    assert outcome == hand_outcome(STANDARD, game.results[0])
    assert outcome.ranks[game.results[0].winner] == 0
    assert outcome.winner == game.results[0].winner
    assert outcome.scores == tuple(-p for p in game.results[0].scores)


def test_hand_outcome_ranks_losers_by_penalty() -> None:
    game = RummyGame(WINNER_TAKES_ALL, 3, 4, single_hand=True)
    play_randomly(game, 3)
    result = game.results[0]
    outcome = game.outcome()
    assert outcome.scores[result.winner] == result.points
    losers = sorted(
        (seat for seat in range(4) if seat != result.winner),
        key=lambda seat: result.seats[seat].penalty,
    )
    ranks = [outcome.ranks[seat] for seat in losers]
    assert ranks == sorted(ranks) and min(ranks) >= 1


def test_deal_limit_ends_a_game_on_the_standing() -> None:
    game = RummyGame(replace(STANDARD, target=10_000), 9, 3, max_deals=2)
    play_randomly(game, 9)
    assert len(game.results) == 2
    summary = game.summary
    assert summary is not None and summary.reason == "deal limit"
    outcome = game.outcome()
    best = min(game.totals)
    for seat, total in enumerate(game.totals):
        assert outcome.ranks[seat] == sum(1 for t in game.totals if t < total)
    assert outcome.winner == (game.totals.index(best) if game.totals.count(best) == 1 else None)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seats", [2, 6])
def test_whole_games_end(preset: str, seats: int) -> None:
    rules = PRESETS[preset]
    game = RummyGame(rules, 17 + seats, seats, max_deals=60)
    play_randomly(game, seats)
    outcome = game.outcome()
    summary = game.summary
    assert summary is not None
    if rules.scoring is Scoring.STANDARD and summary.reason == "elimination":
        alive = [seat for seat in range(seats) if game.eliminated_in[seat] is None]
        assert alive == [summary.winner]
        assert all(game.totals[s] >= rules.target for s in range(seats) if s != summary.winner)
    elif summary.reason == "target":
        assert summary.winner is not None
        assert game.totals[summary.winner] >= rules.target
    assert outcome.winner == summary.winner
    assert sorted(outcome.ranks)[0] == 0


def test_presets_and_specs() -> None:
    assert set(PRESETS) == {"standard", "winner-takes-all", "jokers", "deuces"}
    assert JOKERS.wild is Wild.JOKERS and DEUCES.wild is Wild.DEUCES
    specs = game_specs()
    assert [spec.id for spec in specs] == [f"rummy/{key}" for key in PRESETS]
    for spec in specs:
        assert (spec.min_seats, spec.max_seats) == (2, 6)
        game = spec.new_game(5, 4, hands_only=True, max_deals=0)
        assert isinstance(game, RummyGame)
        assert game.single_hand and game.num_seats == 4 and game.rules is spec.rules
        game = spec.new_game(5, 2, max_deals=7)
        assert isinstance(game, RummyGame)
        assert game.max_deals == 7 and not game.single_hand


def test_rules_from_mapping() -> None:
    rules = RummyRules.from_mapping(
        {"scoring": "winner-takes-all", "target": 200, "wild": "jokers", "ace": "high"}
    )
    assert rules.scoring is Scoring.WINNER_TAKES_ALL
    assert (rules.target, rules.wild, rules.ace) == (200, Wild.JOKERS, Ace.HIGH)
    with pytest.raises(RulesError, match="unknown Basic Rummy rule"):
        RummyRules.from_mapping({"knock_limit": 10})
    with pytest.raises(RulesError, match="must be one of none, jokers, deuces"):
        RummyRules.from_mapping({"wild": "sevens"})
    with pytest.raises(RulesError, match="must be int"):
        RummyRules.from_mapping({"target": "100"})
    with pytest.raises(RulesError, match="max_reshuffles"):
        RummyRules.from_mapping({"max_reshuffles": -1})
