"""Replays: one JSON object a line, written as the match goes, read back and verified.

Records: ``match`` (header: game id, rules, the seed's commitment, players, time
control, fault policy, sandbox levels), ``game``, ``deal`` (dealer), ``action``
(seat, action text, milliseconds, comment, ``replaced``), ``fault``, ``hand_end``,
``game_end``, ``reveal`` (the match's seed, the commitment's salt and every deck),
``match_end`` (the whole result).

The file can be read while its match goes on, so nothing in it before the
``reveal`` tells a card nobody has seen (version 2; version 1 replays wrote the seed
in the header, each game's seed and each deck as they came).  ``read_replay`` puts
the revealed seeds and decks back where version 1 had them, so readers see one form.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from arena.cards import derive_seed
from arena.games.base import GameError, IllegalActionError
from arena.games.registry import GameSpec, find_game
from arena.privatefiles import open_private, private_folder
from arena.protocol import codec_for
from arena.protocol.commitment import RevealCheck, check_reveal
from arena.referee.observers import MatchObserver
from arena.referee.records import REPLAY_VERSION, Record, RecordError, record_from_json

__all__ = [
    "REPLAY_VERSION",
    "GameLookup",
    "ReplayError",
    "ReplayWriter",
    "SeedCheck",
    "check_seed",
    "game_of",
    "read_records",
    "read_replay",
    "table_for_game",
    "verify_replay",
]

_FLUSHED: Final = frozenset({"hand_end", "game_end", "match_end", "fault", "reveal"})

# How a game id becomes its rules: ``find_game`` knows the built-in games; the
# command line passes its plugins' lookup, so plugin games can be read back too.
GameLookup = Callable[[str], GameSpec]


class ReplayError(ValueError):
    """A replay file that cannot be read: names the file and line."""


class ReplayWriter(MatchObserver):
    """Writes each record as it comes, flushed, so a crash loses at most one line.
    The file is owner-only (and folders it makes): it holds the bots' comments."""

    def __init__(self, path: Path) -> None:
        private_folder(path.parent)
        self.path = path
        self._file: IO[str] | None = open_private(path)

    def on_record(self, record: Record) -> None:
        if self._file is not None:
            self._file.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
            if record.type in _FLUSHED:
                self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_replay(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a replay, with a version 2 replay's revealed seeds and decks put
    back in its header, ``game`` and ``deal`` records; ``ReplayError`` names the file
    and line of a bad one."""
    records = list(_read_lines(path))
    if records and records[0].get("version", 1) >= 2:
        _put_back_reveal(path, records)
    return iter(records)


def read_records(path: Path) -> list[Record]:
    """The records of a replay as typed values (``read_replay``'s lines, parsed by
    ``record_from_json``); ``ReplayError`` names the file, the record and the field."""
    out = []
    for number, line in enumerate(read_replay(path), start=1):
        try:
            out.append(record_from_json(line))
        except RecordError as error:
            raise ReplayError(f"{path}: record {number}: {error}") from None
    return out


def _read_lines(path: Path) -> Iterator[dict[str, Any]]:
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


def _put_back_reveal(path: Path, records: list[dict[str, Any]]) -> None:
    reveals = [(line, r) for line, r in enumerate(records, start=1) if r["type"] == "reveal"]
    if not reveals:
        return  # cut short before the end: the deals stay unknown
    line, reveal = reveals[-1]
    seed, decks = reveal.get("seed"), reveal.get("decks")
    if type(seed) is not int or not 0 <= seed < 2**64 or not isinstance(decks, list):
        raise ReplayError(f"{path}:{line}: a reveal record has an integer 'seed' and 'decks'")
    try:
        by_deal = {(deck["game"], deck["hand"]): deck["deck"] for deck in decks}
    except (TypeError, KeyError):
        raise ReplayError(f"{path}:{line}: each revealed deck has a game, hand and deck") from None
    records[0]["seed"] = seed
    for record in records:
        if record["type"] in ("game", "game_end"):
            record["seed"] = derive_seed(seed, 1, record["game"])
        elif record["type"] == "deal" and (record.get("game"), record.get("hand")) in by_deal:
            record["deck"] = by_deal[record["game"], record["hand"]]


@dataclass(frozen=True)
class SeedCheck:
    """Does the replay's revealed seed open the commitment in its header?"""

    status: RevealCheck
    detail: str

    def __str__(self) -> str:
        return f"seed commitment {self.status.value}: {self.detail}"


def check_seed(records: list[dict[str, Any]]) -> SeedCheck:
    header = records[0]
    commitment = header.get("seed_commitment")
    if not commitment:
        return SeedCheck(
            RevealCheck.ABSENT, "the replay has none (written before replay version 2)"
        )
    reveals = [record for record in records if record["type"] == "reveal"]
    if not reveals:
        return SeedCheck(RevealCheck.ABSENT, "the replay stops before the seed is revealed")
    seed, salt = reveals[-1].get("seed"), reveals[-1].get("salt")
    status = RevealCheck.MISMATCH
    if type(seed) is int and isinstance(salt, str) and isinstance(commitment, str):
        with contextlib.suppress(ValueError):  # not hex: a mismatch
            status = check_reveal(bytes.fromhex(commitment), seed, bytes.fromhex(salt))
    if status is RevealCheck.VERIFIED:
        return SeedCheck(status, f"seed {seed} and its salt hash to the header's commitment")
    return SeedCheck(
        RevealCheck.MISMATCH,
        f"the revealed seed {seed!r} and salt do not hash to the header's commitment {commitment}",
    )


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
    if "seed" not in record:
        raise ReplayError(
            f"game {record['game']}: the replay stops before its seed is revealed, "
            "so its deals cannot be re-played"
        )
    game = spec.new_game(
        record["seed"],
        len(header["players"]),
        hands_only=header["hands_only"],
        max_deals=header["max_deals"],
    )
    return codec_for(spec.id).new_table(spec.id, game)


def verify_replay(path: Path, find: GameLookup = find_game) -> list[Disagreement]:
    """Re-play every game through the engine, and check the revealed seed against its
    commitment; each disagreement found, empty if none.  (A replay without commitment
    or reveal is not a disagreement: ``check_seed`` says which it is.)"""
    records = list(read_replay(path))
    if not records:
        raise ReplayError(f"{path}: empty replay")
    header = records[0]
    spec = game_of(path, header, find)
    codec = codec_for(spec.id)
    problems: list[Disagreement] = []
    seed_check = check_seed(records)
    if seed_check.status is RevealCheck.MISMATCH:
        problems.append(Disagreement(len(records), str(seed_check)))
    if header.get("rules") != codec.rules_map(spec.rules):
        problems.append(Disagreement(1, f"rules differ from {spec.id}'s: {header.get('rules')}"))
    table: Any = None
    number = -1
    finished: list[dict[str, Any]] = []  # hand results the engine produced, not yet compared
    for line, record in enumerate(records[1:], start=2):
        kind = record["type"]
        if kind == "game":
            number = record["game"]  # as recorded, from 0; messages count from 1
            table = None
            finished = []
            if "seed" not in record:
                problems.append(
                    Disagreement(
                        line, f"game {number + 1}: no seed: the replay stops before it is revealed"
                    )
                )
                continue
            table = table_for_game(spec, header, record)
        elif table is None:
            continue
        elif kind == "deal":
            if table.deck() != record.get("deck"):
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
