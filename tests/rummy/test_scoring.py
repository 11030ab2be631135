"""Rules 9-10: penalty values, standard scoring with elimination, winner-takes-all,
the Rummy bonus; game ends and finishing order."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.games.base import IllegalActionError
from arena.games.rummy import (
    STANDARD,
    WINNER_TAKES_ALL,
    RulesError,
    Scoring,
    Termination,
)

from .helpers import Deal, ScriptedGame, act, deal

OUT_AT_ONCE = "3C 4C 5C 6C 7D 7H 7S KH KS KD"  # + AH drawn: three melds and a discard
SEAT0_62 = "AD 2D 3D 4S 5S 8H 9H TH QS JD"  # 1+2+3+4+5+8+9+10+10+10 = 62
GO_OUT = ("draw stock", "meld 3C-4C-5C-6C", "meld 7D-7H-7S", "meld KH-KS-KD", "discard AH")


def test_penalty_values() -> None:
    """Rule 9: A 1, 2-10 face value, J Q K 10."""
    hand = deal([SEAT0_62, OUT_AT_ONCE], "QD", "AH")
    act(hand, *GO_OUT)
    assert hand.result is not None
    assert hand.result.seats[0].penalty == 62
    assert hand.result.seats[0].hand == hand.hand_of(0)


def test_standard_scoring_losers_add_their_penalty() -> None:
    """Three players: both losers add their own penalty; the winner adds 0."""
    hands = ["2D 3D 8H 9H TH QS JD", "3C 4C 5C 6C 7D 7H 7S", "AS 5D 9C JC KC TS 4H"]
    hand = deal(hands, "QD", "AH")
    act(hand, "draw stock", "meld 3C-4C-5C-6C", "meld 7D-7H-7S", "discard AH")
    result = hand.result
    assert result is not None
    assert result.winner == 1
    assert result.points == 0
    assert result.scores == (2 + 3 + 8 + 9 + 10 + 10 + 10, 0, 1 + 5 + 9 + 10 + 10 + 10 + 4)
    assert result.termination is Termination.RUMMY
    assert not result.doubled  # no Rummy bonus in standard scoring


def test_elimination_and_the_last_player_standing() -> None:
    """Target 50: seat 2 (70) is out after hand 0, seat 1 (62) after hand 1; seat 0
    is the last player below the threshold and wins."""
    rules = replace(STANDARD, target=50)
    deals = [
        Deal(
            {0: "2D 3D 4S 5S 8H 9H 9D", 1: "3C 4C 5C 6C 7D 7H 7S", 2: "KC KD QC QH JC JS TC"},
            "QD",
            "AH",
        ),
        Deal({0: OUT_AT_ONCE, 1: SEAT0_62}, "QD", "7C"),
    ]
    game = ScriptedGame(rules, deals, 3, first_dealer=0)
    act(game, "draw stock", "meld 3C-4C-5C-6C", "meld 7D-7H-7S", "discard AH")
    assert game.totals == [40, 0, 70]
    assert game.eliminated_in == [None, None, 0]
    assert not game.is_terminal()
    hand = game.hand
    # Dealing passes left, to seat 1; seat 2 sits out: two players, ten cards each.
    assert hand.dealer == 1
    assert hand.players == (0, 1)
    assert [len(hand.hand_of(seat)) for seat in range(3)] == [10, 10, 0]
    assert hand.current_seat() == 0
    observation = hand.observation(0)
    assert [info.eliminated for info in observation.seats] == [False, False, True]
    assert [info.score for info in observation.seats] == [40, 0, 70]
    act(game, "draw stock", "meld 3C-4C-5C-6C-7C", "meld 7D-7H-7S", "meld KH-KS-KD")
    assert game.totals == [40, 62, 70]
    assert game.is_terminal()
    summary = game.summary
    assert summary is not None
    assert (summary.winner, summary.reason) == (0, "elimination")
    outcome = game.outcome()
    assert outcome.ranks == (0, 1, 2)  # later elimination ranks better
    assert outcome.scores == (-40, -62, -70)
    assert outcome.winner == 0
    with pytest.raises(IllegalActionError, match="the game is over"):
        act(game, "draw stock")


def test_eliminated_in_the_same_hand_rank_by_total() -> None:
    rules = replace(STANDARD, target=20)
    deals = [
        Deal(
            {0: "2D 3D 4S 5S 8H 9H 9D", 1: "3C 4C 5C 6C 7D 7H 7S", 2: "KC KD QC QH JC JS TC"},
            "QD",
            "AH",
        )
    ]
    game = ScriptedGame(rules, deals, 3, first_dealer=0)
    act(game, "draw stock", "meld 3C-4C-5C-6C", "meld 7D-7H-7S", "discard AH")
    assert game.is_terminal()
    assert game.eliminated_in == [0, None, 0]
    assert game.outcome().ranks == (1, 0, 2)


def test_winner_takes_all_scores_every_penalty() -> None:
    hands = ["2D 3D 8H 9H TH QS JD", "3C 4C 5C 6C 7D 7H 7S", "AS 5D 9C JC KC TS 4H"]
    rules = replace(WINNER_TAKES_ALL, rummy_bonus=False)
    hand = deal(hands, "QD", "AH", rules=rules)
    act(hand, "draw stock", "meld 3C-4C-5C-6C", "meld 7D-7H-7S", "discard AH")
    result = hand.result
    assert result is not None
    assert result.points == 52 + 49
    assert result.scores == (0, 101, 0)


def test_rummy_bonus_doubles_the_penalties() -> None:
    """Going out in one turn with nothing laid down before: 2 x 62."""
    hand = deal([SEAT0_62, OUT_AT_ONCE], "QD", "AH", rules=WINNER_TAKES_ALL)
    act(hand, *GO_OUT)
    result = hand.result
    assert result is not None
    assert result.termination is Termination.RUMMY
    assert result.doubled
    assert result.points == 124
    assert result.scores == (0, 124)


def test_no_rummy_bonus_after_laying_down_in_an_earlier_turn() -> None:
    hand = deal(
        [SEAT0_62, "3C 4C 5C 7D 7H 7S KH KS KD 9C"], "QD", "2C JS 6C", rules=WINNER_TAKES_ALL
    )
    act(hand, "draw stock", "meld 3C-4C-5C", "meld 7D-7H-7S", "meld KH-KS-KD", "discard 9C")
    act(hand, "draw stock", "discard JS", "draw stock", "layoff 2C>0", "layoff 6C>0")
    result = hand.result
    assert result is not None
    assert result.termination is Termination.OUT
    assert not result.doubled
    assert result.points == 62


def test_rummy_bonus_belongs_to_winner_takes_all() -> None:
    with pytest.raises(RulesError, match="winner-takes-all"):
        replace(STANDARD, rummy_bonus=True)
    assert WINNER_TAKES_ALL.rummy_bonus
    assert WINNER_TAKES_ALL.scoring is Scoring.WINNER_TAKES_ALL


def test_winner_takes_all_game_to_the_target() -> None:
    deals = [
        Deal({0: SEAT0_62, 1: OUT_AT_ONCE}, "QD", "AH"),  # dealer 0: seat 1 scores 124
    ]
    game = ScriptedGame(WINNER_TAKES_ALL, deals, 2, first_dealer=0)
    act(game, *GO_OUT)
    assert game.is_terminal()
    assert game.totals == [0, 124]
    summary = game.summary
    assert summary is not None and (summary.winner, summary.reason) == (1, "target")
    outcome = game.outcome()
    assert outcome.scores == (0, 124)
    assert outcome.ranks == (1, 0)


def test_winner_takes_all_below_the_target_plays_on() -> None:
    rules = replace(WINNER_TAKES_ALL, target=200)
    deals = [Deal({0: SEAT0_62, 1: OUT_AT_ONCE}, "QD", "AH")]
    game = ScriptedGame(rules, deals, 2, first_dealer=0)
    act(game, *GO_OUT)
    assert not game.is_terminal()
    assert game.totals == [0, 124]
    assert game.hand.dealer == 1
    assert game.hand.scores == (0, 124)
