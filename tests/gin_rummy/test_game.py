"""A game of Gin Rummy (RULES.md Gin Rummy 8 and the table): hands to 100, who deals,
the classic game, shutout and box bonuses, and ``max_deals``.

Scripted deals are written by seat.  Whoever should win a hand holds
2C-3C-4C 5D-6D-7D 9C-9H-9S QD, the upcard is 8D, and he takes it on the first
turn (the non-dealer at once, the dealer after the non-dealer passes) and goes
gin by throwing QD.  The loser's deadwood is fixed by his hand:

    LOSER_10  6H-7H-8H JC-JD-JS 2S-3S-4S + KH          deadwood 10
    LOSER_25  6H-7H-8H JC-JD-JS + KH QS 3S 2S          deadwood 25
    LOSER_97  KC KD QH QS JC JD TH TS 9D 8C (no meld)  deadwood 97
    LOSER_75  KC KD QH QS JC JD TH AD 2H 2S (no meld)  deadwood 75
"""

from __future__ import annotations

import pytest

from arena.cards import derive_seed, shuffled_deck
from arena.games.base import GameError
from arena.games.gin_rummy import (
    CLASSIC,
    STANDARD,
    GinGame,
    Termination,
    cut_for_deal,
)

from .helpers import Deal, ScriptedGame, act, play_stock_turns

WINNER = "2C 3C 4C 5D 6D 7D 9C 9H 9S QD"
GIN = "knock QD 2C-3C-4C 5D-6D-7D-8D 9C-9H-9S"
LOSER_10 = "6H 7H 8H JC JD JS 2S 3S 4S KH"
LOSER_25 = "6H 7H 8H JC JD JS KH QS 3S 2S"
LOSER_97 = "KC KD QH QS JC JD TH TS 9D 8C"
LOSER_75 = "KC KD QH QS JC JD TH AD 2H 2S"


def win_for(seat: int, loser: str) -> Deal:
    """A deal in which ``seat`` goes gin on the first turn against ``loser``."""
    hands = {seat: WINNER, 1 - seat: loser}
    return Deal(seat0=hands[0], seat1=hands[1], upcard="8D")


def drawn_deal() -> Deal:
    return Deal(seat0=LOSER_10, seat1=WINNER, upcard="8D")


def gin_first_turn(game: GinGame, winner: int) -> None:
    if game.current_seat() != winner:
        act(game, "pass")
    assert game.current_seat() == winner
    act(game, "draw discard", GIN)


def play_drawn_hand(game: GinGame) -> None:
    hand = game.hand
    play_stock_turns(game, until_stock=2)
    assert hand.result is not None
    assert hand.result.termination is Termination.DRAW


# -- who deals ----------------------------------------------------------------------


def expected_first_dealer(seed: int) -> int:
    """RULES.md: lowest card of a seeded cut deals.  docs/PERFORMANCE.md: seat 0 cuts deck[0],
    seat 1 deck[1] (of shuffled_deck(derive_seed(seed, 0))); equal ranks cut again
    with the next two cards."""
    deck = shuffled_deck(derive_seed(seed, 0))
    for i in range(0, 52, 2):
        if deck[i].rank != deck[i + 1].rank:
            return 0 if deck[i].rank < deck[i + 1].rank else 1
    raise AssertionError("unreachable")


@pytest.mark.parametrize("seed", range(12))
def test_seeded_cut_picks_the_first_dealer(seed):
    dealer = expected_first_dealer(seed)
    game = GinGame(STANDARD, seed)
    assert game.hand.dealer == dealer
    assert game.current_seat() == 1 - dealer  # the non-dealer plays first
    assert cut_for_deal(seed)[0] == dealer
    assert game.hand.deck == shuffled_deck(derive_seed(seed, 1, 0))


def test_equal_ranks_cut_again():
    seed = next(s for s in range(1000) if _first_cut_ties(s))
    deck = shuffled_deck(derive_seed(seed, 0))
    dealer, cut = cut_for_deal(seed)
    assert len(cut) >= 4
    assert cut[:2] == deck[:2]
    assert dealer == expected_first_dealer(seed)
    assert GinGame(STANDARD, seed).hand.dealer == dealer


def _first_cut_ties(seed: int) -> bool:
    deck = shuffled_deck(derive_seed(seed, 0))
    return deck[0].rank == deck[1].rank


@pytest.mark.parametrize("rules", [STANDARD, CLASSIC], ids=["standard", "classic"])
def test_winner_deals_next_and_a_drawn_hand_is_redealt_by_the_same_dealer(rules):
    game = ScriptedGame(
        rules,
        [
            win_for(1, LOSER_10),
            win_for(0, LOSER_10),
            drawn_deal(),
            win_for(1, LOSER_10),
            win_for(0, LOSER_10),
        ],
        first_dealer=0,
    )
    assert game.hand.dealer == 0
    gin_first_turn(game, 1)  # the non-dealer wins
    assert game.hand.hand_number == 1
    assert game.hand.dealer == 1  # the winner deals
    gin_first_turn(game, 0)  # the non-dealer wins again
    assert game.hand.dealer == 0
    play_drawn_hand(game)
    assert game.hand.hand_number == 3
    assert game.hand.dealer == 0  # same dealer after a drawn hand
    gin_first_turn(game, 1)
    assert [result.termination for result in game.results] == [
        Termination.GIN,
        Termination.GIN,
        Termination.DRAW,
        Termination.GIN,
    ]
    assert game.hand.dealer == 1


def test_the_dealer_who_wins_deals_again():
    game = ScriptedGame(STANDARD, [win_for(0, LOSER_10), win_for(1, LOSER_10)], first_dealer=0)
    gin_first_turn(game, 0)  # the dealer wins (the non-dealer passed the upcard)
    assert game.hand.dealer == 0


def test_seeded_game_redeals_with_the_next_deck_after_a_drawn_hand():
    game = GinGame(STANDARD, 7)
    dealer = game.hand.dealer
    play_stock_turns(game, until_stock=2)  # nobody ever knocks: the hand is drawn
    assert game.results[0].termination is Termination.DRAW
    assert game.totals == [0, 0]
    assert game.hand.dealer == dealer
    assert game.hand.deck == shuffled_deck(derive_seed(7, 1, 1))


# -- reaching the target --------------------------------------------------------------


def test_standard_game_ends_at_100_without_bonuses():
    game = ScriptedGame(STANDARD, [win_for(1, LOSER_97)])
    gin_first_turn(game, 1)  # 25 + 97 = 122 >= 100
    assert game.is_terminal()
    assert game.current_seat() is None
    assert game.legal_actions() == []
    summary = game.summary
    assert summary is not None
    assert summary.totals == (0, 122)
    assert summary.winner == 1
    assert summary.game_bonus == (0, 0)
    assert summary.box_bonus == (0, 0)
    assert summary.final == (0, 122)
    outcome = game.outcome()
    assert outcome.winner == 1
    assert outcome.scores == (0, 122)
    assert outcome.ranks == (1, 0)


def test_exactly_100_reaches_the_target():
    game = ScriptedGame(STANDARD, [win_for(0, LOSER_75)])
    gin_first_turn(game, 0)  # 25 + 75 = 100
    assert game.is_terminal()
    summary = game.summary
    assert summary is not None
    assert summary.totals == (100, 0)
    assert summary.winner == 0


def test_game_goes_on_below_the_target_and_ends_when_reached():
    # 35 per hand (gin 25 + 10): 35, 70, 105.
    deals = [win_for(1, LOSER_10)] * 3
    game = ScriptedGame(STANDARD, deals, first_dealer=0)
    gin_first_turn(game, 1)
    gin_first_turn(game, 1)
    assert not game.is_terminal()
    assert game.totals == [0, 70]
    assert game.hand.observation(0).scores == (0, 70)  # running totals shown to bots
    with pytest.raises(GameError):
        game.outcome()
    gin_first_turn(game, 1)
    assert game.is_terminal()
    summary = game.summary
    assert summary is not None
    assert summary.totals == (0, 105)
    assert summary.winner == 1


def test_classic_game_bonus_and_box():
    # Classic: gin = 20 + deadwood.  Seat 1 wins 30, seat 0 wins 30, a drawn hand,
    # then seat 1 wins 20 + 97 = 117: totals 30 and 147.
    game = ScriptedGame(
        CLASSIC,
        [win_for(1, LOSER_10), win_for(0, LOSER_10), drawn_deal(), win_for(1, LOSER_97)],
        first_dealer=0,
    )
    gin_first_turn(game, 1)
    gin_first_turn(game, 0)
    play_drawn_hand(game)
    gin_first_turn(game, 1)
    summary = game.summary
    assert summary is not None
    assert summary.totals == (30, 147)
    assert summary.hands_won == (1, 2)
    assert summary.winner == 1
    assert not summary.shutout
    assert summary.game_bonus == (0, 100)
    assert summary.box_bonus == (20, 40)  # 20 per hand won, for both players
    assert summary.final == (30 + 20, 147 + 100 + 40)
    outcome = game.outcome()
    assert outcome.winner == 1
    assert outcome.scores == (50, 287)


def test_classic_shutout_doubles_the_game_bonus():
    game = ScriptedGame(CLASSIC, [win_for(1, LOSER_97)])
    gin_first_turn(game, 1)  # 20 + 97 = 117, the loser scored nothing
    summary = game.summary
    assert summary is not None
    assert summary.shutout
    assert summary.game_bonus == (0, 200)
    assert summary.box_bonus == (0, 20)
    assert summary.final == (0, 117 + 200 + 20)


def test_classic_box_bonus_does_not_count_toward_100():
    # 20 + 25 = 45 a hand: after two hands 90 (+ 40 of box) and the game goes on.
    game = ScriptedGame(CLASSIC, [win_for(1, LOSER_25)] * 3, first_dealer=0)
    gin_first_turn(game, 1)
    gin_first_turn(game, 1)  # seat 1 now deals and still wins
    assert game.totals == [0, 90]
    assert not game.is_terminal()
    gin_first_turn(game, 1)
    summary = game.summary
    assert summary is not None
    assert summary.totals == (0, 135)
    assert summary.box_bonus == (0, 60)
    assert summary.game_bonus == (0, 200)  # shutout
    assert summary.final == (0, 135 + 60 + 200)


# -- max_deals ------------------------------------------------------------------------


def test_max_deals_ends_the_game_and_the_higher_total_wins_without_game_bonus():
    # Classic, two deals: the dealer (seat 0) goes gin for 20 + 10, then a drawn hand.
    game = ScriptedGame(CLASSIC, [win_for(0, LOSER_10), drawn_deal()], max_deals=2)
    gin_first_turn(game, 0)
    assert not game.is_terminal()
    play_drawn_hand(game)  # a drawn hand counts as a deal
    assert game.is_terminal()
    summary = game.summary
    assert summary is not None
    assert summary.totals == (30, 0)
    assert summary.winner == 0
    assert summary.game_bonus == (0, 0)
    assert not summary.shutout
    assert summary.box_bonus == (20, 0)
    assert game.outcome().winner == 0


def test_max_deals_with_equal_totals_is_a_tie():
    game = ScriptedGame(STANDARD, [drawn_deal()], max_deals=1)
    play_drawn_hand(game)
    assert game.is_terminal()
    assert game.summary is not None
    assert game.summary.winner is None
    outcome = game.outcome()
    assert outcome.winner is None
    assert outcome.ranks == (0, 0)
    assert outcome.scores == (0, 0)
