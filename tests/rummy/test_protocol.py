"""Basic Rummy <-> protocol: round trips, malformed messages, the referee's table."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from arena.games.base import IllegalActionError
from arena.games.rummy import (
    DEUCES,
    DRAW_DISCARD,
    DRAW_STOCK,
    JOKER,
    JOKERS,
    PRESETS,
    STANDARD,
    WINNER_TAKES_ALL,
    Ace,
    Action,
    LayMeld,
    LayOff,
    RummyGame,
    RummyHand,
    SwapJoker,
    Wild,
    discard,
)
from arena.proto import bot_pb2 as pb
from arena.protocol import ProtocolError
from arena.protocol import rummy as codec

from .helpers import card, cards, natural

VARIANTS = [
    STANDARD,
    JOKERS,
    DEUCES,
    WINNER_TAKES_ALL,
    replace(JOKERS, ace=Ace.HIGH),
    replace(WINNER_TAKES_ALL, wild=Wild.DEUCES),
]


def random_states(count: int = 12) -> Iterator[tuple[RummyHand, list[Action]]]:
    """(hand, legal actions) at every decision of some randomly played hands."""
    rng = random.Random(7)
    for case in range(count):
        rules = VARIANTS[case % len(VARIANTS)]
        seats = 2 + case % 5
        hand = RummyHand.from_seed(rules, 500 + case, seats, dealer=case % seats)
        while not hand.is_terminal():
            legal = hand.legal_actions()
            yield hand, legal
            plays = [a for a in legal if not isinstance(a, type(discard(JOKER)))]
            hand.apply(rng.choice(plays if plays and rng.random() < 0.8 else legal))
        yield hand, []


def test_actions_round_trip() -> None:
    kinds: Counter[str] = Counter()
    for _, legal in random_states():
        for action in legal:
            message = codec.action_to_proto(action)
            assert codec.action_from_proto(message) == action
            assert codec.parse_action(str(action)) == action
            assert codec.RummyTable.format_action(action) == str(action)
            kinds[message.WhichOneof("kind")] += 1
    assert set(kinds) == {"draw", "discard", "lay_meld", "lay_off", "swap_joker"}


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (DRAW_STOCK, pb.Action(draw=pb.Draw(source=pb.Draw.SOURCE_STOCK))),
        (DRAW_DISCARD, pb.Action(draw=pb.Draw(source=pb.Draw.SOURCE_DISCARD))),
        (discard(JOKER), pb.Action(discard=pb.Discard(card="JK"))),
        (
            LayMeld(cards("5H 6H JK"), (None, None, natural("7H"))),
            pb.Action(
                lay_meld=pb.LayMeld(meld=pb.Meld(cards=["5H", "6H", "JK"], stands_for=["7H"]))
            ),
        ),
        (
            LayMeld(cards("2D 3H 4H"), (natural("2H"), None, None)),
            pb.Action(
                lay_meld=pb.LayMeld(meld=pb.Meld(cards=["2D", "3H", "4H"], stands_for=["2H"]))
            ),
        ),
        (
            LayOff(JOKER, 4, natural("9S")),
            pb.Action(lay_off=pb.LayOff(layoff=pb.Layoff(card="JK", meld_id=4, stands_for="9S"))),
        ),
        (
            LayOff(card("9S"), 4),
            pb.Action(lay_off=pb.LayOff(layoff=pb.Layoff(card="9S", meld_id=4))),
        ),
        (
            SwapJoker(natural("7H"), 2),
            pb.Action(swap_joker=pb.SwapJoker(card="7H", meld_id=2)),
        ),
    ],
)
def test_action_messages(action: Action, message: pb.Action) -> None:
    assert codec.action_to_proto(action) == message
    assert codec.action_from_proto(message) == action


def test_stands_for_matches_jokers_or_jokers_and_deuces() -> None:
    """Jokers wild: the entries go to the jokers (a deuce is natural); deuces wild:
    to the deuces."""
    jokers = pb.Meld(cards=["2H", "3H", "JK"], stands_for=["4H"])
    assert codec.action_from_proto(pb.Action(lay_meld=pb.LayMeld(meld=jokers))) == LayMeld(
        cards("2H 3H JK"), (None, None, natural("4H"))
    )
    deuces = pb.Meld(cards=["2H", "3H", "2C"], stands_for=["2H", "4H"])
    assert codec.action_from_proto(pb.Action(lay_meld=pb.LayMeld(meld=deuces))) == LayMeld(
        cards("2H 3H 2C"), (natural("2H"), None, natural("4H"))
    )


@pytest.mark.parametrize(
    ("message", "text"),
    [
        (pb.Action(), "no action set"),
        (pb.Action(knock=pb.Knock(card="7H")), "not a Basic Rummy action"),
        (pb.Action(**{"pass": pb.Pass()}), "not a Basic Rummy action"),
        (pb.Action(draw=pb.Draw()), "SOURCE_STOCK or SOURCE_DISCARD"),
        (pb.Action(discard=pb.Discard(card="1H")), "discard.card"),
        (
            pb.Action(
                lay_meld=pb.LayMeld(meld=pb.Meld(cards=["5H", "6H", "JK"], stands_for=["7H", "8H"]))
            ),
            "2 stands_for entries for 1 jokers and 0 deuces",
        ),
        (
            pb.Action(
                lay_meld=pb.LayMeld(meld=pb.Meld(cards=["5H", "6H", "JK"], stands_for=["JK"]))
            ),
            "natural card",
        ),
        (pb.Action(lay_off=pb.LayOff(layoff=pb.Layoff(card="JK", stands_for="XX"))), "stands_for"),
        (pb.Action(swap_joker=pb.SwapJoker(card="JK", meld_id=0)), "natural card"),
    ],
)
def test_malformed_actions_are_protocol_errors(message: pb.Action, text: str) -> None:
    with pytest.raises(ProtocolError, match=text):
        codec.action_from_proto(message)


@pytest.mark.parametrize(
    ("meld", "text"),
    [
        (pb.Meld(cards=["5H", "6H"]), "at least 3 cards"),
        (pb.Meld(cards=["5H", "6H", "JK"]), "say which card the joker stands for"),
        (pb.Meld(cards=["5H", "6H", "7C"]), "neither one rank nor one suit"),
        (pb.Meld(cards=["5H", "6H", "JK"], stands_for=["6H"]), "two cards of a run"),
        (pb.Meld(cards=["7H", "7H", "7S", "7C", "7D"]), "a set has at most 4 cards"),
    ],
)
def test_melds_no_rule_set_allows_are_illegal_actions(meld: pb.Meld, text: str) -> None:
    with pytest.raises(IllegalActionError, match=text):
        codec.action_from_proto(pb.Action(lay_meld=pb.LayMeld(meld=meld)))


def test_a_set_of_twins_passes_the_shape_check() -> None:
    """A set ignores suits: 7H-7H-7S (two decks) reaches the engine."""
    meld = pb.Meld(cards=["7H", "7H", "7S"])
    action = codec.action_from_proto(pb.Action(lay_meld=pb.LayMeld(meld=meld)))
    assert action == LayMeld(cards("7H 7H 7S"), (None, None, None))


def test_observations_round_trip() -> None:
    checked = 0
    for hand, _ in random_states(8):
        for seat in range(hand.num_seats):
            observation = hand.observation(seat)
            message = codec.observation_to_proto(observation, "rummy/x", 3)
            assert message.game_number == 3 and message.game_id == "rummy/x"
            assert codec.observation_from_proto(message) == observation
            checked += 1
    assert checked > 1000


def test_observation_message_fields() -> None:
    game = RummyGame(JOKERS, 5, 3, first_dealer=0)
    hand = game.hand
    hand.apply(DRAW_DISCARD)
    seat = hand.current_seat()
    assert seat == 1
    message = codec.observation_to_proto(hand.observation(1), "rummy/jokers", 0)
    assert message.phase == pb.PHASE_PLAY
    assert message.num_seats == 3 and len(message.seats) == 3
    assert message.forbidden_discard == str(hand.forbidden_discard)
    assert list(message.seats[1].known_cards) == [str(hand.forbidden_discard)]
    assert message.rummy.max_reshuffles == 3
    assert message.rummy.reshuffles == 0
    assert not message.rummy.melded_this_hand
    assert message.HasField("rummy") and not message.HasField("gin")


def test_rules_map() -> None:
    mapping = codec.rules_map(PRESETS["winner-takes-all"])
    assert mapping == {
        "name": "winner-takes-all",
        "scoring": "winner-takes-all",
        "target": "100",
        "rummy_bonus": "true",
        "wild": "none",
        "jokers": "2",
        "ace": "low",
        "five_six_hand_size": "10",
        "max_reshuffles": "3",
        "turn_limit": "1000",
    }


# -- the table, driven the way the referee drives it ---------------------------------


def drive(table: codec.RummyTable, rng: random.Random) -> list[tuple[pb.HandEnd, dict[str, Any]]]:
    """The referee's loop (arena/referee/match.py) without bots: random legal indexes."""
    ends = []
    starts = 0
    while not table.is_terminal():
        if table.hand_started():
            starts += 1
            assert len(table.deck()) == len(table.game.hand.deck)
            for each in range(table.game.num_seats):
                start = table.hand_start(each, 0)
                assert list(start.hand) == [str(c) for c in table.game.hand.hand_of(each)]
                assert start.dealer == table.dealer()
        seat = table.current_seat()
        assert seat is not None
        message = table.decision(seat, 0, 1)
        request = message.decision
        assert len(request.legal_actions) == len(table.legal)
        observation = codec.observation_from_proto(request.observation)
        assert observation == table.game.hand.observation(seat)
        index = rng.randrange(len(table.legal))
        action = table.action_from_proto(request.legal_actions[index])
        assert action == table.legal[index]
        table.apply(action, seat)
        ends += table.finished_hands(0)
    assert starts == len(ends) == table.hand_number + 1
    return ends


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_table_plays_a_game(seats: int) -> None:
    game = RummyGame(JOKERS, 40 + seats, seats, max_deals=3)
    table = codec.new_table("rummy/jokers", game)
    assert isinstance(table, codec.RummyTable) and table.family == "rummy"
    ends = drive(table, random.Random(seats))
    totals = [0] * seats
    for number, (hand_end, reported) in enumerate(ends):
        result = game.results[number]
        assert reported is result
        record = table.hand_record(result)
        assert hand_end.hand_number == number
        assert hand_end.termination == result.termination.value
        assert hand_end.winner == result.winner
        assert len(hand_end.seats) == seats
        for seat, reveal in enumerate(hand_end.seats):
            totals[seat] += result.seats[seat].points
            assert reveal.deadwood == result.seats[seat].penalty
            assert list(reveal.hand) == [str(c) for c in result.seats[seat].hand]
        assert list(hand_end.scores) == totals
        assert json.loads(json.dumps(record)) == record  # what a replay compares
        assert record["winner"] == result.winner
    assert table.end_reason() in ("elimination", "deal limit")
    assert table.outcome() == game.outcome()
    assert table.scores() == tuple(-t for t in game.totals)


def test_table_single_hand_and_winner_takes_all_scores() -> None:
    game = RummyGame(WINNER_TAKES_ALL, 3, 3, single_hand=True)
    table = codec.new_table("rummy/winner-takes-all", game)
    drive(table, random.Random(3))
    assert table.end_reason() == f"hand: {game.results[0].termination.value}"
    assert table.scores() == tuple(game.totals)


def test_each_seat_is_sent_every_event_once_in_order() -> None:
    game = RummyGame(JOKERS, 12, 3, max_deals=1)
    table = codec.new_table("rummy/jokers", game)
    rng = random.Random(12)
    seen: dict[int, list[pb.Event]] = {0: [], 1: [], 2: []}
    table.hand_started()
    while not table.is_terminal():
        seat = table.current_seat()
        assert seat is not None
        request = table.decision(seat, 0, 1).decision
        seen[seat] += list(request.events)
        table.apply(rng.choice(table.legal), seat)
    events = [codec.event_to_proto(event) for event in game.hand.events]
    for received in seen.values():
        assert received == events[: len(received)]
        assert len(received) > len(events) // 2


def test_event_messages() -> None:
    hand = RummyHand.from_seed(JOKERS, 1, 2)
    kinds = {}
    rng = random.Random(1)
    while not hand.is_terminal():
        legal = hand.legal_actions()
        plays = [a for a in legal if isinstance(a, LayMeld | LayOff | SwapJoker)]
        hand.apply(rng.choice(plays) if plays else rng.choice(legal))
    for event in hand.events:
        message = codec.event_to_proto(event)
        kinds[event.kind] = message
        if event.meld is not None:
            assert message.melds[0].id == event.meld.id
            assert list(message.melds[0].cards) == [str(c) for c in event.meld.cards]
    lay_off = [m for k, m in kinds.items() if k.value == "lay_off"]
    for message in lay_off:
        assert message.layoffs[0].meld_id == message.melds[0].id


def test_hidden_cards_is_a_multiset_of_what_a_seat_is_not_shown() -> None:
    for seats in (2, 5):
        game = RummyGame(JOKERS, 77, seats, max_deals=1)
        table = codec.new_table("rummy/jokers", game)
        rng = random.Random(seats)
        composition = Counter(str(c) for c in JOKERS.composition(seats))
        while not table.is_terminal():
            for seat in range(seats):
                hidden = table.hidden_cards(seat)
                shown = codec.observation_to_proto(game.hand.observation(seat), "g", 0)
                visible = Counter(shown.hand) + Counter(shown.discard_pile)
                visible += Counter(text for meld in shown.table for text in meld.cards)
                for other, view in enumerate(shown.seats):
                    if other != seat:
                        visible += Counter(view.known_cards)
                assert visible + hidden == composition
            seat_to_act = table.current_seat()
            assert seat_to_act is not None
            table.apply(rng.choice(table.legal_actions()), seat_to_act)
