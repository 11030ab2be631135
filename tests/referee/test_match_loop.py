"""The match loop in the referee's own process (no bot processes)."""

from __future__ import annotations

from typing import Any

import pytest

from arena.games.registry import find_game
from arena.hosting.connection import InProcessConnection
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
