"""Property tests for Basic Rummy: random legal play, card accounting, hidden information.

Hands are played by a random policy (sometimes eager to meld and lay off, so hands
also go out, sometimes discarding only, so the stock recycles to the reshuffle
cap) for 2 to 6 seats under every preset and option.  Beside the engine runs a
model written from the deal and reshuffle rules in hand.py's docstring: where
every card is, which cards each seat is known to hold.  After every action the
engine must agree with the model, every card of the deal must be somewhere, and
no observation may show a card its seat cannot know.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import SeededRng, derive_seed
from arena.games.rummy import (
    DEUCES,
    JOKERS,
    PRESETS,
    STANDARD,
    WINNER_TAKES_ALL,
    Ace,
    Action,
    Discard,
    Draw,
    DrawSource,
    EventKind,
    LayMeld,
    LayOff,
    Phase,
    RummyCard,
    RummyGame,
    RummyHand,
    RummyRules,
    SwapJoker,
    Termination,
    Wild,
    seeded_deck,
)

VARIANTS: dict[str, RummyRules] = {
    **PRESETS,
    "ace-high-jokers": replace(JOKERS, ace=Ace.HIGH),
    "deuces-wta": replace(WINNER_TAKES_ALL, wild=Wild.DEUCES),
    "one-deck-five-six": replace(STANDARD, five_six_hand_size=6),
    "one-joker": replace(JOKERS, jokers=1, max_reshuffles=1),
}


# -- a random policy ---------------------------------------------------------------


def choose(legal: Sequence[Action], rng: random.Random, eagerness: float) -> Action:
    """A play (meld, layoff, swap) with probability ``eagerness`` when there is one,
    else a uniformly random action (a discard-only policy when eagerness < 0)."""
    plays = [a for a in legal if isinstance(a, LayMeld | LayOff | SwapJoker)]
    if plays and rng.random() < eagerness:
        return rng.choice(plays)
    if eagerness < 0:
        others = [a for a in legal if not isinstance(a, LayMeld | LayOff | SwapJoker)]
        return rng.choice(others)
    return rng.choice(legal)


# -- an independent model of where the cards are -------------------------------------


@dataclass
class Model:
    rules: RummyRules
    deck: Sequence[RummyCard]
    dealer: int
    num_seats: int
    reshuffle_seed: int
    hands: list[Counter[RummyCard]] = field(default_factory=list)
    known: list[Counter[RummyCard]] = field(default_factory=list)
    stock: list[RummyCard] = field(default_factory=list)  # top first
    pile: list[RummyCard] = field(default_factory=list)  # bottom first
    table: Counter[RummyCard] = field(default_factory=Counter)
    reshuffles: int = 0
    over: bool = False
    composition: Counter[RummyCard] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        n = self.num_seats
        self.composition = Counter(self.rules.composition(n))
        size = self.rules.hand_size(n)
        order = [(self.dealer + 1 + k) % n for k in range(n)]
        self.hands = [Counter() for _ in range(n)]
        self.known = [Counter() for _ in range(n)]
        for i in range(n * size):
            self.hands[order[i % n]][self.deck[i]] += 1
        self.pile = [self.deck[n * size]]
        self.stock = list(self.deck[n * size + 1 :])

    def take(self, seat: int, card: RummyCard) -> None:
        assert self.hands[seat][card] > 0
        self.hands[seat][card] -= 1
        if self.known[seat][card]:
            self.known[seat][card] -= 1

    def play(self, seat: int, action: Action, hand: RummyHand) -> None:
        if isinstance(action, Draw):
            if action.source is DrawSource.STOCK:
                self.hands[seat][self.stock.pop(0)] += 1
            else:
                top = self.pile.pop()
                self.hands[seat][top] += 1
                self.known[seat][top] += 1
            return
        if isinstance(action, LayMeld):
            for card in action.cards:
                self.take(seat, card)
                self.table[card] += 1
        elif isinstance(action, LayOff):
            self.take(seat, action.card)
            self.table[action.card] += 1
        elif isinstance(action, SwapJoker):
            meld = hand.table[action.meld_id]  # before the swap
            (wild,) = [
                c
                for c, s in zip(meld.cards, meld.stands_for, strict=True)
                if s == action.card and c != action.card
            ]
            self.take(seat, action.card)
            self.table[action.card] += 1
            self.table[wild] -= 1
            self.hands[seat][wild] += 1
            self.known[seat][wild] += 1
            return
        else:
            assert isinstance(action, Discard)
            self.take(seat, action.card)
            self.pile.append(action.card)
            if sum(self.hands[seat].values()) and not self.stock:
                if self.reshuffles < self.rules.max_reshuffles and len(self.pile) > 1:
                    pool = self.pile[:-1]
                    SeededRng(derive_seed(self.reshuffle_seed, self.reshuffles)).shuffle(pool)
                    self.stock = pool
                    self.pile = self.pile[-1:]
                    self.reshuffles += 1
                else:
                    self.over = True
        if not sum(self.hands[seat].values()):
            self.over = True


def check_state(hand: RummyHand, model: Model, seats: Sequence[int]) -> None:
    """The engine agrees with the model; ``seats``' observations are checked too."""
    places = hand.card_locations()
    everywhere: Counter[RummyCard] = Counter()
    for seat in range(hand.num_seats):
        held = Counter(places[f"hand{seat}"])
        assert held == +model.hands[seat], f"seat {seat}"
        everywhere += held
    assert list(places["stock"]) == model.stock
    assert list(places["discard_pile"]) == model.pile
    assert Counter(places["table"]) == +model.table
    everywhere += Counter(places["stock"]) + Counter(places["discard_pile"])
    everywhere += Counter(places["table"])
    assert everywhere == model.composition, "every card of the deal is somewhere, once"
    assert hand.reshuffles == model.reshuffles
    assert hand.is_terminal() == model.over
    for seat in seats:
        check_observation(hand, seat, model)


def check_observation(hand: RummyHand, seat: int, model: Model) -> None:
    """The observation shows the seat its own hand, the public piles and table, and
    for the others only hand sizes and cards known to be theirs."""
    obs = hand.observation(seat)
    assert Counter(obs.hand) == +model.hands[seat]
    assert list(obs.discard_pile) == model.pile
    assert obs.stock_size == len(model.stock)
    assert Counter(c for meld in obs.table for c in meld.cards) == +model.table
    for other, info in enumerate(obs.seats):
        assert info.hand_size == sum(model.hands[other].values())
        assert Counter(info.known) == +model.known[other]
        assert not Counter(info.known) - model.hands[other]  # known cards are held
    assert obs.to_act == hand.current_seat()
    if obs.forbidden_discard is not None:
        assert obs.to_act == seat and obs.phase is Phase.PLAY
    # Visible plus hidden is the whole deal: nothing else is shown.
    visible = Counter(obs.hand) + Counter(obs.discard_pile)
    visible += Counter(c for meld in obs.table for c in meld.cards)
    for other, info in enumerate(obs.seats):
        if other != seat:
            visible += Counter(info.known)
    hidden = Counter(model.stock)
    for other in range(hand.num_seats):
        if other != seat:
            hidden += model.hands[other] - model.known[other]
    assert visible + hidden == model.composition


def check_legal(hand: RummyHand) -> None:
    legal = hand.legal_actions()
    if hand.is_terminal():
        assert legal == []
        return
    assert legal, "a seat to act always has a legal action"
    assert len(set(legal)) == len(legal), "no action listed twice"
    if hand.phase is Phase.DRAW:
        assert all(isinstance(a, Draw) for a in legal)
    else:
        discards = [a for a in legal if isinstance(a, Discard)]
        assert discards, "a seat in its play phase can always discard"
        assert all(a.card != hand.forbidden_discard for a in discards)


def play_hand(rules: RummyRules, seed: int, seats: int, eagerness: float) -> RummyHand:
    dealer = seed % seats
    deck = seeded_deck(rules, seats, seed)
    hand = RummyHand(rules, deck, dealer, num_seats=seats, reshuffle_seed=seed + 1)
    model = Model(rules, deck, dealer, seats, seed + 1)
    rng = random.Random(seed)
    everyone = range(seats)
    check_state(hand, model, everyone)
    step = 0
    while not hand.is_terminal():
        check_legal(hand)
        seat = hand.current_seat()
        assert seat is not None
        action = choose(hand.legal_actions(), rng, eagerness)
        model.play(seat, action, hand)
        hand.apply(action, seat)
        step += 1
        # The whole state and every seat's view now and then (and at the end);
        # the actor's cards and the piles always.
        if step % 6 == 0 or hand.is_terminal():
            check_state(hand, model, everyone)
        else:
            assert Counter(hand.hand_of(seat)) == +model.hands[seat]
            assert list(hand.discard_pile) == model.pile
            assert hand.stock_size == len(model.stock)
            assert hand.reshuffles == model.reshuffles
    check_legal(hand)
    return hand


def check_result(hand: RummyHand) -> None:
    result = hand.result
    assert result is not None
    rules = hand.rules
    winner = result.winner
    if result.termination is Termination.BLOCKED:
        penalties = [result.seats[s].penalty for s in hand.order]
        assert result.seats[winner].penalty == min(penalties)
        assert hand.order.index(winner) == penalties.index(min(penalties))
    else:
        assert result.seats[winner].hand == ()
    for seat, info in enumerate(result.seats):
        assert info.hand == hand.hand_of(seat)
        assert info.penalty == sum(c.value for c in info.hand)
    others = sum(result.seats[s].penalty for s in hand.players if s != winner)
    if rules.scoring is WINNER_TAKES_ALL.scoring:
        factor = 2 if rules.rummy_bonus and result.termination is Termination.RUMMY else 1
        assert result.points == others * factor
        assert result.scores[winner] == result.points
    else:
        assert result.scores[winner] == 0
        assert sum(result.scores) == others


def test_random_hands_for_every_variant_and_player_count() -> None:
    terminations: Counter[Termination] = Counter()
    swaps = 0
    for case in range(24):
        variant = sorted(VARIANTS)[case % len(VARIANTS)]
        seats = 2 + case % 5
        eagerness = (0.9, 0.5, -1.0)[case % 3]
        hand = play_hand(VARIANTS[variant], 1000 + case, seats, eagerness)
        check_result(hand)
        assert hand.result is not None
        terminations[hand.result.termination] += 1
        swaps += sum(1 for e in hand.events if e.kind is EventKind.SWAP_JOKER)
    # (Termination.RUMMY is rare in random play: the scenario tests cover it.)
    assert {Termination.OUT, Termination.BLOCKED} <= set(terminations)
    assert swaps > 0


@settings(max_examples=15, deadline=None)
@given(
    st.integers(0, 2**63),
    st.sampled_from(sorted(VARIANTS)),
    st.integers(2, 6),
    st.sampled_from([0.95, 0.3]),
)
def test_random_legal_play_never_fails(
    seed: int, variant: str, seats: int, eagerness: float
) -> None:
    hand = play_hand(VARIANTS[variant], seed, seats, eagerness)
    check_result(hand)


# -- hidden information ----------------------------------------------------------------


def test_observations_do_not_depend_on_hidden_cards() -> None:
    """Two deals that differ only in cards hidden from one seat look the same to it.

    Swap two cards among the other seats' hands and the stock, play the same
    actions in both deals, and compare that seat's observations (and the public
    events) for as long as both swapped cards stay hidden from it.  Reshuffles
    use the same seed in both deals.
    """
    rng = random.Random(20250101)
    compared = 0
    to_the_end = 0
    for case in range(40):
        rules = VARIANTS[sorted(VARIANTS)[case % len(VARIANTS)]]
        seats = 2 + case % 5
        dealer, seat = rng.randrange(seats), rng.randrange(seats)
        deck = seeded_deck(rules, seats, rng.getrandbits(64))
        size = rules.hand_size(seats)
        order = [(dealer + 1 + k) % seats for k in range(seats)]
        seat_slots = [i for i in range(seats * size) if order[i % seats] != seat]
        hidden_slots = [*seat_slots, *range(seats * size + 1, len(deck))]
        i, j = rng.sample(hidden_slots, 2)
        swapped = deck[:]
        swapped[i], swapped[j] = swapped[j], swapped[i]
        secret = Counter([deck[i], deck[j]])
        a = RummyHand(rules, deck, dealer, num_seats=seats, reshuffle_seed=case)
        b = RummyHand(rules, swapped, dealer, num_seats=seats, reshuffle_seed=case)
        eagerness = rng.choice([0.0, 0.5, 0.9])
        assert a.observation(seat) == b.observation(seat)
        while not a.is_terminal():
            assert a.current_seat() == b.current_seat()
            legal_a, legal_b = a.legal_actions(), b.legal_actions()
            if a.current_seat() == seat:
                assert legal_a == legal_b  # the seat's choices depend on what it knows
            common = [action for action in legal_a if action in legal_b]
            if not common:
                break
            action = choose(common, rng, eagerness)
            a.apply(action)
            b.apply(action)
            if a.is_terminal() or b.is_terminal():
                # The end reveals every hand (a blocked hand's winner is the lowest total).
                assert a.events[:-1] == b.events[:-1]
                to_the_end += 1
                break
            # Still hidden: the seat cannot tell the deals apart by the cards it saw.
            # (With two decks a twin of a swapped card may stay hidden after the
            # swapped card itself came into view, so compare what is hidden.)
            hidden_a, hidden_b = hidden_from(a, seat), hidden_from(b, seat)
            if not (secret <= hidden_a and hidden_a == hidden_b):
                break
            assert a.observation(seat) == b.observation(seat)
            assert a.events == b.events
            compared += 1
    assert compared > 1_000
    assert to_the_end > 5


def hidden_from(hand: RummyHand, seat: int) -> Counter[RummyCard]:
    places = hand.card_locations()
    obs = hand.observation(seat)
    hidden = Counter(places["stock"])
    for other in range(hand.num_seats):
        if other != seat:
            hidden += Counter(places[f"hand{other}"]) - Counter(obs.seats[other].known)
    return hidden


# -- whole games ---------------------------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**63), st.sampled_from(sorted(VARIANTS)), st.integers(2, 6))
def test_random_games_end_and_add_up(seed: int, variant: str, seats: int) -> None:
    rules = VARIANTS[variant]
    game = RummyGame(rules, seed, seats, max_deals=30)
    rng = random.Random(seed)
    while not game.is_terminal():
        hand = game.hand
        assert hand.scores == tuple(game.totals)
        assert hand.players == tuple(game.active_seats())
        game.apply(choose(game.legal_actions(), rng, 0.9))
    summary = game.summary
    assert summary is not None
    for seat in range(seats):
        assert game.totals[seat] == sum(r.seats[seat].points for r in game.results)
    if DEUCES.scoring is rules.scoring and summary.reason == "elimination":
        assert len(game.active_seats()) == 1
    outcome = game.outcome()
    assert outcome.winner == summary.winner
    assert min(outcome.ranks) == 0
    assert len(outcome.ranks) == seats


# -- the listed actions, against an oracle written from the rules ------------------------


def is_meld(naturals: Sequence[int], ace_high: bool) -> bool:
    """Natural card indexes forming a set (3-4 of a rank, any suits: twins too) or a
    run (3+ consecutive of a suit, no twins; ace high too with ``ace_high``, never K-A-2)."""
    if len(naturals) < 3:
        return False
    if len({n % 13 for n in naturals}) == 1:
        return len(naturals) <= 4
    if len(set(naturals)) != len(naturals):
        return False
    ranks = sorted(n % 13 for n in naturals)
    if len({n // 13 for n in naturals}) != 1:
        return False
    if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        return True
    if ace_high and ranks[0] == 0:
        high = sorted(13 if r == 0 else r for r in ranks)
        return high == list(range(high[0], high[0] + len(high)))
    return False


def expected_actions(hand: RummyHand) -> set[str]:
    """Every action the module docstring says is listed, as text."""
    seat = hand.current_seat()
    assert seat is not None and hand.phase is Phase.PLAY
    rules = hand.rules
    ace_high = rules.ace is Ace.HIGH
    held = Counter(c.index for c in hand.hand_of(seat))
    forbidden = hand.forbidden_discard
    wild_faces = {52} if rules.wild is Wild.JOKERS else set()
    if rules.wild is Wild.DEUCES:
        wild_faces = {1, 14, 27, 40}
    wilds = sorted(f for f in held if f in wild_faces)
    naturals = sorted(f for f in held if f < 52)

    def text(face: int) -> str:
        return str(FACE[face])

    def keeps(used: Counter[int], gained: int | None = None) -> bool:
        left = held - used
        if gained is not None:
            left[gained] += 1
        total = sum(left.values())
        if total == 0 or forbidden is None:
            return True
        return total > left[forbidden.index]

    def placed(face: int, natural: int) -> str:
        return text(face) + (f"={text(natural)}" if face in wild_faces else "")

    out = {f"discard {text(f)}" for f in held if forbidden is None or f != forbidden.index}
    # A meld is all one rank or all one suit: look at the held natural cards of
    # each rank and of each suit.  Natural melds: every subset that is a meld; with
    # one wild card: every subset that a natural card not held completes.
    groups = [
        (
            [n for n in naturals if n % 13 == r for _ in range(held[n])],
            [13 * s + r for s in range(4)],
        )
        for r in range(13)
    ]
    groups += [
        ([n for n in naturals if n // 13 == s], [13 * s + r for r in range(13)]) for s in range(4)
    ]
    for group, completions in groups:
        for k in range(2, len(group) + 1):
            for subset in combinations(group, k):
                if k >= 3 and is_meld(subset, ace_high) and keeps(Counter(subset)):
                    order = sorted(subset, key=lambda n: run_key(subset, n, ace_high))
                    out.add("meld " + "-".join(placed(n, n) for n in order))
                for natural in completions if wilds else ():
                    if natural in held or not is_meld([*subset, natural], ace_high):
                        continue
                    for wild in wilds:
                        used = Counter([*subset, wild])
                        if used[wild] > held[wild] or not keeps(used):
                            continue
                        pairs = [(n, n) for n in subset] + [(natural, wild)]
                        members = [*subset, natural]
                        pairs.sort(key=lambda p: run_key(members, p[0], ace_high))
                        out.add("meld " + "-".join(placed(f, n) for n, f in pairs))
    for meld in hand.table:
        have = [c.index for c in meld.naturals]
        for natural in range(52):
            if not is_meld([*have, natural], ace_high):
                continue
            if held[natural] and keeps(Counter([natural])):
                out.add(f"layoff {placed(natural, natural)}>{meld.id}")
            if natural in have:
                continue  # a wild card is offered only for a card the meld lacks
            for wild in wilds:
                if wild != natural and keeps(Counter([wild])):
                    out.add(f"layoff {text(wild)}={text(natural)}>{meld.id}")
        for face, stands in zip(meld.cards, meld.stands_for, strict=True):
            if stands is None or stands.index == face.index:
                continue  # a natural card, or a wild deuce standing for itself
            if held[stands.index] and keeps(Counter([stands.index]), face.index):
                out.add(f"swap {stands}>{meld.id}")
    return out


FACE = {card.index: card for card in STANDARD.composition(2)} | {52: JOKERS.composition(2)[-1]}


def run_key(members: Sequence[int], natural: int, ace_high: bool) -> int:
    """Where ``natural`` sits in the meld of ``members``: runs low to high (an ace high
    when the run needs it), sets by suit."""
    if len({n % 13 for n in members}) == 1:
        return natural // 13
    ranks = {n % 13 for n in members}
    rank = natural % 13
    if rank == 0 and ace_high and 12 in ranks and 1 not in ranks:
        return 13
    return rank


def test_listed_actions_match_an_oracle_and_all_apply() -> None:
    """The listed actions are exactly those the module docstring promises, and each
    of them can be played (tried on copies of the hand)."""
    rng = random.Random(99)
    checked = 0
    for case in range(20):
        rules = VARIANTS[sorted(VARIANTS)[case % len(VARIANTS)]]
        seats = 2 + case % 5  # 5 and 6 seats play with two decks: twins
        hand = RummyHand.from_seed(rules, 300 + case, seats)
        step = 0
        while not hand.is_terminal():
            legal = hand.legal_actions()
            if hand.phase is Phase.PLAY and step % 3 == 0:
                assert {str(a) for a in legal} == expected_actions(hand)
                checked += 1
                if step % 9 == 0:
                    for action in legal:
                        # (the copies share the immutable deck and start a new event list)
                        memo = {id(hand.deck): hand.deck, id(hand.events): []}
                        copy.deepcopy(hand, memo).apply(action)
            hand.apply(choose(legal, rng, 0.7))
            step += 1
    assert checked > 150
