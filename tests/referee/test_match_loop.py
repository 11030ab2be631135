"""The match loop in the referee's own process (no bot processes)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena.games.registry import find_game
from arena.hosting.connection import InProcessConnection
from arena.proto import bot_pb2 as pb
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.results import MatchResult
from arena.sdk import Bot, Decision


class FirstLegal(Bot):
    name = "first-legal"
    games = ("*",)

    def decide(self, decision: Decision) -> Any:
        return 0


def test_a_match_result_is_handed_back_without_being_formatted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """asyncio.Runner formats its task, result included, when it restores the SIGINT
    handler; a long match's result took tens of milliseconds to format."""
    formatted: list[int] = []

    def counting_repr(self: MatchResult) -> str:
        formatted.append(1)
        return "MatchResult(...)"

    monkeypatch.setattr(MatchResult, "__repr__", counting_repr)
    seats = [Seat(InProcessConnection(FirstLegal()), f"bot{seat}") for seat in (0, 1)]
    result = play_match(MatchConfig(find_game("gin-rummy/standard"), games=2, seed=5), seats)
    assert len(result.games) == 2
    assert formatted == []


class _Rendezvous(InProcessConnection):
    """Holds each message sent to every seat until every seat has been sent its
    copy: a referee that sent to one seat after another would wait here forever."""

    def __init__(self, bot: Bot, barrier: asyncio.Barrier) -> None:
        super().__init__(bot)
        self.barrier = barrier
        self.held: list[str] = []

    async def send(self, message: bytes) -> None:
        await super().send(message)
        kind = pb.RefereeMessage.FromString(message).WhichOneof("body")
        if kind != "match_start":  # sent with each seat's connection opening
            self.held.append(kind)
            async with asyncio.timeout(5):
                await self.barrier.wait()


def test_messages_to_every_seat_go_to_all_seats_at_once() -> None:
    """A send waits until the message is on its way; seat after seat, those waits
    would add up at every hand's end and start."""
    barrier = asyncio.Barrier(2)
    connections = [_Rendezvous(FirstLegal(), barrier) for _ in (0, 1)]
    seats = [Seat(connection, f"bot{seat}") for seat, connection in enumerate(connections)]
    config = MatchConfig(find_game("gin-rummy/standard"), games=1, seed=5, max_deals=3)
    result = play_match(config, seats)
    assert [seat.faults for seat in result.seats] == [[], []]
    assert result.games[0].hands == 3
    kinds = ["game_start", *["hand_start", "hand_end"] * 3, "game_end", "match_end"]
    assert [connection.held for connection in connections] == [kinds, kinds]
