"""The deal, a turn (draw then discard), the discard-pile rule, observations and
legal actions (RULES.md Gin Rummy 1-3; docs/PERFORMANCE.md, "Engines").

Deal: the non-dealer holds 2C-3C-4C 5D-6D-7D 9C-9H-9S 3H, the dealer 6H-7H-8H
JC-JD-JS 2S-3S-4S QH; the upcard is KC; the stock starts KD 5H AH TC.
"""

from __future__ import annotations

import dataclasses

from arena.cards import CardSet
from arena.games.gin_rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    STANDARD,
    Discard,
    GinHand,
    Knock,
    Phase,
)
from arena.games.gin_rummy.scenario import deck_order

from .helpers import DEALER, NON_DEALER, act, card, cards, deal, opening_passes

NON_DEALER_CARDS = "2C 3C 4C 5D 6D 7D 9C 9H 9S 3H"
DEALER_CARDS = "6H 7H 8H JC JD JS 2S 3S 4S QH"


def new_hand() -> GinHand:
    return deal(NON_DEALER_CARDS, DEALER_CARDS, "KC", "KD 5H AH TC")


def test_deal_alternates_cards_and_turns_the_21st_card_up():
    order = deck_order(NON_DEALER_CARDS, DEALER_CARDS, "KC", "KD 5H")
    # Index 0 is the top: non-dealer, dealer, non-dealer, ... then the upcard.
    assert CardSet.of(order[0:20:2]) == cards(NON_DEALER_CARDS)
    assert CardSet.of(order[1:20:2]) == cards(DEALER_CARDS)
    assert str(order[20]) == "KC"
    for dealer in (0, 1):
        hand = GinHand(STANDARD, order, dealer)
        assert hand.dealer == dealer
        assert hand.hand_of(1 - dealer) == cards(NON_DEALER_CARDS)
        assert hand.hand_of(dealer) == cards(DEALER_CARDS)
        assert hand.current_seat() == 1 - dealer
        assert hand.observation(dealer).discard_pile == (card("KC"),)
        assert hand.stock_size == 52 - 21


def test_a_turn_is_one_draw_then_one_discard():
    hand = new_hand()
    assert opening_passes(hand) == card("KD")
    act(hand, "discard KD")
    assert hand.current_seat() == DEALER
    assert hand.phase is Phase.DRAW
    act(hand, "draw stock")
    assert hand.hand_of(DEALER) == cards(DEALER_CARDS + " 5H")
    assert hand.phase is Phase.DISCARD
    assert hand.current_seat() == DEALER  # still his turn until he discards
    act(hand, "discard QH")
    assert hand.hand_of(DEALER) == cards(DEALER_CARDS + " 5H") - cards("QH")
    assert hand.observation(NON_DEALER).discard_pile == tuple(map(card, ["KC", "KD", "QH"]))
    assert hand.current_seat() == NON_DEALER
    assert hand.phase is Phase.DRAW
    assert hand.stock_size == 31 - 2


def test_drawing_from_the_discard_pile_takes_its_top_card():
    hand = new_hand()
    opening_passes(hand)
    act(hand, "discard KD", "draw discard")
    assert hand.hand_of(DEALER) == cards(DEALER_CARDS + " KD")
    assert hand.observation(DEALER).discard_pile == (card("KC"),)
    assert hand.stock_size == 30  # the stock is untouched


def test_card_taken_from_the_pile_may_be_discarded_on_a_later_turn():
    hand = new_hand()
    opening_passes(hand)
    act(hand, "discard KD", "draw discard")  # the dealer takes KD
    assert hand.observation(DEALER).forbidden_discard == card("KD")
    act(hand, "discard QH", "draw stock", "discard 5H", "draw stock")  # dealer draws AH
    assert hand.observation(DEALER).forbidden_discard is None
    act(hand, "discard KD")
    assert hand.observation(NON_DEALER).discard_pile[-1] == card("KD")
    assert card("KD") not in hand.hand_of(DEALER)


def test_legal_actions_when_drawing():
    hand = new_hand()
    opening_passes(hand)
    act(hand, "discard KD")
    assert hand.legal_actions() == [DRAW_STOCK, DRAW_DISCARD]


def test_legal_actions_never_offer_the_card_just_taken_from_the_pile():
    hand = new_hand()
    opening_passes(hand)
    act(hand, "discard KD", "draw discard")  # dealer: his nine melded cards, QH and KD
    legal = hand.legal_actions()
    discards = {a.card for a in legal if isinstance(a, Discard)}
    knocks = {a.card for a in legal if isinstance(a, Knock)}
    assert discards == set(cards(DEALER_CARDS))  # every card but KD
    # Throwing QH or KD leaves 10; KD may not be thrown, so only QH knocks.
    assert knocks == {card("QH")}
    assert len(legal) == 10 + 1


def test_legal_actions_after_a_stock_draw_offer_every_discard_and_each_knock():
    hand = new_hand()
    opening_passes(hand)  # the non-dealer holds his melds, 3H and KD
    legal = hand.legal_actions()
    assert {a.card for a in legal if isinstance(a, Discard)} == set(cards(NON_DEALER_CARDS + " KD"))
    knocks = {a.card: a for a in legal if isinstance(a, Knock)}
    assert set(knocks) == set(cards("3H KD"))  # leaving KD (10) or 3H (3)
    for action in knocks.values():  # each offered knock is legal as offered
        fresh = new_hand()
        act(fresh, "pass", "pass", action)
        assert fresh.phase is Phase.DEFEND


def test_observation_shows_own_hand_the_pile_counts_and_cards_seen_taken():
    hand = new_hand()
    act(hand, "draw discard", "discard 3H")  # the non-dealer takes the upcard KC
    seen = hand.observation(DEALER)
    assert seen.seat == DEALER
    assert seen.dealer == DEALER
    assert seen.hand == cards(DEALER_CARDS)
    assert seen.discard_pile == (card("3H"),)
    assert seen.stock_size == 31
    assert seen.opponent_hand_size == 10
    assert seen.opponent_known == cards("KC")  # taken from the pile and still held
    assert seen.to_act == DEALER
    assert seen.phase is Phase.DRAW
    assert hand.observation(NON_DEALER).opponent_known == CardSet()

    act(hand, "draw stock", "discard KD")  # a stock draw shows nothing
    assert hand.observation(NON_DEALER).opponent_known == CardSet()
    assert hand.observation(NON_DEALER).opponent_hand_size == 10
    act(hand, "draw stock", "discard KC")  # once discarded, KC is no longer "known"
    assert hand.observation(DEALER).opponent_known == CardSet()


def test_observation_hides_the_opponents_cards():
    hand = new_hand()
    act(hand, "draw discard", "discard 3H", "draw stock")
    for seat in (DEALER, NON_DEALER):
        view = hand.observation(seat)
        assert view.hand == hand.hand_of(seat)
        hidden = hand.hand_of(1 - seat) - view.opponent_known
        assert len(hidden) >= 9
        for field in dataclasses.fields(view):
            value = getattr(view, field.name)
            if isinstance(value, CardSet):
                assert value.isdisjoint(hidden), field.name
            elif isinstance(value, tuple):
                assert not set(value) & set(hidden), field.name


def test_forbidden_discard_is_shown_only_to_the_seat_that_must_discard():
    hand = new_hand()
    act(hand, "draw discard")
    assert hand.observation(NON_DEALER).forbidden_discard == card("KC")
    assert hand.observation(DEALER).forbidden_discard is None
