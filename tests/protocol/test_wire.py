"""The hand-written wire encoding equals the protobuf library's, byte for byte.

The referee encodes decision requests from cached fragments (``arena.protocol.wire``).
These tests hold that encoding to the library: the primitives on edge values, and
whole Gin observations and requests over random games under every option, against
messages built field by field through the protobuf API.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from typing import TypeVar

import pytest

from arena.cards import ALL_CARDS, CardSet
from arena.games.gin_rummy import STANDARD, Defend, GinGame, GinObservation, Knock
from arena.games.registry import find_game
from arena.proto import bot_pb2 as pb
from arena.protocol import codec_for
from arena.protocol import gin as gin_codec
from arena.protocol.common import cards_to_texts, melds_to_proto
from arena.protocol.wire import CardField, int_field, message_field, string_field, varint

A = TypeVar("A")

INT_VALUES = [0, 1, 2, 127, 128, 255, 300, 16383, 16384, 2**31 - 1, 2**32 - 1, 2**40]


@pytest.mark.parametrize("value", INT_VALUES)
def test_unsigned_fields_match_the_library(value: int) -> None:
    expected = pb.DecisionRequest(request_id=value).SerializeToString()
    assert int_field(1, value) == expected


@pytest.mark.parametrize("value", [0, 1, -1, -2, 127, 128, -128, 2**31 - 1, -(2**31)])
def test_signed_fields_match_the_library(value: int) -> None:
    # int32 to_act = 6: a negative value takes ten bytes on the wire
    assert int_field(6, value) == pb.Observation(to_act=value).SerializeToString()


def test_bools_and_enums_match_the_library() -> None:
    assert int_field(2, True) == pb.GinView(doubled=True).SerializeToString()
    assert int_field(2, False) == b""
    assert (
        int_field(5, pb.PHASE_DEFEND) == pb.Observation(phase=pb.PHASE_DEFEND).SerializeToString()
    )


@pytest.mark.parametrize("size", [0, 1, 127, 128, 300, 20000])
def test_length_delimited_fields_match_the_library(size: int) -> None:
    text = "x" * size
    assert string_field(2, text) == pb.HandshakeRequest(referee=text).SerializeToString()
    envelope = pb.RefereeMessage(notice=pb.Notice(text=text))
    assert message_field(8, envelope.notice.SerializeToString()) == envelope.SerializeToString()


def test_varint_covers_the_whole_64_bit_range() -> None:
    assert varint(0) == b"\x00"
    assert varint(2**64 - 1) == b"\xff" * 9 + b"\x01"


@pytest.mark.parametrize("length", range(1, 11))
def test_varint_matches_the_library_at_each_length_and_its_edges(length: int) -> None:
    """Each byte count has its own bounds (and 1 and 2 bytes their own fast paths)."""
    low, high = (1 if length == 1 else 1 << 7 * (length - 1)), min(1 << 7 * length, 1 << 64) - 1
    for value in (low, low + 1, (low + high) // 2, high - 1, high):
        expected = pb.DecisionReply(request_id=value).SerializeToString()[1:]  # less the key
        assert varint(value) == expected, value


def test_card_fields_match_the_library() -> None:
    field = CardField(9)  # Observation.hand
    rng = random.Random(5)
    for _ in range(500):
        chosen = rng.sample(ALL_CARDS, rng.randint(0, 20))
        as_set = CardSet.of(chosen)
        expected = pb.Observation(hand=cards_to_texts(as_set)).SerializeToString()
        assert field.of_mask(as_set.mask) == expected
        in_order = pb.Observation(hand=[str(card) for card in chosen]).SerializeToString()
        assert field.of_cards(chosen) == in_order


# -- whole Gin observations and requests -------------------------------------------------


def reference_observation(observation: GinObservation, game_id: str, number: int) -> bytes:
    """The observation built field by field through the protobuf API (the oracle)."""
    seat = observation.seat
    message = pb.Observation(
        game_id=game_id,
        seat=seat,
        num_seats=2,
        dealer=observation.dealer,
        phase=pb.Phase.Value(f"PHASE_{observation.phase.name}"),
        to_act=-1 if observation.to_act is None else observation.to_act,
        game_number=number,
        hand_number=observation.hand_number,
        hand=cards_to_texts(observation.hand),
        discard_pile=cards_to_texts(observation.discard_pile),
        stock_size=observation.stock_size,
    )
    own = (len(observation.hand), observation.own_known)
    other = (observation.opponent_hand_size, observation.opponent_known)
    for index, (size, known) in enumerate((own, other) if seat == 0 else (other, own)):
        message.seats.add(
            hand_size=size, known_cards=cards_to_texts(known), score=observation.scores[index]
        )
    message.gin.knock_limit = observation.knock_limit
    message.gin.doubled = observation.doubled
    message.gin.knocker = -1
    if observation.knock is not None:
        message.gin.knocker = observation.knock.seat
        message.gin.knocker_unmatched.extend(cards_to_texts(observation.knock.unmatched))
        message.table.extend(melds_to_proto(observation.knock.melds, observation.knock.seat))
    if observation.forbidden_discard is not None:
        message.forbidden_discard = str(observation.forbidden_discard)
    return message.SerializeToString()


RULE_SETS = {
    "standard": STANDARD,
    "oklahoma": replace(STANDARD, oklahoma=True),
    "last-discard": replace(STANDARD, last_discard=True),
}


def played_games(rules_name: str, games: int) -> Iterator[tuple[GinGame, random.Random]]:
    """Games of random play, preferring knocks so defences come up too."""
    for seed in range(games):
        yield GinGame(RULE_SETS[rules_name], seed, max_deals=3), random.Random(seed)


def choose(legal: list[A], rng: random.Random) -> A:
    knocks = [action for action in legal if isinstance(action, Knock | Defend)]
    return rng.choice(knocks) if knocks and rng.random() < 0.7 else rng.choice(legal)


@pytest.mark.slow
@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_gin_observations_match_the_library(rules_name: str) -> None:
    checked = set()
    for game, rng in played_games(rules_name, 40):
        while not game.is_terminal():
            seat = game.current_seat()
            assert seat is not None
            for viewer in (0, 1):
                observation = game.hand.observation(viewer)
                data = gin_codec.observation_to_proto(observation, "gin/x", 3).SerializeToString()
                assert data == reference_observation(observation, "gin/x", 3)
                assert (
                    gin_codec.observation_from_proto(pb.Observation.FromString(data)) == observation
                )
                checked.add(observation.phase)
            game.apply(choose(game.legal_actions(), rng), seat)
    assert len(checked) >= 4  # first upcard, draw, discard, defend at least


def test_gin_requests_carry_every_event_once_and_the_legal_actions() -> None:
    spec = find_game("gin-rummy/standard")
    codec = codec_for(spec.id)
    for seed in range(30):
        game = spec.new_game(seed, 2, hands_only=True)
        assert isinstance(game, GinGame)
        table = codec.new_table(spec.id, game)
        rng = random.Random(seed)
        seen: list[list[pb.Event]] = [[], []]
        request_id = 0
        while not table.is_terminal():
            seat = table.current_seat()
            assert seat is not None
            table.hand_started()
            request_id += 1
            # clocks that stay, change and drop to zero: the table reuses the last field
            clocks = (0, 0) if request_id % 5 == 0 else (1500, 20000 + seed - request_id // 3)
            data = table.decision_bytes(seat, 0, request_id, *clocks)
            message = pb.RefereeMessage.FromString(data)
            assert message.SerializeToString() == data  # canonical: as the library writes it
            request = message.decision
            assert request.request_id == request_id
            assert request.HasField("clock")
            assert (request.clock.decision_ms, request.clock.bank_ms) == clocks
            assert request.observation.SerializeToString() == reference_observation(
                game.hand.observation(seat), spec.id, 0
            )
            assert [codec.action_from_proto(a) for a in request.legal_actions] == table.legal
            seen[seat].extend(request.events)
            table.apply(choose(table.legal, rng), seat)
        events = [gin_codec.event_to_proto(event) for event in game.hand.events]
        for seat in (0, 1):  # each event once, in order, up to the seat's last decision
            assert seen[seat] == events[: len(seen[seat])]


def test_the_remembered_discard_pile_follows_any_change_of_the_pile() -> None:
    """The referee re-encodes only the top of the pile when it can.  Piles that differ
    below an unchanged top, or by more than one card, must be encoded whole."""
    rng = random.Random(3)
    x, y, top, other = ALL_CARDS[:4]
    piles = [
        (x, top),
        (y, top),  # the same top on another card
        (x,),  # one card fewer, but not the one on top taken
        (x, other),
        (y, other, top),  # one card more, but not just one put on top
        (y, other),
        (),
        (x, top),
    ]
    for _ in range(300):  # and random pushes, pops and swaps
        pile = list(piles[-1])
        move = rng.random()
        if move < 0.45 or not pile:
            pile.append(rng.choice(ALL_CARDS))
        elif move < 0.9:
            pile.pop()
        else:
            pile[rng.randrange(len(pile))] = rng.choice(ALL_CARDS)
        piles.append(tuple(pile))
    remembered = gin_codec._PileField()
    for shown in piles:
        expected = pb.Observation(discard_pile=cards_to_texts(shown)).SerializeToString()
        assert remembered.of(shown) == expected, shown
