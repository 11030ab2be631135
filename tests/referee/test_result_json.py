"""A match's result read back from its JSON is the same result, and what the arena
raises on purpose has one root."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import arena
from arena.errors import ArenaError
from arena.hosting.connection import InProcessConnection
from arena.hosting.faults import SeatStatus
from arena.plugins import load_plugins
from arena.referee import MatchConfig, Seat, play_match
from arena.referee.results import MatchResult
from arena.referee.settings import FaultPolicy


def test_a_result_round_trips_through_its_json() -> None:
    plugins = load_plugins([], autoload=False)
    spec = plugins.game("rummy/standard")
    seats = [
        Seat(InProcessConnection(plugins.bot(name).factory()), name)
        for name in ("greedy-rummy", "random", "greedy-rummy")
    ]
    config = MatchConfig(spec, games=2, seed=11, fault_policy=FaultPolicy.parse("random:2"))
    result = play_match(config, seats)
    data = result.to_json()
    again = MatchResult.from_json(data)
    assert again.to_json() == data
    assert again.games == result.games
    assert [seat.timing for seat in again.seats] == [seat.timing for seat in result.seats]
    assert again.seats[0].timing.decisions == len(result.seats[0].decision_seconds) > 0


def test_only_crashes_protocol_errors_and_failed_starts_are_fatal() -> None:
    fatal = {status for status in SeatStatus if status.fatal}
    assert fatal == {SeatStatus.CRASHED, SeatStatus.PROTOCOL_ERROR, SeatStatus.START_FAILED}


def test_every_error_the_arena_defines_derives_from_arena_error() -> None:
    strays = []
    for module_info in pkgutil.walk_packages(arena.__path__, "arena."):
        if module_info.name.startswith(("arena.proto.", "arena.ladder.dask")):
            continue  # generated code; the Dask modules need the optional extra
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, Exception)
                and value.__module__ == module.__name__
                and not issubclass(value, ArenaError)
            ):
                strays.append(f"{module.__name__}.{name}")
    assert strays == []
