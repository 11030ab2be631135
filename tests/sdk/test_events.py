"""Decision.events are the engine's own events: every event of random Gin and Rummy
hands comes back equal after the trip through the protocol's Event message."""

from __future__ import annotations

import random

from arena.games.gin_rummy import STANDARD, GinHand
from arena.games.rummy import PRESETS, RummyHand
from arena.proto import bot_pb2 as pb
from arena.protocol import gin as gin_codec
from arena.protocol import rummy as rummy_codec
from arena.sdk import Decision


def test_gin_events_round_trip() -> None:
    rng = random.Random(3)
    for seed in range(30):
        hand = GinHand.from_seed(STANDARD, seed, seed % 2)
        while not hand.is_terminal():
            legal = hand.legal_actions()
            hand.apply(legal[rng.randrange(len(legal))])
        for event in hand.events:
            assert gin_codec.event_from_proto(gin_codec.event_to_proto(event)) == event


def test_rummy_events_round_trip() -> None:
    rng = random.Random(3)
    for rules, seats in (("standard", 2), ("jokers", 4), ("deuces", 6)):
        for seed in range(15):
            hand = RummyHand.from_seed(PRESETS[rules], seed, seats, dealer=seed % seats)
            while not hand.is_terminal():
                legal = hand.legal_actions()
                hand.apply(legal[rng.randrange(len(legal))])
            for event in hand.events:
                message = rummy_codec.event_to_proto(event)
                assert rummy_codec.event_from_proto(message) == event


def test_decision_gives_engine_events_and_the_messages() -> None:
    hand = GinHand.from_seed(STANDARD, 5, 0)
    hand.apply(hand.legal_actions()[-1])  # pass the upcard
    request = pb.DecisionRequest(events=[gin_codec.event_to_proto(e) for e in hand.events])
    decision: Decision[object, object] = Decision("gin-rummy/standard", request, gin_codec)
    assert decision.events == hand.events
    assert decision.event_messages == list(request.events)
