"""Rules 1-4: players and decks, hand sizes, the first dealer, the deal, the upcard."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from arena.cards import ALL_CARDS, derive_seed, shuffled_deck
from arena.games.rummy import (
    DEUCES,
    DRAW_STOCK,
    JOKER,
    JOKERS,
    STANDARD,
    Phase,
    RulesError,
    RummyGame,
    RummyHand,
    RummyRules,
    draw_for_deal,
    seeded_deck,
    sorted_cards,
)

from .helpers import card


@pytest.mark.parametrize(
    ("players", "size", "deck_size"),
    [(2, 10, 52), (3, 7, 52), (4, 7, 52), (5, 10, 104), (6, 10, 104)],
)
def test_hand_sizes_and_decks(players: int, size: int, deck_size: int) -> None:
    """Rules 1-2: one deck for 2-4 players, two for 5-6 (10 cards each by default)."""
    hand = RummyHand.from_seed(STANDARD, 11, players)
    assert len(hand.deck) == deck_size
    for seat in range(players):
        assert len(hand.hand_of(seat)) == size
    assert len(hand.discard_pile) == 1
    assert hand.stock_size == deck_size - players * size - 1


@pytest.mark.parametrize("players", [5, 6])
def test_five_or_six_players_with_one_deck_get_six_cards(players: int) -> None:
    rules = replace(STANDARD, five_six_hand_size=6)
    hand = RummyHand.from_seed(rules, 5, players)
    assert len(hand.deck) == 52
    assert all(len(hand.hand_of(seat)) == 6 for seat in range(players))
    assert hand.stock_size == 52 - 6 * players - 1


def test_five_six_hand_size_is_six_or_ten() -> None:
    with pytest.raises(RulesError, match="five_six_hand_size"):
        replace(STANDARD, five_six_hand_size=8)


@pytest.mark.parametrize("players", [1, 7])
def test_two_to_six_players(players: int) -> None:
    with pytest.raises(RulesError, match="2 to 6 players"):
        RummyGame(STANDARD, 1, players)


def test_two_decks_hold_every_card_twice() -> None:
    hand = RummyHand.from_seed(STANDARD, 3, 6)
    assert Counter(hand.deck) == {c: 2 for c in ALL_CARDS}


def test_two_jokers_in_all_whatever_the_number_of_decks() -> None:
    """Rule 11 (seed 004: "añaden 2 comodines"): 2 jokers with one deck and with two."""
    assert Counter(JOKERS.composition(4))[JOKER] == 2
    assert len(JOKERS.composition(4)) == 54
    assert Counter(JOKERS.composition(6))[JOKER] == 2
    assert len(JOKERS.composition(6)) == 106
    assert Counter(seeded_deck(JOKERS, 5, 7))[JOKER] == 2
    assert Counter(replace(JOKERS, jokers=4).composition(6))[JOKER] == 4
    assert Counter(replace(JOKERS, jokers=1).composition(2))[JOKER] == 1
    assert JOKER not in DEUCES.composition(6)
    assert JOKER not in STANDARD.composition(2)
    assert JOKER not in replace(STANDARD, jokers=3).composition(6)  # no wild jokers: none
    with pytest.raises(RulesError, match=r"jokers must be 1\.\.4, got 0"):
        replace(JOKERS, jokers=0)
    with pytest.raises(RulesError, match="unknown Basic Rummy rule 'jokers_per_deck'"):
        RummyRules.from_mapping({"jokers_per_deck": 1})


def test_deal_one_card_at_a_time_from_the_dealers_left() -> None:
    """Rules 3-4: seat 2 deals in a 3-seat game: seat 0 gets deck cards 0, 3, 6, ..,
    seat 1 cards 1, 4, .., seat 2 cards 2, 5, ..; card 21 is the upcard; 22 the stock top."""
    deck = list(shuffled_deck(99))
    hand = RummyHand(STANDARD, deck, dealer=2, num_seats=3)
    assert hand.hand_of(0) == sorted_cards(deck[0:21:3])
    assert hand.hand_of(1) == sorted_cards(deck[1:21:3])
    assert hand.hand_of(2) == sorted_cards(deck[2:21:3])
    assert hand.discard_pile == (deck[21],)
    assert hand.current_seat() == 0  # the player left of the dealer plays first
    assert hand.phase is Phase.DRAW
    hand.apply(DRAW_STOCK)
    assert Counter(hand.hand_of(0)) - Counter(deck[0:21:3]) == {deck[22]: 1}


def test_dealer_in_the_middle_deals_to_his_left_first() -> None:
    deck = list(shuffled_deck(7))
    hand = RummyHand(STANDARD, deck, dealer=1, num_seats=4)
    assert hand.order == (2, 3, 0, 1)
    assert hand.hand_of(2) == sorted_cards(deck[0:28:4])
    assert hand.hand_of(1) == sorted_cards(deck[3:28:4])
    assert hand.current_seat() == 2


def test_first_dealer_is_the_highest_card_of_a_seeded_draw() -> None:
    """Rule 3: every seat draws; the highest rank deals; tied seats draw again."""
    ties = 0
    for seed in range(60):
        for seats in range(2, 7):
            dealer, draws = draw_for_deal(seed, seats)
            deck = shuffled_deck(derive_seed(seed, 0))
            assert [c for _, c in draws] == list(deck[: len(draws)])
            first = draws[:seats]
            best = max(c.rank for _, c in first)
            tied = [seat for seat, c in first if c.rank == best]
            if len(tied) == 1:
                assert dealer == tied[0]
                assert len(draws) == seats
            else:
                ties += 1
                assert dealer in tied
                again = draws[seats : seats + len(tied)]
                assert [seat for seat, _ in again] == tied
            assert RummyGame(STANDARD, seed, seats).hand.dealer == dealer
    assert ties > 10


def test_a_deck_order_must_be_the_deal() -> None:
    deck = list(shuffled_deck(1))
    with pytest.raises(ValueError, match="exactly the 52 cards"):
        RummyHand(STANDARD, deck[:-1], num_seats=2)
    with pytest.raises(ValueError, match="exactly the 54 cards"):
        RummyHand(JOKERS, deck, num_seats=2)
    with pytest.raises(ValueError, match="exactly the 104 cards"):
        RummyHand(STANDARD, deck, num_seats=5)
    with pytest.raises(ValueError, match="dealer"):
        RummyHand(STANDARD, deck, dealer=3, num_seats=2)


def test_seeded_deals_are_reproducible() -> None:
    a = RummyHand.from_seed(JOKERS, 1234, 5)
    b = RummyHand.from_seed(JOKERS, 1234, 5)
    c = RummyHand.from_seed(JOKERS, 1235, 5)
    assert a.deck == b.deck
    assert a.deck != c.deck
    assert list(a.deck) == seeded_deck(JOKERS, 5, 1234)
    game = RummyGame(STANDARD, 77, 3)
    assert list(game.hand.deck) == seeded_deck(STANDARD, 3, derive_seed(77, 1, 0))


def test_upcard_starts_the_discard_pile() -> None:
    hand = RummyHand.from_seed(STANDARD, 5, 2)
    upcard = hand.deck[20]
    assert hand.discard_pile == (upcard,)
    assert hand.observation(0).discard_pile == (upcard,)
    assert hand.events[0].card == upcard
    assert card(str(upcard)) == upcard
