"""Property tests for Gin Rummy: random legal play, card accounting, hidden information.

Every hand is played by a random policy (sometimes eager to knock, sometimes never
knocking, so that hands also run down the stock).  Beside the engine runs a model
written here from the deal rule in RULES.md and hand.py's docstring (non-dealer
gets deck cards 0, 2, .., 18, the dealer 1, 3, .., 19, card 20 is the upcard, the
stock is drawn from card 21 on): where every card is, which cards each seat took
from the discard pile.  After every action the engine must agree with the model,
and no observation may show a card its seat cannot know.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import ALL_CARDS, Card, CardSet, derive_seed, min_deadwood, shuffled_deck
from arena.games.gin_rummy import (
    CLASSIC,
    DRAW_DISCARD,
    DRAW_STOCK,
    STANDARD,
    Action,
    Defend,
    Discard,
    Draw,
    GinGame,
    GinHand,
    GinObservation,
    GinRules,
    Knock,
    Pass,
    Phase,
    Termination,
    cut_for_deal,
)

VARIANTS: dict[str, GinRules] = {
    "standard": STANDARD,
    "classic": CLASSIC,
    "oklahoma": replace(STANDARD, oklahoma=True),
    "last_discard": replace(STANDARD, last_discard=True),
    "classic_oklahoma_last_discard": replace(CLASSIC, oklahoma=True, last_discard=True),
}
FULL = CardSet.full()


# -- a random policy ---------------------------------------------------------------


def choose(
    legal: Sequence[Action],
    rng: random.Random,
    knock_eagerness: float,
    seen: GinObservation | None = None,
) -> Action:
    """Knock (if possible) with probability ``knock_eagerness``, else another action;
    a negative eagerness knocks only for gin.

    Given the seat's observation ``seen``, the draws and discards mostly keep the
    deadwood low, so hands reach gin and undercuts too; without it every other
    action is uniform.
    """
    knocks = [action for action in legal if isinstance(action, Knock)]
    if knock_eagerness < 0:
        knocks = [k for k in knocks if sum(len(meld.cards) for meld in k.melds) == 10]
    others = [action for action in legal if not isinstance(action, Knock)]
    if knocks and (not others or knock_eagerness < 0 or rng.random() < knock_eagerness):
        return rng.choice(knocks)
    if not others:
        return rng.choice(legal)
    if seen is not None and rng.random() < 0.8:
        hand = seen.hand
        discards = [action for action in others if isinstance(action, Discard)]
        if discards:
            return min(
                discards, key=lambda d: (min_deadwood(hand - CardSet.of([d.card])), rng.random())
            )
        if DRAW_DISCARD in others and seen.discard_pile and rng.random() < 0.5:
            # Take the top discard when it would sit in a meld (not always: two
            # players who never knock could trade discards for ever).
            top = seen.discard_pile[-1]
            if min_deadwood(hand | CardSet.of([top])) < min_deadwood(hand) + top.value:
                return DRAW_DISCARD
    return rng.choice(others)


# -- the model -----------------------------------------------------------------------


@dataclass
class Model:
    """Where the cards are, by the deal rule and the actions played."""

    deck: tuple[Card, ...]
    dealer: int
    hands: list[set[Card]] = field(default_factory=list)
    stock: list[Card] = field(default_factory=list)  # top first
    discards: list[Card] = field(default_factory=list)  # bottom first
    taken: list[set[Card]] = field(default_factory=lambda: [set(), set()])
    knock_card: Card | None = None
    knocker: int | None = None

    def __post_init__(self) -> None:
        non_dealer = 1 - self.dealer
        self.hands = [set(), set()]
        self.hands[non_dealer] = set(self.deck[0:20:2])
        self.hands[self.dealer] = set(self.deck[1:20:2])
        self.discards = [self.deck[20]]
        self.stock = list(self.deck[21:])

    def draw_stock(self, seat: int) -> None:
        self.hands[seat].add(self.stock.pop(0))

    def play(self, seat: int, phase: Phase, action: Action) -> None:
        if isinstance(action, Draw):
            if action == DRAW_STOCK:
                self.draw_stock(seat)
            else:
                card = self.discards.pop()
                self.hands[seat].add(card)
                self.taken[seat].add(card)
        elif isinstance(action, Pass):
            if phase is Phase.FIRST_UPCARD and seat == self.dealer:
                self.draw_stock(1 - self.dealer)  # both passed: the non-dealer draws
        elif isinstance(action, Discard):
            self.hands[seat].remove(action.card)
            self.taken[seat].discard(action.card)
            self.discards.append(action.card)
        elif isinstance(action, Knock):
            self.hands[seat].remove(action.card)
            self.taken[seat].discard(action.card)
            self.knock_card = action.card
            self.knocker = seat
        else:
            assert isinstance(action, Defend)  # no card moves: layoffs stay in the record


def oklahoma_limit(upcard: Card) -> tuple[int, bool]:
    """RULES.md: the upcard's value is the knock limit (ace: gin only); spades double."""
    rank = "A23456789TJQK".index(str(upcard)[0])
    return (0 if rank == 0 else min(rank + 1, 10)), str(upcard)[1] == "S"


@cache
def field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))


def cards_in(value: object) -> int:
    """The mask of every card anywhere inside an observation (fields, melds, sets...)."""
    if isinstance(value, Card):
        return 1 << value.index
    if isinstance(value, CardSet):
        return value.mask
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        mask = 0
        for name in field_names(type(value)):
            mask |= cards_in(getattr(value, name))
        return mask
    if isinstance(value, tuple | list | set | frozenset):
        mask = 0
        for item in value:
            mask |= cards_in(item)
        return mask
    return 0


def knock_cards(hand: GinHand) -> set[Card]:
    knock = hand.observation(0).knock
    if knock is None:
        return set()
    laid = set(knock.unmatched)
    for meld in knock.melds:
        laid |= set(meld.cards)
    return laid


def check_state(hand: GinHand, model: Model) -> None:
    # All 52 cards, each in exactly one place.
    places = hand.card_locations()
    total = 0
    union = CardSet()
    for cards in places.values():
        assert union.isdisjoint(cards)
        union |= cards
        total += len(cards)
    assert total == 52
    assert union == FULL
    # ... and in the places the model says.
    assert places["hand0"] == CardSet.of(model.hands[0])
    assert places["hand1"] == CardSet.of(model.hands[1])
    assert places["stock"] == CardSet.of(model.stock)
    assert places["discard_pile"] == CardSet.of(model.discards)
    assert places["knock_discard"] == CardSet.of([model.knock_card] if model.knock_card else [])
    assert len(model.stock) >= 2  # the hand ends with two cards left
    # Hand sizes: 11 for the seat about to discard, otherwise 10.
    phase = hand.phase
    for seat in (0, 1):
        holding = 11 if phase is Phase.DISCARD and seat == hand.current_seat() else 10
        assert len(model.hands[seat]) == holding

    for seat in (0, 1):
        check_observation(hand, model, seat)


def check_observation(hand: GinHand, model: Model, seat: int) -> None:
    other = 1 - seat
    obs = hand.observation(seat)
    assert obs.seat == seat
    assert obs.phase is hand.phase
    assert obs.to_act == hand.current_seat()
    assert obs.hand == CardSet.of(model.hands[seat])
    assert list(obs.discard_pile) == model.discards
    assert obs.stock_size == len(model.stock)
    assert obs.opponent_hand_size == len(model.hands[other])
    assert obs.opponent_known == CardSet.of(model.taken[other])
    if hand.rules.oklahoma:
        assert (obs.knock_limit, obs.doubled) == oklahoma_limit(model.deck[20])
    else:
        assert (obs.knock_limit, obs.doubled) == (hand.rules.knock_limit, False)
    # What this seat may know: its own cards, the discard pile, the opponent's
    # cards taken from the pile, what a knock laid on the table (and, for the
    # knocker, his own face-down discard).
    allowed = model.hands[seat] | set(model.discards) | model.taken[other] | knock_cards(hand)
    if model.knocker == seat and model.knock_card is not None:
        allowed.add(model.knock_card)
    shown = CardSet(cards_in(obs))
    assert shown <= CardSet.of(allowed), f"seat {seat} is shown {shown - CardSet.of(allowed)}"
    assert shown.isdisjoint(CardSet.of(model.stock))
    hidden_opponent = model.hands[other] - model.taken[other] - knock_cards(hand)
    assert shown.isdisjoint(CardSet.of(hidden_opponent))


def check_result(hand: GinHand, model: Model) -> None:
    result = hand.result
    assert result is not None
    assert hand.phase is Phase.OVER
    assert hand.current_seat() is None
    assert hand.legal_actions() == []
    assert result.knock_limit == hand.observation(0).knock_limit
    factor = 2 if result.doubled else 1
    rules = hand.rules
    if result.termination is Termination.DRAW:
        assert (result.winner, result.knocker, result.points, result.scores) == (
            None,
            None,
            0,
            (0, 0),
        )
        return
    knocker = result.knocker
    assert knocker is not None  # every hand but a drawn one has a knocker
    assert knocker == model.knocker
    defender = 1 - knocker
    knocker_deadwood = result.seats[knocker].deadwood
    assert knocker_deadwood == result.seats[knocker].unmatched.value
    assert knocker_deadwood <= result.knock_limit
    defending = result.seats[defender]
    assert defending.hand == CardSet.of(model.hands[defender])
    laid_off = CardSet.of(layoff.card for layoff in defending.layoffs)
    melded = CardSet()
    for meld in defending.melds:
        melded |= meld.cards
    assert laid_off | melded | defending.unmatched == defending.hand
    assert defending.deadwood == defending.unmatched.value
    if result.termination is Termination.GIN:
        assert knocker_deadwood == 0
        assert defending.layoffs == ()
        assert defending.deadwood == min_deadwood(defending.hand)
        expected = (result.winner, (defending.deadwood + rules.gin_bonus) * factor)
        assert expected == (knocker, result.points)
    elif defending.deadwood <= knocker_deadwood:
        assert result.termination is Termination.UNDERCUT
        gap = knocker_deadwood - defending.deadwood
        assert (result.winner, result.points) == (defender, (gap + rules.undercut_bonus) * factor)
    else:
        assert result.termination is Termination.KNOCK
        gap = defending.deadwood - knocker_deadwood
        assert (result.winner, result.points) == (knocker, gap * factor)
    assert result.winner is not None
    assert result.scores[result.winner] == result.points
    assert result.scores[1 - result.winner] == 0


def deck_with_upcard(seed: int, upcard: Card | None) -> tuple[Card, ...]:
    deck = list(shuffled_deck(seed))
    if upcard is not None:
        where = deck.index(upcard)
        deck[where], deck[20] = deck[20], deck[where]
    return tuple(deck)


def play_checked_hand(
    rules: GinRules,
    deck: tuple[Card, ...],
    dealer: int,
    rng: random.Random,
    eagerness: float,
    played: list[tuple[Phase, Action]] | None = None,
    *,
    smart: bool = False,
) -> GinHand:
    """Play one hand at random, checking the state after every action."""
    hand = GinHand(rules, deck, dealer)
    model = Model(deck, dealer)
    check_state(hand, model)
    for _ in range(1000):
        if hand.is_terminal():
            break
        seat, phase = hand.current_seat(), hand.phase
        assert seat is not None
        legal = hand.legal_actions()
        assert legal, f"no legal action in {phase}"
        action = choose(legal, rng, eagerness, hand.observation(seat) if smart else None)
        hand.apply(action, seat)
        model.play(seat, phase, action)
        check_state(hand, model)
        if played is not None:
            played.append((phase, action))
    else:
        raise AssertionError("the hand did not end in 1000 actions")
    check_result(hand, model)
    return hand


# -- whole hands ---------------------------------------------------------------------

upcards = st.none() | st.sampled_from(ALL_CARDS)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**64 - 1),
    st.sampled_from(sorted(VARIANTS)),
    st.integers(0, 1),
    st.sampled_from([0.0, 0.1, 0.5, 1.0, -1.0]),
    upcards,
    st.booleans(),
)
def test_random_hands_never_raise_and_keep_every_card(
    seed: int, variant: str, dealer: int, eagerness: float, upcard: Card | None, smart: bool
) -> None:
    deck = deck_with_upcard(seed, upcard)
    rng = random.Random(seed)
    play_checked_hand(VARIANTS[variant], deck, dealer, rng, eagerness, smart=smart)


def test_every_ending_is_reached() -> None:
    """The random play above does reach gin, knocks, undercuts, draws and last discards.

    Seeds are tried in order until every ending has been seen (each ending shows
    up within the first few hundred seeds; the cap only bounds a failure).
    """
    terminations: set[Termination] = set()
    last_discard_taken = last_discard_passed = ace_upcard_hands = 0

    def complete() -> bool:
        return (
            terminations == set(Termination)
            and min(last_discard_taken, last_discard_passed, ace_upcard_hands) > 0
        )

    seed = 0
    while not complete() and seed < 2000:
        rules = VARIANTS[sorted(VARIANTS)[seed % len(VARIANTS)]]
        upcard = ALL_CARDS[seed // 3 % 52] if seed % 3 == 0 else None
        eagerness = [0.3, 1.0, -1.0, 0.0][seed % 4]
        deck = deck_with_upcard(seed, upcard)
        played: list[tuple[Phase, Action]] = []
        rng = random.Random(seed)
        hand = play_checked_hand(rules, deck, seed % 2, rng, eagerness, played, smart=seed % 7 > 0)
        seed += 1
        assert hand.result is not None
        terminations.add(hand.result.termination)
        last = [action for phase, action in played if phase is Phase.LAST_DISCARD]
        assert not last or rules.last_discard
        if last == [DRAW_DISCARD]:
            last_discard_taken += 1
            assert isinstance(played[-1][1], Knock) or isinstance(played[-2][1], Knock)
            assert hand.result.termination is not Termination.DRAW
        elif last:
            assert last == [Pass()]
            last_discard_passed += 1
            assert hand.result.termination is Termination.DRAW
        if rules.oklahoma and deck[20].rank == 0:
            ace_upcard_hands += 1
            assert hand.result.knock_limit == 0
            assert hand.result.termination in (Termination.GIN, Termination.DRAW)
    assert terminations == set(Termination)
    assert ace_upcard_hands > 0
    assert last_discard_taken > 0
    assert last_discard_passed > 0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(sorted(VARIANTS)))
def test_last_discard_phase(seed: int, variant: str) -> None:
    """Never-knocking play runs the stock down; the last-discard phase then offers
    the discard only when a knock follows, and a taken discard must be knocked with."""
    rules = VARIANTS[variant]
    hand = GinHand(rules, shuffled_deck(seed), seed % 2)
    model = Model(hand.deck, seed % 2)
    rng = random.Random(seed)
    while not hand.is_terminal():
        seat, phase = hand.current_seat(), hand.phase
        assert seat is not None
        legal = hand.legal_actions()
        if phase is Phase.LAST_DISCARD:
            assert rules.last_discard
            assert len(model.stock) == 2
            assert Pass() in legal
            top = model.discards[-1]
            with_top = CardSet.of(model.hands[seat] | {top})
            can_knock = any(
                min_deadwood(with_top - CardSet.of([card])) <= hand.observation(seat).knock_limit
                for card in with_top
                if card is not top
            )
            assert (DRAW_DISCARD in legal) == can_knock
            action: Action = DRAW_DISCARD if can_knock else Pass()
        elif all(isinstance(action, Knock) for action in legal):
            action = rng.choice(legal)  # took the last discard: must knock
        else:
            action = rng.choice([a for a in legal if not isinstance(a, Knock)])
        hand.apply(action, seat)
        model.play(seat, phase, action)
        check_state(hand, model)
    check_result(hand, model)


# -- hidden information ----------------------------------------------------------------


def hidden_from(hand: GinHand, seat: int) -> CardSet:
    """Cards ``seat`` cannot know: the stock, and the opponent's unrevealed cards."""
    places = hand.card_locations()
    obs = hand.observation(seat)
    opponent = places[f"hand{1 - seat}"] - obs.opponent_known - CardSet.of(knock_cards(hand))
    return places["stock"] | opponent


def test_observations_do_not_depend_on_hidden_cards() -> None:
    """Two deals that differ only in cards hidden from one seat look the same to it.

    Swap two cards among the opponent's hand and the stock, play the same actions
    in both deals, and compare that seat's observations (and the public events)
    for as long as both swapped cards stay hidden from it.
    """
    rng = random.Random(20240611)
    compared = 0
    to_the_end = 0
    for case in range(300):
        rules = VARIANTS[sorted(VARIANTS)[case % len(VARIANTS)]]
        dealer, seat = rng.randrange(2), rng.randrange(2)
        deck = list(shuffled_deck(rng.getrandbits(64)))
        opponent_slots = range(0, 20, 2) if seat == dealer else range(1, 20, 2)
        hidden_slots = [*opponent_slots, *range(21, 52)]
        i, j = rng.sample(hidden_slots, 2)
        swapped = deck[:]
        swapped[i], swapped[j] = swapped[j], swapped[i]
        secret = CardSet.of([deck[i], deck[j]])
        a, b = GinHand(rules, deck, dealer), GinHand(rules, swapped, dealer)
        eagerness = rng.choice([0.0, 0.3, 1.0])
        assert a.observation(seat) == b.observation(seat)
        while not a.is_terminal():
            assert a.current_seat() == b.current_seat()
            assert a.phase is b.phase
            legal_a, legal_b = a.legal_actions(), b.legal_actions()
            if a.current_seat() == seat:
                assert legal_a == legal_b  # the seat's choices depend on what it knows
            common = [action for action in legal_a if action in legal_b]
            if not common:
                break
            action = choose(common, rng, eagerness)
            a.apply(action)
            b.apply(action)
            if not (secret <= hidden_from(a, seat) and secret <= hidden_from(b, seat)):
                break
            assert a.observation(seat) == b.observation(seat)
            assert a.events == b.events
            compared += 1
        else:
            to_the_end += 1
    assert compared > 10_000
    assert to_the_end > 20


# -- whole games ---------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**63),
    st.sampled_from(sorted(VARIANTS)),
    st.sampled_from([0.2, 1.0]),
    st.integers(1, 40),
)
def test_random_games_end_and_add_up(
    seed: int, variant: str, eagerness: float, max_deals: int
) -> None:
    rules = VARIANTS[variant]
    game = GinGame(rules, seed, max_deals=max_deals)
    rng = random.Random(seed)
    assert game.hand.dealer == cut_for_deal(seed)[0]
    deals = 0
    actions = 0
    while not game.is_terminal():
        hand = game.hand
        assert hand.deck == shuffled_deck(derive_seed(seed, 1, deals))
        assert hand.scores == (game.totals[0], game.totals[1])
        seat = game.current_seat()
        assert seat is not None
        game.apply(choose(game.legal_actions(), rng, eagerness), seat)
        actions += 1
        assert actions < 200 * max_deals, "the game does not end"
        if len(game.results) > deals:
            deals += 1
            result = game.results[-1]
            if not game.is_terminal():
                # The winner deals next; after a drawn hand the same dealer again.
                expected_dealer = hand.dealer if result.winner is None else result.winner
                assert game.hand.dealer == expected_dealer
                assert game.hand is not hand
    assert game.current_seat() is None
    assert game.legal_actions() == []
    summary = game.summary
    assert summary is not None
    results = game.results
    assert 1 <= len(results) <= max_deals
    for seat in (0, 1):
        assert summary.totals[seat] == sum(r.points for r in results if r.winner == seat)
        assert summary.hands_won[seat] == sum(1 for r in results if r.winner == seat)
        assert summary.box_bonus[seat] == summary.hands_won[seat] * rules.box_bonus
        assert summary.final[seat] == (
            summary.totals[seat] + summary.box_bonus[seat] + summary.game_bonus[seat]
        )
    reached = [seat for seat in (0, 1) if summary.totals[seat] >= rules.target]
    if reached:
        # Only the winner of a hand scores, so only one seat can pass the target.
        assert len(reached) == 1
        winner = reached[0]
        assert summary.winner == winner
        assert summary.shutout == (summary.totals[1 - winner] == 0)
        bonus = rules.shutout_bonus if summary.shutout and rules.shutout_bonus else rules.game_bonus
        assert summary.game_bonus == ((bonus, 0) if winner == 0 else (0, bonus))
        # The game stopped at the hand that crossed the target.
        before = sum(r.points for r in results[:-1] if r.winner == winner)
        assert before < rules.target
    else:
        assert len(results) == max_deals
        assert summary.game_bonus == (0, 0)
        leader = (
            None
            if summary.totals[0] == summary.totals[1]
            else int(summary.totals[1] > summary.totals[0])
        )
        assert summary.winner == leader
    outcome = game.outcome()
    assert outcome.scores == summary.final
    assert outcome.winner == summary.winner
