"""Re-playing a replay through the engine: the one walk that the verifier, the seat
view, ``arena replay`` and the web viewer share.

``EngineReplay.feed`` takes the records in order and keeps the game's ``Table`` in step:
a ``game`` record deals a fresh game from its seed, a ``deal`` starts the hand and
checks the deck, an ``action`` is checked against the seat to act and applied (the
table stays as the game left it until the next ``game`` record).  What
the engine disagrees with raises ``Disagreement`` (the caller decides whether to stop
or go on: the verifier lists them all); a game the walk cannot follow (its seed is not
revealed yet, an action the engine refused) is skipped to its end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.games.base import GameError
from arena.games.registry import find_game
from arena.games.spec import GameSpec
from arena.proto import bot_pb2 as pb
from arena.protocol import codec_for
from arena.protocol.table import Table
from arena.replays.files import ReplayError
from arena.replays.records import (
    ActionRecord,
    DealRecord,
    GameStartRecord,
    Json,
    MatchHeader,
    Record,
)

__all__ = ["Disagreement", "EngineReplay", "GameLookup", "game_of", "table_for_game"]

# How a game id becomes its rules: ``find_game`` knows the built-in games; the
# command line passes its plugins' lookup, so plugin games can be read back too.
GameLookup = Callable[[str], GameSpec]


class Disagreement(ReplayError):
    """The engine and the replay disagree at one record."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"record {line}: {message}")
        self.line = line
        self.message = message


def game_of(header: MatchHeader, find: GameLookup = find_game, where: str = "") -> GameSpec:
    """The game a replay's header names; ``ReplayError`` if ``find`` does not know it."""
    try:
        return find(header.game_id)
    except LookupError as error:
        raise ReplayError(
            f"{where}{error} (a plugin's game needs its plugin: --plugin MODULE)"
        ) from None


def table_for_game(spec: GameSpec, header: MatchHeader, record: GameStartRecord) -> Table:
    """A fresh table for the replay's ``game`` record, dealt from that game's seed."""
    if record.seed is None:
        raise ReplayError(
            f"game {record.game + 1}: the replay stops before its seed is revealed, "
            "so its deals cannot be re-played"
        )
    game = spec.new_game(
        record.seed,
        len(header.players),
        hands_only=header.hands_only,
        max_deals=header.max_deals,
    )
    return codec_for(spec.id).new_table(spec.id, game)


@dataclass(frozen=True)
class FinishedHand:
    """A hand the last action ended: its protocol message and its replay record."""

    end: pb.HandEnd
    record: dict[str, Json]


class EngineReplay:
    """The engine, kept in step with a replay's records (see the module docstring)."""

    def __init__(self, spec: GameSpec, header: MatchHeader) -> None:
        self.spec = spec
        self.header = header
        self.codec = codec_for(spec.id)
        self.table: Table | None = None  # None outside a game, or in one it cannot follow
        self.game = -1  # the game being re-played, from 0 as recorded

    def feed(self, line: int, record: Record, *, follow: bool = True) -> list[FinishedHand]:
        """Play ``record`` (line ``line`` of the file) on the engine; the hands it ended.
        ``follow=False`` at a ``game`` record skips that game (not selected)."""
        if isinstance(record, GameStartRecord):
            self.game = record.game
            self.table = None
            if follow and record.seed is not None:
                self.table = table_for_game(self.spec, self.header, record)
            elif follow:
                raise Disagreement(
                    line,
                    f"game {record.game + 1}: no seed: the replay stops before it is revealed",
                )
            return []
        table = self.table
        if table is None:
            return []
        if isinstance(record, DealRecord):
            table.hand_started()
            if table.hand_number != record.hand:
                raise Disagreement(
                    line,
                    f"the replay deals hand {record.hand + 1}, the engine hand {table.hand_number + 1}",
                )
            if record.deck is not None and table.deck() != record.deck:
                raise Disagreement(
                    line,
                    f"game {self.game + 1} hand {record.hand + 1}: deck differs from the seed's",
                )
        elif isinstance(record, ActionRecord):
            if table.current_seat() != record.seat:
                self.table = None
                raise Disagreement(
                    line,
                    f"seat {record.seat} acts, but the engine waits for seat {table.current_seat()}",
                )
            try:
                table.apply(self.codec.parse_action(record.action), record.seat)
            except (GameError, ValueError) as error:
                self.table = None
                raise Disagreement(
                    line, f"action {record.action!r} by seat {record.seat} rejected: {error}"
                ) from None
            return [
                FinishedHand(end, table.hand_record(result))
                for end, result in table.finished_hands(self.game)
            ]
        return []
