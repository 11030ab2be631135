"""The re-ask's stream is what the seat was sent: byte for byte, in order, whatever
the game, the seats and the faults; a position round-trips through its file, and the
SDK turns it back into the decision and the answer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.bots.builtin import GreedyBot, GreedyRummyBot, RandomBot
from arena.games.gin_rummy import parse_action
from arena.proto import bot_pb2 as pb
from arena.referee.settings import TimeControl
from arena.replays.ask import load_for_asking, position_at, seat_stream
from arena.replays.files import read_replay
from arena.replays.positions import Coordinates, read_position
from arena.replays.records import ActionRecord, FaultRecordLine
from arena.sdk import Bot, answer_position, position_decision

from .conftest import Crasher, HandStartCrasher, Sloppy, play_replay

Bots = Callable[[], list[Bot[Any, Any]]]
#: The first byte of a serialized RefereeMessage that is a DecisionRequest.
DECISION_KEY = bytes([pb.RefereeMessage.DESCRIPTOR.fields_by_name["decision"].number << 3 | 2])

CASES: dict[str, tuple[str, Bots, str]] = {
    "gin": ("gin-rummy/standard", lambda: [GreedyBot(), RandomBot()], "forfeit"),
    "rummy-3": (
        "rummy/jokers",
        lambda: [GreedyRummyBot(), RandomBot(), GreedyRummyBot()],
        "forfeit",
    ),
    "rummy-6": ("rummy/deuces", lambda: [RandomBot(), GreedyRummyBot()] * 3, "forfeit"),
    "replaced": ("gin-rummy/classic", lambda: [Sloppy(), RandomBot()], "random:1000"),
    "forfeit": ("gin-rummy/standard", lambda: [RandomBot(), Sloppy()], "forfeit"),
    "crash": ("gin-rummy/standard", lambda: [Crasher(), RandomBot()], "forfeit"),
    "crash-between": ("gin-rummy/classic", lambda: [RandomBot(), HandStartCrasher()], "forfeit"),
    "refused": ("rummy/standard", lambda: [RandomBot(), GreedyBot(), RandomBot()], "forfeit"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_stream_is_what_each_seat_was_sent(tmp_path: Path, case: str) -> None:
    game_id, bots, faults = CASES[case]
    path, sent = play_replay(tmp_path, game_id, bots(), games=2, faults=faults)
    records = read_replay(path).records
    if case in ("replaced", "forfeit", "crash", "crash-between", "refused"):
        assert any(isinstance(record, FaultRecordLine) for record in records)
    for seat, messages in enumerate(sent):
        replay, spec = load_for_asking(path, seat)
        stream = seat_stream(replay, spec, seat)
        assert stream.frames == messages
        actions = [
            record for record in records if isinstance(record, ActionRecord) and record.seat == seat
        ]
        requests = [
            message
            for message in messages
            if message[:1] == DECISION_KEY  # a decision
        ]
        assert len(stream.decisions) == len(requests) >= len(actions)
        assert [d.recorded.action for d in stream.decisions if d.recorded.action] == [
            a.action for a in actions
        ]


def test_banks_run_down_and_overdraw_as_they_did(tmp_path: Path) -> None:
    """Seat 0 thinks 30.2507 ms a decision against 20 ms free: its bank runs down by
    10.2507 ms each time, its requests' clocks say so, and once the bank is overdrawn
    the referee times it out (random replacements); the re-run, on the replay's times
    (kept to the microsecond), sends the same clocks and notices."""
    path, sent = play_replay(
        tmp_path,
        "gin-rummy/standard",
        [GreedyBot(), RandomBot()],
        games=2,
        faults="random:1000",
        thinking_ms=(30.2507, 0.0),
        time_control=TimeControl(decision_ms=20, bank_ms=120),
    )
    records = read_replay(path).records
    timeouts = [r for r in records if isinstance(r, FaultRecordLine) and r.status == "timeout"]
    assert timeouts and all(r.reason.startswith("answered after") for r in timeouts)
    banks = set()
    for seat, messages in enumerate(sent):
        replay, spec = load_for_asking(path, seat)
        stream = seat_stream(replay, spec, seat)
        assert stream.frames == messages
        banks |= {stream.request(d).clock.bank_ms for d in stream.decisions}
    assert {120, 109, 99, 89, 0} <= banks


def test_a_position_round_trips_and_the_sdk_answers_it(gin_replay: Path, tmp_path: Path) -> None:
    replay, spec = load_for_asking(gin_replay, 0)
    stream = seat_stream(replay, spec, 0)
    for decision in stream.decisions[::7]:
        position = position_at(stream, decision)
        file = tmp_path / f"{decision.at}.json"
        position.write(file)
        again = read_position(file)
        assert again.to_json() == position.to_json()
        assert again.path == file
        assert again.messages == stream.frames[: decision.frame + 1]
        assert again.match_start.seed_commitment.hex() == replay.header.seed_commitment
        assert again.match_start.seat == 0
        assert again.expect == [decision.recorded.action]
        # The SDK: the very request, and greedy's answer after the whole stream.
        request = position_decision(file)
        assert request.message == stream.request(decision)
        assert str(parse_action(decision.recorded.action)) in {
            str(a) for a in request.legal_actions
        }
        assert str(answer_position(GreedyBot(), file)) == decision.recorded.action


def test_coordinates_read_and_write() -> None:
    assert str(Coordinates.parse("2.10.3")) == "2.10.3"
    assert Coordinates(1, 2, 3) < Coordinates(1, 3, 1)
    for bad in ("1.2", "a.b.c", "0.1.1", "1.2.3.4"):
        with pytest.raises(ValueError, match="--at"):
            Coordinates.parse(bad)
