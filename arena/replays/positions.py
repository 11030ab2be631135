"""Position files: one decision of one seat, with everything a bot needs to face it
again (``arena replay FILE --seat N --at G.H.S --save POS.json``, ``arena ask BOT
POS.json``; docs/REPLAY.md, "Positions").

A position is the stream of protocol messages the seat received in the recorded
match, from its ``MatchStart`` up to and including the ``DecisionRequest`` of that
decision, each as the exact bytes the referee sent (base64), plus the rules, the seat,
the recorded answer and the answers a regression suite expects.  Any bot, in any
language, can be put in front of it: the arena sends the messages over the bot's
match stream, as a match would, and reads its reply to the last one.

This module only reads and writes the file (JSON and protocol messages, nothing of
the referee), so that the SDK can turn a position into a ``Decision`` for a bot's
own unit tests without loading the arena's hosting layer.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from arena.errors import ArenaError
from arena.proto import bot_pb2 as pb

__all__ = [
    "POSITION_TYPE",
    "POSITION_VERSION",
    "Coordinates",
    "Position",
    "PositionError",
    "RecordedAnswer",
    "position_files",
    "read_position",
]

POSITION_TYPE: Final = "rummy-arena/position"
POSITION_VERSION: Final = 1


class PositionError(ArenaError, ValueError):
    """A position file that cannot be read (names the file and what is wrong)."""


@dataclass(frozen=True, order=True)
class Coordinates:
    """Where a decision is in its match: game and hand as every listing numbers them
    (from 1), and ``step``, the seat's decisions in that hand counted from 1.  Text
    form ``G.H.S`` (``--at 2.3.5``), which ``parse`` reads back."""

    game: int
    hand: int
    step: int

    def __str__(self) -> str:
        return f"{self.game}.{self.hand}.{self.step}"

    @classmethod
    def parse(cls, text: str) -> Coordinates:
        parts = text.strip().split(".")
        if len(parts) != 3 or not all(part.isdigit() for part in parts):
            raise PositionError(
                f"--at {text!r}: a decision is GAME.HAND.STEP, each a number from 1 (e.g. 1.2.3)"
            )
        game, hand, step = (int(part) for part in parts)
        if min(game, hand, step) < 1:
            raise PositionError(f"--at {text}: games, hands and steps are numbered from 1")
        return cls(game, hand, step)

    def to_json(self) -> dict[str, int]:
        return {"game": self.game, "hand": self.hand, "step": self.step}


@dataclass(frozen=True)
class RecordedAnswer:
    """What the seat answered in the recorded match: the action played (its text
    form, RULES.md), the bot's comment and time; ``fault`` when its reply was refused
    (``timeout: no reply ...``): ``action`` is then the fault policy's replacement, or
    empty when the seat forfeited."""

    action: str
    comment: str = ""
    ms: float = 0.0
    fault: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "comment": self.comment, "ms": self.ms, "fault": self.fault}


@dataclass(frozen=True)
class Position:
    """One decision of one seat (see the module docstring).  ``messages``: the
    serialized ``RefereeMessage``s, the last the ``DecisionRequest``; ``expect``: the
    answers (action texts) ``arena ask --expect`` accepts, the recorded one unless
    edited."""

    game_id: str
    rules: dict[str, str]
    seat: int
    players: list[str]
    match_id: str
    at: Coordinates
    time_control: dict[str, int]
    messages: list[bytes]
    legal_actions: list[str]
    recorded: RecordedAnswer
    expect: list[str] = field(default_factory=list)
    replay: str = ""  # the replay's file name it was saved from (for people)
    path: Path | None = None  # where it was read from

    @property
    def request(self) -> pb.DecisionRequest:
        """The decision request the position asks (its last message)."""
        request: pb.DecisionRequest = pb.RefereeMessage.FromString(self.messages[-1]).decision
        return request

    @property
    def match_start(self) -> pb.MatchStart:
        start: pb.MatchStart = pb.RefereeMessage.FromString(self.messages[0]).match_start
        return start

    @property
    def name(self) -> str:
        return str(self.path) if self.path is not None else f"position {self.at}"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": POSITION_TYPE,
            "version": POSITION_VERSION,
            "game_id": self.game_id,
            "rules": self.rules,
            "seat": self.seat,
            "players": self.players,
            "match_id": self.match_id,
            "replay": self.replay,
            "at": self.at.to_json(),
            "time_control": self.time_control,
            "legal_actions": self.legal_actions,
            "recorded": self.recorded.to_json(),
            "expect": self.expect,
            "messages": [base64.b64encode(data).decode("ascii") for data in self.messages],
        }

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: object, where: str = "position") -> Position:
        """A position from its JSON object; ``PositionError`` names what is wrong."""
        if not isinstance(data, dict) or data.get("type") != POSITION_TYPE:
            raise PositionError(
                f"{where}: not a position file (its 'type' is not {POSITION_TYPE!r})"
            )
        if data.get("version") != POSITION_VERSION:
            raise PositionError(
                f"{where}: position version {data.get('version')!r}; this arena reads version {POSITION_VERSION}"
            )
        try:
            at = data["at"]
            recorded = data["recorded"]
            messages = [base64.b64decode(text, validate=True) for text in data["messages"]]
            position = cls(
                game_id=_typed(data["game_id"], str),
                rules={str(k): str(v) for k, v in dict(data["rules"]).items()},
                seat=_typed(data["seat"], int),
                players=[str(name) for name in data["players"]],
                match_id=_typed(data.get("match_id", ""), str),
                at=Coordinates(int(at["game"]), int(at["hand"]), int(at["step"])),
                time_control={str(k): int(v) for k, v in dict(data["time_control"]).items()},
                messages=messages,
                legal_actions=[str(text) for text in data.get("legal_actions", [])],
                recorded=RecordedAnswer(
                    str(recorded["action"]),
                    str(recorded.get("comment", "")),
                    float(recorded.get("ms", 0.0)),
                    None if recorded.get("fault") is None else str(recorded["fault"]),
                ),
                expect=[str(text) for text in data.get("expect", [])],
                replay=str(data.get("replay", "")),
            )
        except (KeyError, TypeError, ValueError, binascii.Error) as error:
            raise PositionError(
                f"{where}: a broken position: {type(error).__name__}: {error}"
            ) from None
        _check_messages(position.messages, where)
        return position


def _typed(value: object, kind: type) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TypeError(f"expected {kind.__name__}, got {value!r}")
    return value


def _check_messages(messages: Sequence[bytes], where: str) -> None:
    """The stream starts with MatchStart and ends with the DecisionRequest asked."""
    kinds = []
    for number, data in enumerate(messages, start=1):
        try:
            kinds.append(pb.RefereeMessage.FromString(data).WhichOneof("body"))
        except Exception:  # DecodeError and whatever the parser raises
            raise PositionError(f"{where}: message {number} is not a RefereeMessage") from None
    if len(kinds) < 2 or kinds[0] != "match_start" or kinds[-1] != "decision":
        raise PositionError(
            f"{where}: its messages run from a match_start to the decision asked "
            f"(found {kinds[0] if kinds else 'none'} ... {kinds[-1] if kinds else 'none'})"
        )


def read_position(path: Path) -> Position:
    """The position file at ``path``; ``PositionError`` (one line) if it is not one."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise PositionError(f"{path}: cannot read position: {error.strerror}") from None
    except UnicodeDecodeError:
        raise PositionError(f"{path}: not a position (not UTF-8 text)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise PositionError(f"{path}: not JSON: {error.msg} (line {error.lineno})") from None
    position = Position.from_json(data, str(path))
    return replace(position, path=path)


def position_files(paths: Sequence[Path]) -> list[Path]:
    """The position files named: files as they are, a folder's ``*.json`` sorted by name."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.glob("*.json"))
            if not found:
                raise PositionError(f"{path}: a folder without positions (*.json)")
            out += found
        elif path.is_file():
            out.append(path)
        else:
            raise PositionError(f"no such file: {path}")
    return out
