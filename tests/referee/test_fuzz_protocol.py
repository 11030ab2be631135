"""Fuzzing: random bytes and mutated replies, through a real gRPC connection, never get an
exception out of the referee, and every decision gets the verdict its bytes call for.

A short run (a few seconds); ``benchmarks/bench_fuzz.py`` runs at least 10,000 cases.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings

from arena.games.registry import find_game
from arena.hosting.connection import GrpcConnection
from arena.hosting.faults import SeatStatus
from arena.proto import bot_pb2 as pb
from arena.testing.broken_bots import GARBAGE
from arena.testing.fuzz import OK, FuzzBot, FuzzStats, Recipe, expected, fuzz_matches, scripts

STANDARD = find_game("gin-rummy/standard")


@pytest.fixture(scope="module")
def fuzz_bot() -> Iterator[tuple[FuzzBot, GrpcConnection]]:
    with FuzzBot() as bot:
        connection = GrpcConnection(bot.address, "fuzz")
        connection.wait_ready(10)
        yield bot, connection


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(script=scripts(max_size=12))
def test_fuzzed_replies_never_escape_and_get_their_verdicts(
    fuzz_bot: tuple[FuzzBot, GrpcConnection], script: list[Recipe]
) -> None:
    bot, connection = fuzz_bot
    stats = FuzzStats()
    fuzz_matches(bot, connection, STANDARD, [script], stats)
    assert stats.escaped == []
    assert stats.wrong == []
    assert stats.matches == 1 and stats.cases >= 1
    assert sum(stats.verdicts.values()) == stats.cases


def test_the_judge_is_not_blind(fuzz_bot: tuple[FuzzBot, GrpcConnection]) -> None:
    """Scripted cases of every kind get the verdicts named, through the same harness."""
    bot, connection = fuzz_bot
    stats = FuzzStats()
    script = [
        Recipe(),  # legal_index 0
        Recipe(full_action=True),  # the first legal action, in full
        Recipe(raw=GARBAGE),  # undecodable
        Recipe(index_shift=10_000),  # index out of range
        Recipe(edits=(("truncate", 3, 0),)),  # cut short
        Recipe(raw=b""),  # an empty BotMessage
    ]
    fuzz_matches(bot, connection, STANDARD, [script], stats, seed=11)
    assert stats.escaped == [] and stats.wrong == []
    assert stats.verdicts == {
        OK: 2,
        SeatStatus.MALFORMED_REPLY.value: 3,
        SeatStatus.PROTOCOL_ERROR.value: 1,
    }
    stats = FuzzStats()
    fuzz_matches(bot, connection, STANDARD, [[Recipe(id_shift=1)]], stats)
    assert stats.verdicts == {SeatStatus.PROTOCOL_ERROR.value: 1} and stats.wrong == []


def test_the_oracle() -> None:
    request = pb.DecisionRequest(request_id=7)
    request.legal_actions.add().discard.card = "7H"
    reply = pb.BotMessage(decision=pb.DecisionReply(request_id=7, legal_index=0))
    assert expected(reply.SerializeToString(), request) == {OK}
    reply.decision.legal_index = 1
    assert expected(reply.SerializeToString(), request) == {"malformed_reply"}
    reply.decision.request_id = 8
    assert expected(reply.SerializeToString(), request) == {"protocol_error"}
    assert expected(GARBAGE, request) == {"malformed_reply"}
    assert expected(b"", request) == {"protocol_error"}
