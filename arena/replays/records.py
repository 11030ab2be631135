"""Match records: the closed set of what a match reports, one frozen dataclass per
kind, with one encoding to and from a replay line (docs/REPLAY.md).

A replay is these records as JSON objects, one a line, each with its ``type``.
``record_from_json`` reads any version's line (version 1 replays carried seeds and
decks where version 2 reveals them at the end; ``replay.read_records`` moves them back, and
both shapes parse here); ``Record.to_json`` writes the current version's line, and
``record_from_json(r.to_json()) == r`` for every record.

Values whose shape belongs to a game or to the results (``rules``, a hand's
``result``, the match's ``result``, the players) stay JSON values: ``Json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Final, cast

from arena.errors import ArenaError

__all__ = [
    "RECORD_TYPES",
    "REPLAY_VERSION",
    "ActionRecord",
    "DealRecord",
    "FaultRecordLine",
    "GameEndRecord",
    "GameStartRecord",
    "HandEndRecord",
    "Json",
    "MatchEndRecord",
    "MatchHeader",
    "Record",
    "RecordError",
    "RevealRecord",
    "record_from_json",
]

REPLAY_VERSION: Final = 2

Json = Any  # a JSON value as ``json.loads`` gives it


class RecordError(ArenaError, ValueError):
    """A line that is no record of this format (names the type and the field)."""


_MISSING: Final = object()


@dataclass(frozen=True, slots=True)
class _Record:
    type: ClassVar[str]
    # Fields written only when set (None, False): absent in the line otherwise.
    optional: ClassVar[frozenset[str]] = frozenset()

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {"type": self.type}
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name in self.optional and value in (None, False):
                continue
            out[item.name] = list(value) if isinstance(value, tuple) else value
        return out

    # The record as its JSON object reads, for code written when records were dicts
    # (plugins' ``record["seat"]``): a field absent from the line reads as None.
    def __getitem__(self, key: str) -> Json:
        if key == "type":
            return self.type
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        value = getattr(self, key)
        return list(value) if isinstance(value, tuple) else value

    def get(self, key: str, default: Json = None) -> Json:
        try:
            value = self[key]
        except KeyError:
            return default
        return default if value is None else value

    @classmethod
    def from_json(cls, data: dict[str, Json]) -> _Record:
        values = {}
        for item in fields(cls):
            value = data.get(item.name, _MISSING)
            if value is _MISSING:
                if item.name not in cls.optional:
                    raise RecordError(f"{cls.type} record: no field {item.name!r}")
                continue
            values[item.name] = (
                tuple(value) if isinstance(value, list) and item.name in _TUPLES else value
            )
        unknown = set(data) - {"type"} - {item.name for item in fields(cls)}
        if unknown:
            raise RecordError(f"{cls.type} record: unknown fields {', '.join(sorted(unknown))}")
        return cls(**values)


_TUPLES: Final = frozenset({"scores", "ranks"})


@dataclass(frozen=True, slots=True)
class MatchHeader(_Record):
    """The first line: what was played, by whom, under which clocks and policies.
    ``seed`` is there only in version 1 (version 2 commits to it and reveals it)."""

    type: ClassVar[str] = "match"
    optional: ClassVar[frozenset[str]] = frozenset({"seed", "seed_commitment"})
    version: int
    match_id: str
    game_id: str
    rules: dict[str, str]
    games: int
    hands_only: bool
    max_deals: int
    time_control: dict[str, int]
    fault_policy: str
    players: list[dict[str, Json]]
    seed_commitment: str | None = None
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class GameStartRecord(_Record):
    """A game begins (``seed``: version 1 only)."""

    type: ClassVar[str] = "game"
    optional: ClassVar[frozenset[str]] = frozenset({"seed"})
    game: int
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class DealRecord(_Record):
    """A hand is dealt (``deck``: version 1 only; version 2 reveals it at the end)."""

    type: ClassVar[str] = "deal"
    optional: ClassVar[frozenset[str]] = frozenset({"deck"})
    game: int
    hand: int
    dealer: int
    deck: list[str] | None = None


@dataclass(frozen=True, slots=True)
class ActionRecord(_Record):
    """A seat's action as text; ``replaced``: the fault policy played it instead."""

    type: ClassVar[str] = "action"
    optional: ClassVar[frozenset[str]] = frozenset({"replaced"})
    game: int
    hand: int
    seat: int
    action: str
    ms: float
    comment: str
    replaced: bool = False

    def to_json(self) -> dict[str, Json]:  # every decision's: spelled out, not reflected
        out: dict[str, Json] = {
            "type": "action",
            "game": self.game,
            "hand": self.hand,
            "seat": self.seat,
            "action": self.action,
            "ms": self.ms,
            "comment": self.comment,
        }
        if self.replaced:
            out["replaced"] = True
        return out


@dataclass(frozen=True, slots=True)
class FaultRecordLine(_Record):
    """A bot's fault: its status, the reason, and what followed (``forfeit`` or the
    replacement action); game and hand -1 before the first deal."""

    type: ClassVar[str] = "fault"
    seat: int
    status: str
    reason: str
    game: int
    hand: int
    consequence: str


@dataclass(frozen=True, slots=True)
class HandEndRecord(_Record):
    """A hand's result, in the game's own shape (its codec's ``hand_record``)."""

    type: ClassVar[str] = "hand_end"
    game: int
    hand: int
    result: dict[str, Json]


@dataclass(frozen=True, slots=True)
class GameEndRecord(_Record):
    """A game's end (``seed``: version 1 only)."""

    type: ClassVar[str] = "game_end"
    optional: ClassVar[frozenset[str]] = frozenset({"seed"})
    game: int
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winner: int | None
    reason: str
    hands: int
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class RevealRecord(_Record):
    """Version 2, after the last game: the match seed, the commitment's salt and
    every deck dealt (``{"game": G, "hand": H, "deck": [card texts, top first]}``)."""

    type: ClassVar[str] = "reveal"
    seed: int
    salt: str
    decks: list[dict[str, Json]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class MatchEndRecord(_Record):
    """The last line: the whole result (``MatchResult.to_json``)."""

    type: ClassVar[str] = "match_end"
    result: dict[str, Json]


Record = (
    MatchHeader
    | GameStartRecord
    | DealRecord
    | ActionRecord
    | FaultRecordLine
    | HandEndRecord
    | GameEndRecord
    | RevealRecord
    | MatchEndRecord
)

RECORD_TYPES: Final[dict[str, type[_Record]]] = {
    kind.type: kind
    for kind in (
        MatchHeader,
        GameStartRecord,
        DealRecord,
        ActionRecord,
        FaultRecordLine,
        HandEndRecord,
        GameEndRecord,
        RevealRecord,
        MatchEndRecord,
    )
}


def record_from_json(data: object) -> Record:
    """The record of one replay line (a parsed JSON object); ``RecordError`` says
    what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise RecordError("a record is a JSON object with a string 'type'")
    kind = RECORD_TYPES.get(data["type"])
    if kind is None:
        known = ", ".join(RECORD_TYPES)
        raise RecordError(f"unknown record type {data['type']!r} (known: {known})")
    try:
        record = kind.from_json(data)
    except TypeError as error:
        raise RecordError(f"{kind.type} record: {error}") from None
    return cast(Record, record)  # RECORD_TYPES holds exactly the Record classes
