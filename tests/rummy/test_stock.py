"""Rules 7-8: the stock is rebuilt from the discard pile; a hand nobody goes out
of ends after the reshuffle cap (or the turn limit), won by the lowest hand total."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.cards import SeededRng, derive_seed
from arena.games.rummy import (
    DRAW_STOCK,
    STANDARD,
    WINNER_TAKES_ALL,
    EventKind,
    RummyCard,
    RummyHand,
    RummyRules,
    Termination,
    discard,
)

from .helpers import deal

LOW = "AC 2C 4C AD 2D 4D AH 2H 4H 6S"  # no meld, total 1+2+4+1+2+4+1+2+4+6 = 27
HIGH = "KC QC TC KD QD TD KH QH TH 8S"  # no meld, total 98
LOW_TOO = "AS 2S 4S 3C 5C 3D 5D 3H 5H 7S"  # no meld, total 38


def throw_back_turn(hand: RummyHand) -> RummyCard:
    """The seat to act draws from the stock and discards what it drew."""
    seat = hand.current_seat()
    assert seat is not None
    before = list(hand.hand_of(seat))
    hand.apply(DRAW_STOCK)
    after = list(hand.hand_of(seat))
    for c in before:
        after.remove(c)
    (drawn,) = after
    hand.apply(discard(drawn))
    return drawn


def run_down(hand: RummyHand) -> None:
    """Throw-back turns until the stock runs out (and is rebuilt, or the hand ends)."""
    start = hand.reshuffles
    while hand.reshuffles == start and not hand.is_terminal():
        throw_back_turn(hand)


def test_empty_stock_is_rebuilt_from_the_discard_pile_but_its_top() -> None:
    hand = deal([HIGH, LOW], "9C", reshuffle_seed=42)
    run_down(hand)
    assert hand.turns == 31
    pile_before = [*hand.deck[20:]]  # upcard, then the stock cards in the order drawn
    top = pile_before[-1]
    assert hand.reshuffles == 1
    assert hand.discard_pile == (top,)
    assert hand.stock_size == 31
    assert hand.events[-1].kind is EventKind.RESHUFFLE
    assert hand.events[-1].card == top
    # The new stock is the pile (bottom first, without its top) shuffled with the
    # hand's reshuffle seed, the first card of the shuffled list on top.
    pool = pile_before[:-1]
    SeededRng(derive_seed(42, 0)).shuffle(pool)
    drawn = [throw_back_turn(hand) for _ in range(31)]
    assert drawn == pool
    observation = hand.observation(0)
    assert observation.reshuffles == 2
    assert observation.max_reshuffles == 3


def test_reshuffles_are_reproducible_and_depend_on_the_seed() -> None:
    stocks = []
    for seed in (7, 7, 8):
        hand = deal([HIGH, LOW], "9C", reshuffle_seed=seed)
        run_down(hand)
        stocks.append([throw_back_turn(hand) for _ in range(5)])
    assert stocks[0] == stocks[1]
    assert stocks[0] != stocks[2]


def test_after_the_reshuffle_cap_the_lowest_hand_total_wins() -> None:
    hand = deal([HIGH, LOW_TOO], "9C", rules=replace(STANDARD, max_reshuffles=2))
    while not hand.is_terminal():
        throw_back_turn(hand)
    result = hand.result
    assert result is not None
    assert result.termination is Termination.BLOCKED
    assert result.reshuffles == 2
    assert result.turns == 31 + 31 + 31
    assert result.winner == 1
    assert [seat.penalty for seat in result.seats] == [98, 38]
    assert [seat.points for seat in result.seats] == [98, 0]
    assert hand.events[-1].kind is EventKind.HAND_OVER


def test_default_cap_is_three_reshuffles() -> None:
    hand = deal([LOW, HIGH], "9C")
    while not hand.is_terminal():
        throw_back_turn(hand)
    assert hand.result is not None
    assert hand.result.reshuffles == 3
    assert hand.result.winner == 0


def test_no_reshuffle_allowed_ends_when_the_stock_first_runs_out() -> None:
    hand = deal([HIGH, LOW], "9C", rules=replace(STANDARD, max_reshuffles=0))
    run_down(hand)
    assert hand.result is not None
    assert hand.result.termination is Termination.BLOCKED
    assert hand.result.turns == 31
    assert hand.result.winner == 1


def test_blocked_tie_goes_to_the_first_player_in_turn_order() -> None:
    """Equal totals: the first tied player from the dealer's left (seat 1) wins."""
    odd_minor = "AC 3C 5C 7C 9C AD 3D 5D 7D 9D"  # 50, no meld
    odd_major = "AH 3H 5H 7H 9H AS 3S 5S 7S 9S"  # 50, no meld
    rules = replace(STANDARD, max_reshuffles=0)
    hand = deal([odd_minor, odd_major], "KC", rules=rules)
    run_down(hand)
    assert hand.result is not None and hand.result.winner == 1
    hand = deal([odd_minor, odd_major], "KC", dealer=1, rules=rules)
    run_down(hand)
    assert hand.result is not None and hand.result.winner == 0


def test_blocked_hand_in_winner_takes_all() -> None:
    rules = replace(WINNER_TAKES_ALL, max_reshuffles=0)
    hand = deal([HIGH, LOW], "9C", rules=rules)
    run_down(hand)
    result = hand.result
    assert result is not None
    assert (result.winner, result.points, result.doubled) == (1, 98, False)
    assert result.scores == (0, 98)


def test_turn_limit_ends_a_hand_like_the_reshuffle_cap() -> None:
    """Players who keep taking each other's discards never empty the stock."""
    hand = deal([HIGH, LOW], "9C", rules=replace(STANDARD, turn_limit=6))
    hand.apply(DRAW_STOCK)
    hand.apply(discard(hand.hand_of(1)[0]))
    for _ in range(5):
        seat = hand.current_seat()
        assert seat is not None
        hand.apply(hand.legal_actions()[1])  # draw discard
        taken = hand.forbidden_discard
        assert taken is not None
        hand.apply(next(a for a in hand.legal_actions() if a != discard(taken)))
    result = hand.result
    assert result is not None
    assert result.termination is Termination.BLOCKED
    assert result.turns == 6
    assert result.reshuffles == 0


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_seeded_hand_ends(players: int) -> None:
    """Throwing back every card drawn, a hand ends by the reshuffle cap."""
    rules: RummyRules = replace(STANDARD, max_reshuffles=1)
    hand = RummyHand.from_seed(rules, players, players)
    turns = 0
    while not hand.is_terminal():
        throw_back_turn(hand)
        turns += 1
    assert hand.result is not None
    assert hand.result.termination in (Termination.BLOCKED, Termination.OUT)
    assert turns <= 2 * len(hand.deck)
