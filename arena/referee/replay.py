"""Replays: one JSON object a line, written as the match goes, read back and verified.

Records: ``match`` (header: game id, rules, the seed's commitment, players, time
control, fault policy, sandbox levels), ``game``, ``deal`` (dealer), ``action``
(seat, action text, milliseconds, comment, ``replaced``), ``fault``, ``hand_end``,
``game_end``, ``reveal`` (the match's seed, the commitment's salt and every deck),
``match_end`` (the whole result).

The file can be read while its match goes on, so nothing in it before the
``reveal`` tells a card nobody has seen (version 2; version 1 replays wrote the seed
in the header, each game's seed and each deck as they came).  ``read_records`` puts
the revealed seeds and decks back where version 1 had them, so readers see one form.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, Final

from arena.cards import derive_seed
from arena.errors import ArenaError
from arena.games.base import GameError, IllegalActionError
from arena.games.registry import find_game
from arena.games.spec import GameSpec
from arena.privatefiles import open_private, private_folder
from arena.protocol import codec_for
from arena.protocol.commitment import RevealCheck, check_reveal
from arena.referee.observers import MatchObserver
from arena.referee.records import (
    REPLAY_VERSION,
    ActionRecord,
    DealRecord,
    FaultRecordLine,
    GameEndRecord,
    GameStartRecord,
    HandEndRecord,
    Json,
    MatchEndRecord,
    MatchHeader,
    Record,
    RecordError,
    RevealRecord,
    record_from_json,
)

__all__ = [
    "REPLAY_VERSION",
    "GameLookup",
    "ReplayError",
    "ReplayWriter",
    "SeedCheck",
    "check_seed",
    "game_of",
    "header_of",
    "read_lines",
    "read_records",
    "read_replay",
    "table_for_game",
    "verify_replay",
]

_FLUSHED: Final = (HandEndRecord, GameEndRecord, MatchEndRecord, FaultRecordLine, RevealRecord)

# How a game id becomes its rules: ``find_game`` knows the built-in games; the
# command line passes its plugins' lookup, so plugin games can be read back too.
GameLookup = Callable[[str], GameSpec]


class ReplayError(ArenaError, ValueError):
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
            if isinstance(record, _FLUSHED):
                self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_lines(path: Path) -> list[tuple[dict[str, Json], Record]]:
    """Each line of a replay as its JSON object (keys in the file's order) and as its
    record, with a version 2 replay's revealed seeds and decks put back in its header,
    ``game``, ``game_end`` and ``deal`` records (where version 1 had them), so readers
    see one form; ``ReplayError`` names the file and line, or the record and the
    field, of a bad one."""
    lines = list(_read_lines(path))
    records: list[Record] = []
    for number, line in enumerate(lines, start=1):
        try:
            records.append(record_from_json(line))
        except RecordError as error:
            raise ReplayError(f"{path}: record {number}: {error}") from None
    if records and isinstance(records[0], MatchHeader) and records[0].version >= 2:
        records = _put_back_reveal(path, records[0], records)
        # The fields put back come after the line's own, as the file would have them.
        lines = [{**line, **record.to_json()} for line, record in zip(lines, records, strict=True)]
    return list(zip(lines, records, strict=True))


def read_records(path: Path) -> list[Record]:
    """The records of a replay (``read_lines``'s, without their JSON)."""
    return [record for _, record in read_lines(path)]


def read_replay(path: Path) -> Iterator[dict[str, Json]]:
    """The lines of a replay as JSON objects (``read_lines``'s, without their records)."""
    return iter([line for line, _ in read_lines(path)])


def _read_lines(path: Path) -> Iterator[dict[str, Json]]:
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
            if number == 1 and record["type"] != MatchHeader.type:
                raise ReplayError(f"{path}:1: a replay starts with its 'match' header")
            yield record


def _put_back_reveal(path: Path, header: MatchHeader, records: list[Record]) -> list[Record]:
    reveals = [(line, r) for line, r in enumerate(records, start=1) if isinstance(r, RevealRecord)]
    if not reveals:
        return records  # cut short before the end: the deals stay unknown
    line, reveal = reveals[-1]
    seed, decks = reveal.seed, reveal.decks
    if type(seed) is not int or not 0 <= seed < 2**64 or not isinstance(decks, list):
        raise ReplayError(f"{path}:{line}: a reveal record has an integer 'seed' and 'decks'")
    try:
        by_deal = {(deck["game"], deck["hand"]): deck["deck"] for deck in decks}
    except (TypeError, KeyError):
        raise ReplayError(f"{path}:{line}: each revealed deck has a game, hand and deck") from None
    out: list[Record] = [replace(header, seed=seed)]
    for record in records[1:]:
        if isinstance(record, GameStartRecord | GameEndRecord):
            record = replace(record, seed=derive_seed(seed, 1, record.game))
        elif isinstance(record, DealRecord) and (record.game, record.hand) in by_deal:
            record = replace(record, deck=by_deal[record.game, record.hand])
        out.append(record)
    return out


@dataclass(frozen=True)
class SeedCheck:
    """Does the replay's revealed seed open the commitment in its header?"""

    status: RevealCheck
    detail: str

    def __str__(self) -> str:
        return f"seed commitment {self.status.value}: {self.detail}"


def check_seed(records: Sequence[Record]) -> SeedCheck:
    """Does the replay's reveal open its header's commitment (``read_records``'s records)?"""
    header = records[0]
    commitment = header.seed_commitment if isinstance(header, MatchHeader) else None
    if not commitment:
        return SeedCheck(
            RevealCheck.ABSENT, "the replay has none (written before replay version 2)"
        )
    reveals = [record for record in records if isinstance(record, RevealRecord)]
    if not reveals:
        return SeedCheck(RevealCheck.ABSENT, "the replay stops before the seed is revealed")
    seed, salt = reveals[-1].seed, reveals[-1].salt
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


def game_of(path: Path, header: MatchHeader, find: GameLookup = find_game) -> GameSpec:
    """The game a replay's header names; ``ReplayError`` if ``find`` does not know it."""
    try:
        return find(header.game_id)
    except LookupError as error:
        raise ReplayError(
            f"{path}:1: {error} (a plugin's game needs its plugin: --plugin MODULE)"
        ) from None


def table_for_game(spec: GameSpec, header: MatchHeader, record: GameStartRecord) -> Any:
    """A fresh table for the replay's ``game`` record, dealt from that game's seed."""
    if record.seed is None:
        raise ReplayError(
            f"game {record.game}: the replay stops before its seed is revealed, "
            "so its deals cannot be re-played"
        )
    game = spec.new_game(
        record.seed,
        len(header.players),
        hands_only=header.hands_only,
        max_deals=header.max_deals,
    )
    return codec_for(spec.id).new_table(spec.id, game)


def header_of(path: Path, records: Sequence[Record]) -> MatchHeader:
    """The header of ``read_records``'s records; ``ReplayError`` for an empty replay."""
    if not records:
        raise ReplayError(f"{path}: empty replay")
    header = records[0]
    if not isinstance(header, MatchHeader):  # read_records refuses such a file
        raise ReplayError(f"{path}:1: a replay starts with its 'match' header")
    return header


def verify_replay(path: Path, find: GameLookup = find_game) -> list[Disagreement]:
    """Re-play every game through the engine, and check the revealed seed against its
    commitment; each disagreement found, empty if none.  (A replay without commitment
    or reveal is not a disagreement: ``check_seed`` says which it is.)"""
    records = read_records(path)
    header = header_of(path, records)
    spec = game_of(path, header, find)
    codec = codec_for(spec.id)
    problems: list[Disagreement] = []
    seed_check = check_seed(records)
    if seed_check.status is RevealCheck.MISMATCH:
        problems.append(Disagreement(len(records), str(seed_check)))
    if header.rules != codec.rules_map(spec.rules):
        problems.append(Disagreement(1, f"rules differ from {spec.id}'s: {header.rules}"))
    table: Any = None
    number = -1
    finished: list[Json] = []  # hand results the engine produced, not yet compared
    for line, record in enumerate(records[1:], start=2):
        if isinstance(record, GameStartRecord):
            number = record.game  # as recorded, from 0; messages count from 1
            table = None
            finished = []
            if record.seed is None:
                problems.append(
                    Disagreement(
                        line, f"game {number + 1}: no seed: the replay stops before it is revealed"
                    )
                )
                continue
            table = table_for_game(spec, header, record)
        elif table is None:
            continue
        elif isinstance(record, DealRecord):
            if table.deck() != record.deck:
                problems.append(
                    Disagreement(
                        line,
                        f"game {number + 1} hand {record.hand + 1}: deck differs from the seed's",
                    )
                )
        elif isinstance(record, ActionRecord):
            try:
                table.apply(codec.parse_action(record.action), record.seat)
            except (IllegalActionError, GameError, ValueError) as error:
                problems.append(
                    Disagreement(
                        line,
                        f"action {record.action!r} by seat {record.seat} rejected: {error}",
                    )
                )
                table = None
                continue
            finished += [table.hand_record(result) for _, result in table.finished_hands(number)]
        elif isinstance(record, HandEndRecord):
            if not finished:
                problems.append(
                    Disagreement(line, "hand end recorded, but the engine's hand is not over")
                )
            elif finished.pop(0) != record.result:
                problems.append(
                    Disagreement(
                        line,
                        f"hand {record.hand + 1} of game {number + 1}: result differs from the engine's",
                    )
                )
        elif isinstance(record, GameEndRecord) and not record.reason.startswith("forfeit"):
            if not table.is_terminal():
                problems.append(
                    Disagreement(
                        line, f"game {number + 1} ended in the replay but not in the engine"
                    )
                )
                continue
            outcome = table.outcome()
            scores = list(record.scores)
            if list(outcome.scores) != scores or outcome.winner != record.winner:
                problems.append(
                    Disagreement(
                        line,
                        f"game {number + 1}: engine scores {list(outcome.scores)} winner {outcome.winner}, replay {scores} winner {record.winner}",
                    )
                )
    if not isinstance(records[-1], MatchEndRecord):
        problems.append(
            Disagreement(len(records), "the replay stops before its match_end record (cut short?)")
        )
    return problems
