"""Replays: one JSON object a line, written as the match goes, read back and verified.

Records: ``match`` (header: game id, rules, seed, players, time control, fault
policy, sandbox levels), ``game`` (its seed), ``deal`` (dealer, deck order),
``action`` (seat, action text, milliseconds, comment, ``replaced``), ``fault``,
``hand_end``, ``game_end``, ``match_end`` (the whole result).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from arena.games.base import GameError, IllegalActionError
from arena.games.registry import GameSpec, find_game
from arena.protocol import codec_for
from arena.referee.observers import MatchObserver

__all__ = [
    "GameLookup",
    "ReplayError",
    "ReplayWriter",
    "game_of",
    "read_replay",
    "table_for_game",
    "verify_replay",
]

# How a game id becomes its rules: ``find_game`` knows the built-in games; the
# command line passes its plugins' lookup, so plugin games can be read back too.
GameLookup = Callable[[str], GameSpec]


class ReplayError(ValueError):
    """A replay file that cannot be read: names the file and line."""


class ReplayWriter(MatchObserver):
    """Writes each record as it comes, flushed, so a crash loses at most one line."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file: IO[str] | None = path.open("w", encoding="utf-8")

    def on_record(self, record: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json.dumps(record, separators=(",", ":")) + "\n")
            if record["type"] in ("hand_end", "game_end", "match_end", "fault"):
                self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_replay(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a replay; ``ReplayError`` names the file and line of a bad one."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as error:
        raise ReplayError(f"{path}: cannot read replay: {error.strerror}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ReplayError(f"{path}:{number}: not JSON: {error.msg}") from None
            if not isinstance(record, dict) or "type" not in record:
                raise ReplayError(f"{path}:{number}: a replay record is an object with a 'type'")
            if number == 1 and record["type"] != "match":
                raise ReplayError(f"{path}:1: a replay starts with its 'match' header")
            yield record


@dataclass
class Disagreement:
    line: int
    message: str

    def __str__(self) -> str:
        return f"record {self.line}: {self.message}"


def game_of(path: Path, header: dict[str, Any], find: GameLookup = find_game) -> GameSpec:
    """The game a replay's header names; ``ReplayError`` if ``find`` does not know it."""
    try:
        return find(header["game_id"])
    except LookupError as error:
        raise ReplayError(
            f"{path}:1: {error} (a plugin's game needs its plugin: --plugin MODULE)"
        ) from None


def table_for_game(spec: GameSpec, header: dict[str, Any], record: dict[str, Any]) -> Any:
    """A fresh table for the replay's ``game`` record, dealt from that game's seed."""
    game = spec.new_game(
        record["seed"],
        len(header["players"]),
        hands_only=header["hands_only"],
        max_deals=header["max_deals"],
    )
    return codec_for(spec.id).new_table(spec.id, game)


def verify_replay(path: Path, find: GameLookup = find_game) -> list[Disagreement]:
    """Re-play every game through the engine; each disagreement found, empty if none."""
    records = list(read_replay(path))
    if not records:
        raise ReplayError(f"{path}: empty replay")
    header = records[0]
    spec = game_of(path, header, find)
    codec = codec_for(spec.id)
    problems: list[Disagreement] = []
    if header.get("rules") != codec.rules_map(spec.rules):
        problems.append(Disagreement(1, f"rules differ from {spec.id}'s: {header.get('rules')}"))
    table: Any = None
    number = -1
    finished: list[dict[str, Any]] = []  # hand results the engine produced, not yet compared
    for line, record in enumerate(records[1:], start=2):
        kind = record["type"]
        if kind == "game":
            number = record["game"]  # as recorded, from 0; messages count from 1
            table = table_for_game(spec, header, record)
            finished = []
        elif table is None:
            continue
        elif kind == "deal":
            if table.deck() != record["deck"]:
                problems.append(
                    Disagreement(
                        line,
                        f"game {number + 1} hand {record['hand'] + 1}: deck differs from the seed's",
                    )
                )
        elif kind == "action":
            try:
                table.apply(codec.parse_action(record["action"]), record["seat"])
            except (IllegalActionError, GameError, ValueError) as error:
                problems.append(
                    Disagreement(
                        line,
                        f"action {record['action']!r} by seat {record['seat']} rejected: {error}",
                    )
                )
                table = None
                continue
            finished += [table.hand_record(result) for _, result in table.finished_hands(number)]
        elif kind == "hand_end":
            if not finished:
                problems.append(
                    Disagreement(line, "hand end recorded, but the engine's hand is not over")
                )
            elif finished.pop(0) != record["result"]:
                problems.append(
                    Disagreement(
                        line,
                        f"hand {record['hand'] + 1} of game {number + 1}: result differs from the engine's",
                    )
                )
        elif kind == "game_end" and not record["reason"].startswith("forfeit"):
            if not table.is_terminal():
                problems.append(
                    Disagreement(
                        line, f"game {number + 1} ended in the replay but not in the engine"
                    )
                )
                continue
            outcome = table.outcome()
            if list(outcome.scores) != record["scores"] or outcome.winner != record["winner"]:
                problems.append(
                    Disagreement(
                        line,
                        f"game {number + 1}: engine scores {list(outcome.scores)} winner {outcome.winner}, replay {record['scores']} winner {record['winner']}",
                    )
                )
    if records[-1]["type"] != "match_end":
        problems.append(
            Disagreement(len(records), "the replay stops before its match_end record (cut short?)")
        )
    return problems
