"""Replay files: one JSON object a line, written as the match goes, and read back.

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

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Final

from arena.cards import derive_seed
from arena.errors import ArenaError
from arena.privatefiles import open_private, private_folder
from arena.referee.observers import MatchObserver
from arena.replays.records import (
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

__all__ = ["Replay", "ReplayError", "ReplayWriter", "read_replay"]

_FLUSHED: Final = (HandEndRecord, GameEndRecord, MatchEndRecord, FaultRecordLine, RevealRecord)


class ReplayError(ArenaError, ValueError):
    """A replay file that cannot be read: names the file and line."""


class ReplayWriter(MatchObserver):
    """Writes each record as it comes, flushed at the end of each hand (so a crash loses
    at most that hand's actions) or, ``live``, at every record (so a spectator reading
    the file sees each decision at once: one write call a record).
    The file is owner-only (and folders it makes): it holds the bots' comments."""

    def __init__(self, path: Path, *, live: bool = False) -> None:
        private_folder(path.parent)
        self.path = path
        self.live = live
        self._file: IO[str] | None = open_private(path)

    def on_record(self, record: Record) -> None:
        if self._file is not None:
            self._file.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
            if self.live or isinstance(record, _FLUSHED):
                self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass(frozen=True)
class Replay:
    """A replay as read: each line as its JSON object (keys in the file's order) and as
    its record, the two lists in step."""

    path: Path
    lines: list[dict[str, Json]]
    records: list[Record]

    @property
    def header(self) -> MatchHeader:
        """The ``match`` record (``read_replay`` refuses a file that does not start
        with one)."""
        header = self.records[0]
        assert isinstance(header, MatchHeader)
        return header


def read_replay(path: Path) -> Replay:
    """A replay file, with a version 2 replay's revealed seeds and decks put back in its
    header, ``game``, ``game_end`` and ``deal`` records (where version 1 had them), so
    readers see one form.  ``ReplayError`` names the file and line, or the record and
    the field, of a bad one, and refuses an empty file."""
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
    if not records:
        raise ReplayError(f"{path}: empty replay")
    return Replay(path, lines, records)


def _read_lines(path: Path) -> Iterator[dict[str, Json]]:
    if path.is_dir():
        raise ReplayError(f"{path}: a folder, not a replay")
    try:
        handle = path.open(encoding="utf-8")
    except OSError as error:
        raise ReplayError(f"{path}: cannot read replay: {error.strerror}") from None
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield _record_line(path, number, line)
        except UnicodeDecodeError:
            raise ReplayError(f"{path}: not a replay (not UTF-8 text)") from None


def _record_line(path: Path, number: int, line: str) -> dict[str, Json]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise ReplayError(f"{path}:{number}: not JSON: {error.msg}") from None
    if not isinstance(record, dict) or "type" not in record:
        raise ReplayError(f"{path}:{number}: a replay record is an object with a 'type'")
    if number == 1 and record["type"] != MatchHeader.type:
        raise ReplayError(f"{path}:1: a replay starts with its 'match' header")
    return record


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
