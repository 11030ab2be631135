"""A replay as the viewer steps through it: the state of the table after every record.

The replay file holds the deals and the actions; what each seat held, the discard
pile and the melds come from re-playing it through the game's engine, read through
the protocol's observations (as ``arena replay --seat`` does), so the viewer shows
exactly what each seat was shown.  A game this server does not know (a plugin's game
without its plugin) or a replay the engine disagrees with gets the plain event list
and a sentence saying why, rather than a broken table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.cards import derive_seed
from arena.errors import ArenaError
from arena.games.base import GameError
from arena.proto import bot_pb2 as pb
from arena.protocol.table import Table
from arena.replays.engine import EngineReplay, GameLookup
from arena.replays.files import read_replay
from arena.replays.positions import Coordinates
from arena.replays.records import (
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
)
from arena.replays.seat_view import event_text

__all__ = ["ReplayView", "Step", "StepFeed", "build_replay_view"]

_KIND = pb.Event.Kind


@dataclass(frozen=True)
class Step:
    """One step of the viewer: what happened, then the table as it stands after it."""

    game: int
    hand: int
    kind: str  # deal, action, fault, hand_end, game_end, match_end
    seat: int  # who acted (-1: nobody)
    text: str  # what everyone saw
    private: str  # what only ``seat`` saw (the card it drew from the stock), or ""
    comment: str  # the bot's comment on its action
    state: dict[str, Any] | None  # the table after this step (None: no table to show)
    # An action step's decision as ``arena replay --at`` names it (``G.H.S``: game, hand
    # and the seat's step in the hand, from 1), for the command that asks it again and
    # its position file (``/matches/ID/position?seat=N&at=G.H.S``); "" for other steps.
    decision: str = ""


@dataclass
class ReplayView:
    game_id: str
    players: list[dict[str, str]]  # name, version, sandbox: by seat
    header: dict[str, Any]  # seed, seed commitment (where present), games, time control
    drawable: bool  # False: only the event list can be shown (``problem`` says why)
    problem: str | None
    steps: list[Step] = field(default_factory=list)
    events: list[str] = field(default_factory=list)  # the plain listing, one line a record


def _players(header: MatchHeader) -> list[dict[str, str]]:
    return [
        {
            "name": str(player.get("name", "")),
            "version": str(player.get("version", "")),
            "sandbox": str(player.get("sandbox", "")),
        }
        for player in header.players
    ]


def _header_fields(header: dict[str, Json]) -> dict[str, Any]:
    """The header's line (``MatchHeader.to_json``) as the viewer shows it."""
    fields = {key: header.get(key) for key in ("match_id", "seed", "games", "hands_only")}
    fields["fault_policy"] = header.get("fault_policy")
    fields["time_control"] = header.get("time_control")
    # The seed commitment, where the referee recorded one (newer replays): whatever
    # header field names it, as text.
    for key, value in header.items():
        if "commit" in key and value not in (None, "", {}):
            if isinstance(value, dict):
                value = ", ".join(f"{name}: {part}" for name, part in value.items())
            fields["seed_commitment"] = str(value)
    return fields


def _record_line(line: dict[str, Json]) -> str:
    """A replay line in words, keys in the file's order."""
    kind = str(line.get("type"))
    rest = ", ".join(f"{key} {value}" for key, value in line.items() if key != "type")
    return f"{kind}: {rest}" if len(rest) < 400 else f"{kind}: {rest[:400]}..."


def build_replay_view(path: Path, find: GameLookup) -> ReplayView:
    """The viewer's steps for the replay at ``path``; ``ReplayError`` if it cannot be read."""
    replay = read_replay(path)
    header = replay.header
    view = ReplayView(
        game_id=str(header.game_id),
        players=_players(header),
        header=_header_fields(replay.lines[0]),
        drawable=True,
        problem=None,
        events=[_record_line(line) for line in replay.lines],
    )
    try:
        spec = find(view.game_id)
        engine = EngineReplay(spec, header)
    except (LookupError, ValueError) as error:
        view.drawable = False
        view.problem = f"this server cannot draw the game {view.game_id!r} ({error}); the records follow as a list"
        return view
    _Player(view, engine).play(replay.records[1:])
    return view


def _meld(meld: pb.Meld) -> dict[str, Any]:
    return {
        "id": meld.id,
        "owner": meld.owner,
        "cards": list(meld.cards),
        "stands_for": list(meld.stands_for),
    }


def _layoff(layoff: pb.Layoff) -> dict[str, Any]:
    return {"card": layoff.card, "meld": layoff.meld_id, "stands_for": layoff.stands_for}


def _hand_end(end: pb.HandEnd) -> dict[str, Any]:
    return {
        "termination": end.termination,
        "winner": end.winner,
        "knock_discard": end.knock_discard,
        "scores": list(end.scores),
        "seats": [
            {
                "hand": list(seat.hand),
                "melds": [_meld(meld) for meld in seat.melds],
                "layoffs": [_layoff(layoff) for layoff in seat.layoffs],
                "unmatched": list(seat.unmatched),
                "deadwood": seat.deadwood,
                "points": seat.points,
            }
            for seat in end.seats
        ],
    }


class _Player:
    """Re-plays the records through the engine, one ``Step`` per record."""

    def __init__(self, view: ReplayView, engine: EngineReplay, *, decks: bool = True) -> None:
        self.view = view
        self.engine = engine
        self.decks = decks  # the deal records carry their decks (a finished replay's do)
        self.seats = len(view.players)
        names = [player["name"] for player in view.players]
        self.labels = [
            f"{name} (seat {index})" if names.count(name) > 1 else name
            for index, name in enumerate(names)
        ]
        self.hand: Any = None  # the engine's hand being shown (kept after it ends)
        self.game = -1
        self.hand_number = -1
        self.shown = 0  # events of ``self.hand`` already told
        self.ends: list[pb.HandEnd] = []
        self.last_end: dict[str, Any] | None = None
        self.last_state: dict[str, Any] | None = None
        self.decisions = [0] * self.seats  # each seat's decisions in the current hand

    def who(self, seat: int) -> str:
        return self.labels[seat] if 0 <= seat < len(self.labels) else f"seat {seat}"

    @property
    def live_table(self) -> Table:
        table = self.engine.table
        assert table is not None  # asked only inside a game the walk follows
        return table

    @property
    def table(self) -> Table | None:
        return self.engine.table

    def play(self, records: Sequence[Record]) -> None:
        for line, record in enumerate(records, start=2):
            if not self.play_one(line, record):
                return

    def play_one(self, line: int, record: Record) -> bool:
        """Step ``record``; False (and the view's problem said) where the engine
        disagrees with it."""
        try:
            self.record(line, record)
        except (GameError, ValueError, KeyError, IndexError, TypeError) as error:
            self.view.problem = (
                f"record {line}: the engine disagrees with the replay ({error}); "
                f"steps are shown up to there (arena replay --verify lists every disagreement)"
            )
            return False
        return True

    def step(
        self,
        kind: str,
        seat: int,
        text: str,
        private: str = "",
        comment: str = "",
        decision: str = "",
    ) -> None:
        if self.table is not None and self.hand is not None:
            self.last_state = self.state()
        state = self.last_state  # after a game's end: the table as it was left
        self.view.steps.append(
            Step(self.game, self.hand_number, kind, seat, text, private, comment, state, decision)
        )

    def record(self, line: int, record: Record) -> None:
        if isinstance(record, GameStartRecord):
            self.engine.feed(line, record)
            self.game = int(record.game)
            self.hand = self.last_state = None
            self.ends = []
        elif isinstance(record, DealRecord):
            self.deal(line, record)
        elif isinstance(record, ActionRecord) and self.table is not None:
            self.action(line, record)
        elif isinstance(record, FaultRecordLine):
            self.step(
                "fault",
                int(record.seat),
                f"FAULT {self.who(int(record.seat))}: {record.status}: {record.reason} -> {record.consequence}",
            )
        elif isinstance(record, HandEndRecord):
            if self.ends:
                end = self.ends.pop(0)
                self.last_end = _hand_end(end)
                winner = "no winner" if end.winner < 0 else f"{self.who(end.winner)} wins"
                totals = ", ".join(str(score) for score in end.scores)
                self.step(
                    "hand_end",
                    end.winner,
                    f"hand {end.hand_number + 1} ends: {end.termination}, {winner}; totals {totals}",
                )
        elif isinstance(record, GameEndRecord):
            winner = "nobody" if record.winner is None else self.who(record.winner)
            self.step(
                "game_end",
                -1 if record.winner is None else int(record.winner),
                f"game {record.game + 1} over ({record.reason}): scores {list(record.scores)}, winner {winner}",
            )
            self.engine.table = None
        elif isinstance(record, MatchEndRecord):
            bots = record.result["bots"]
            text = "; ".join(
                f"{self.who(index)}: {bot['wins']} game{'' if bot['wins'] == 1 else 's'} won, {bot['points']} points, {bot['faults']} fault{'' if bot['faults'] == 1 else 's'}"
                for index, bot in enumerate(bots)
            )
            self.step("match_end", -1, f"match over: {text}")

    def deal(self, line: int, record: DealRecord) -> None:
        if record.deck is None and self.decks:  # the reveal left this deck out
            raise KeyError("deck")
        self.engine.feed(line, record)
        table = self.table
        assert table is not None
        self.hand = table.game.hand
        self.hand_number = int(record.hand)
        self.shown = 0
        self.last_end = None
        self.decisions = [0] * self.seats
        dealer = int(record.dealer)
        told = self.events()
        self.step("deal", dealer, f"hand {self.hand_number + 1}: {self.who(dealer)} deals; {told}")

    def action(self, line: int, record: ActionRecord) -> None:
        actor = int(record.seat)
        before = Counter(self.holding(actor))
        self.ends += [hand.end for hand in self.engine.feed(line, record)]
        table = self.table
        assert table is not None
        gained = Counter(self.holding(actor)) - before
        drew_stock = any(
            message.kind == _KIND.KIND_DRAW_STOCK
            for message in (table.event_to_proto(event) for event in self.hand.events[self.shown :])
        )
        private = " ".join(sorted(gained.elements())) if drew_stock and gained else ""
        flag = " (played by the referee: the bot's reply was refused)" if record.replaced else ""
        told = self.events() or f"{self.who(actor)}: {record.action}"
        decision = ""
        if 0 <= actor < self.seats:
            self.decisions[actor] += 1
            decision = f"{self.game + 1}.{self.hand_number + 1}.{self.decisions[actor]}"
        self.step("action", actor, told + flag, private, str(record.comment or ""), decision)

    def events(self) -> str:
        """The hand's public events since the last step, in words."""
        new = self.hand.events[self.shown :]
        self.shown = len(self.hand.events)
        texts = []
        for event in new:
            message = self.live_table.event_to_proto(event)
            if message.kind != _KIND.KIND_HAND_OVER:
                texts.append(event_text(message, self.who))
        return "; ".join(texts)

    def observation(self, seat: int) -> pb.Observation:
        message = pb.Observation()
        self.live_table.observation_to_proto(self.hand.observation(seat), self.game, message)
        return message

    def holding(self, seat: int) -> list[str]:
        """The cards ``seat`` holds (the same as its observation's hand, at a fraction of
        the cost: a 4-seat Rummy match has thousands of steps)."""
        return list(self.live_table.card_texts(self.hand.hand_of(seat)))

    def state(self) -> dict[str, Any]:
        # What is public is the same in every seat's observation: seat 0's is read.
        first = self.observation(0)
        state: dict[str, Any] = {
            "dealer": first.dealer,
            "to_act": first.to_act,
            "phase": pb.Phase.Name(first.phase).removeprefix("PHASE_").lower(),
            "stock": first.stock_size,
            "discard": list(first.discard_pile),
            "hands": [self.holding(seat) for seat in range(self.seats)],
            "sizes": [seat.hand_size for seat in first.seats],
            "known": [list(seat.known_cards) for seat in first.seats],
            "scores": [seat.score for seat in first.seats],
            "eliminated": [seat.eliminated for seat in first.seats],
            "table": [_meld(meld) for meld in first.table],
            "forbidden_discard": first.forbidden_discard,
            "end": self.last_end,  # the hand's reveal, from its end to the next deal
        }
        if first.HasField("gin"):
            state["gin"] = {
                "knock_limit": first.gin.knock_limit,
                "doubled": first.gin.doubled,
                "knocker": first.gin.knocker,
                "knocker_unmatched": list(first.gin.knocker_unmatched),
            }
        if first.HasField("rummy"):
            state["rummy"] = {
                "reshuffles": first.rummy.reshuffles,
                "max_reshuffles": first.rummy.max_reshuffles,
            }
        return state


class StepFeed:
    """The viewer's steps of a match in play, record by record as its replay grows.

    Its replay does not reveal the seeds yet: ``seed`` (the match's, from the ladder)
    deals each game here instead, so the table can be drawn; what of it a spectator
    may see is the caller's to decide."""

    def __init__(
        self, header_line: dict[str, Json], header: MatchHeader, find: GameLookup, seed: int
    ) -> None:
        self.seed = seed
        self.view = ReplayView(
            game_id=str(header.game_id),
            players=_players(header),
            header=_header_fields(header_line),
            drawable=True,
            problem=None,
        )
        self._player: _Player | None = None
        try:
            self._player = _Player(
                self.view, EngineReplay(find(header.game_id), header), decks=False
            )
        except (LookupError, ValueError) as error:
            self.view.drawable = False
            self.view.problem = f"this server cannot draw the game {header.game_id!r} ({error})"

    def feed(self, line: int, record: Record) -> list[Step]:
        """The steps ``record`` (line ``line`` of the file) adds."""
        player = self._player
        if player is None or self.view.problem is not None:
            return []
        if isinstance(record, GameStartRecord) and record.seed is None:
            record = replace(record, seed=derive_seed(self.seed, 1, record.game))
        before = len(self.view.steps)
        player.play_one(line, record)
        return self.view.steps[before:]


class PositionUnavailable(ArenaError, LookupError):
    """Why a match's replay has no such position (a 404's reason); the message names
    no file."""


def position_json(path: Path, seat: int, at: str, find: GameLookup) -> dict[str, Any]:
    """Seat ``seat``'s decision ``at`` (``G.H.S``) of the replay at ``path`` as a position
    file's JSON (docs/REPLAY.md, "Positions"), for the match page's download.  Refused
    with ``PositionUnavailable`` (a message without the file's path): a seat or a
    decision the match does not have, a replay that cannot be asked again (unfinished,
    or one that does not verify)."""
    # Imported here: the re-run brings in the referee's match loop and the hosting
    # layer's modules, which only this route of the web server needs.
    from arena.replays.ask import load_for_asking, position_at, seat_stream

    try:
        coordinates = Coordinates.parse(at)
    except ValueError as error:
        raise PositionUnavailable(str(error).removeprefix("--at ")) from None
    try:
        header = read_replay(path).header
        if not 0 <= seat < len(header.players):
            raise PositionUnavailable(
                f"seat {seat}: the match has seats 0-{len(header.players) - 1}"
            )
        replay, spec = load_for_asking(path, seat, find)
        stream = seat_stream(replay, spec, seat)
    except ValueError:  # ReplayError, and a header the referee's settings refuse
        raise PositionUnavailable(
            "its replay cannot be re-played for a seat (the match is not over, or the "
            "replay does not verify: arena replay --verify)"
        ) from None
    found = [decision for decision in stream.decisions if decision.at == coordinates]
    if not found:
        span = (
            f"its decisions run from {stream.decisions[0].at} to {stream.decisions[-1].at}"
            if stream.decisions
            else "it made none"
        )
        raise PositionUnavailable(f"seat {seat} has no decision {coordinates} ({span})")
    position = position_at(stream, found[0])
    data = position.to_json()
    data["replay"] = f"{header.match_id}.jsonl"  # the file's own name stays on the server
    return data
