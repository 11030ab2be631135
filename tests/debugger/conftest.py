"""Replays played in this process (no bot processes), for the tests that only read
them, with every message each seat was sent kept on the side."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.bots.builtin import GreedyBot, GreedyRummyBot, RandomBot
from arena.games.registry import find_game
from arena.hosting.connection import InProcessConnection
from arena.proto import bot_pb2 as pb
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.settings import FaultPolicy, TimeControl
from arena.replays.files import ReplayWriter
from arena.sdk import Bot, Decision


class Clock:
    """A referee clock that moves only when a bot is said to have thought."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Tap:
    """An in-process bot's connection that keeps every message the referee sends it;
    with a ``clock``, each of its decisions takes ``ms`` milliseconds on it."""

    def __init__(self, bot: Bot[Any, Any], clock: Clock | None = None, ms: float = 0.0) -> None:
        self.inner = InProcessConnection(bot)
        self.info = self.inner.info
        self.sent: list[bytes] = []
        self.clock = clock
        self.ms = ms

    async def start_match(self) -> None:
        await self.inner.start_match()

    async def send(self, message: bytes) -> None:
        self.sent.append(message)
        await self.inner.send(message)

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        self.sent.append(message)
        reply = await self.inner.decide(message, request_id, timeout)
        if self.clock is not None:
            self.clock.now += self.ms / 1000
        return reply

    async def end_match(self) -> None:
        await self.inner.end_match()

    def close(self) -> None:
        self.inner.close()


class Sloppy(GreedyBot):
    """Greedy, but every fifth answer is an index past the end (a malformed reply)."""

    name = "sloppy"

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def decide(self, decision: Decision[Any, Any]) -> Any:
        self.count += 1
        if self.count % 5 == 0:
            return len(decision.legal_actions) + 3
        return super().decide(decision)


class Crasher(GreedyBot):
    """Greedy until its seventh decision, where ``decide`` raises (a crash)."""

    name = "crasher"

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def decide(self, decision: Decision[Any, Any]) -> Any:
        self.count += 1
        if self.count == 7:
            raise RuntimeError("a bug")
        return super().decide(decision)


class HandStartCrasher(GreedyBot):
    """Greedy, but raises on the second HandStart it is sent (a crash between requests)."""

    name = "hand-start-crasher"

    def __init__(self) -> None:
        super().__init__()
        self.hands = 0

    def on_hand_start(self, message: pb.HandStart) -> None:
        self.hands += 1
        if self.hands == 2:
            raise RuntimeError("a bug")


def play_replay(
    folder: Path,
    game_id: str,
    bots: list[Bot[Any, Any]],
    *,
    games: int = 1,
    seed: int = 9,
    faults: str = "forfeit",
    thinking_ms: Sequence[float] = (),
    time_control: TimeControl | None = None,
) -> tuple[Path, list[list[bytes]]]:
    """A replay of a match between in-process bots, and what each seat was sent.  With
    ``thinking_ms`` (by seat), the referee's clock is a fake one that each decision
    moves on by its seat's time (for banks run down, and overdrawn, exactly)."""
    config = MatchConfig(
        find_game(game_id),
        games=games,
        seed=seed,
        hands_only=True,
        fault_policy=FaultPolicy.parse(faults),
        time_control=time_control or TimeControl(),
    )
    path = folder / f"{config.match_id}.jsonl"
    clock = Clock() if thinking_ms else None
    taps = [
        Tap(bot, clock, thinking_ms[seat] if thinking_ms else 0.0) for seat, bot in enumerate(bots)
    ]
    seats = [Seat(tap, tap.info.name) for tap in taps]
    if clock is None:
        play_match(config, seats, [ReplayWriter(path)])
    else:
        play_match(config, seats, [ReplayWriter(path)], clock=clock)
    return path, [tap.sent for tap in taps]


@pytest.fixture
def gin_replay(tmp_path: Path) -> Path:
    path, _ = play_replay(tmp_path, "gin-rummy/standard", [GreedyBot(), RandomBot()], games=2)
    return path


@pytest.fixture
def rummy_bots() -> list[Bot[Any, Any]]:
    return [GreedyRummyBot(), RandomBot(), GreedyRummyBot()]
