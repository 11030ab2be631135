"""Match records as typed values: every line of real replays (Gin and Rummy, with
faults replaced by random actions, v2 as written and with v1's seeds and decks put
back by read_replay) parses into its record class and writes back the same JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.bots import RandomBot
from arena.games.registry import find_game
from arena.hosting.connection import InProcessConnection
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.settings import FaultPolicy
from arena.replays.files import ReplayError, ReplayWriter, read_replay
from arena.replays.records import (
    ActionRecord,
    MatchHeader,
    RecordError,
    RevealRecord,
    record_from_json,
)
from arena.sdk import Decision


class Clumsy(RandomBot):
    """Answers with an index past the end every fifth decision: a fault, replaced."""

    count = 0

    def decide(self, decision: Decision[object, object]) -> object:
        self.count += 1
        return 999 if self.count % 5 == 0 else super().decide(decision)


@pytest.mark.parametrize(("game_id", "seats"), [("gin-rummy/standard", 2), ("rummy/jokers", 3)])
def test_every_replay_line_round_trips(tmp_path: Path, game_id: str, seats: int) -> None:
    path = tmp_path / "match.jsonl"
    bots = [Clumsy(), *(RandomBot() for _ in range(seats - 1))]
    config = MatchConfig(
        find_game(game_id), games=1, seed=11, fault_policy=FaultPolicy.parse("random:50")
    )
    play_match(
        config,
        [Seat(InProcessConnection(b), f"b{i}") for i, b in enumerate(bots)],
        [ReplayWriter(path)],
    )
    written = [json.loads(line) for line in path.read_text().splitlines()]
    merged = list(read_replay(path).lines)  # seeds and decks back where version 1 had them
    kinds = set()
    for line in [*written, *merged]:
        record = record_from_json(line)
        kinds.add(type(record))
        assert record.to_json() == line
    assert {MatchHeader, ActionRecord, RevealRecord} <= kinds
    assert any(line["type"] == "fault" for line in written)
    assert any(line.get("replaced") for line in written)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"type": "move"}, "unknown record type 'move'"),
        ([1, 2], "a JSON object with a string 'type'"),
        ({"type": "deal", "game": 0, "hand": 0}, "deal record: no field 'dealer'"),
        (
            {"type": "reveal", "seed": 1, "salt": "", "decks": [], "extra": 1},
            "reveal record: unknown fields extra",
        ),
    ],
)
def test_bad_lines_are_named(line: object, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        record_from_json(line)


def test_read_records_names_the_bad_record(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    header = {"type": "match", "version": 2, "match_id": "m", "game_id": "gin-rummy/standard"}
    path.write_text(json.dumps(header) + "\n")
    with pytest.raises(ReplayError, match="record 1: match record: no field 'rules'"):
        read_replay(path)
