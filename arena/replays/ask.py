"""Asking a bot again the decisions of a recorded match (``arena replay FILE --ask BOT
--seat N``, ``arena ask BOT POS.json``; docs/REPLAY.md, "Asking a bot again").

Two steps:

1. **The seat's stream, rebuilt by the referee itself** (``seat_stream``).  The real
   match loop (``arena.referee.match.play_match``) plays the match again from the
   revealed seed, with the recorded salt (so MatchStart carries the recorded
   commitment), the recorded match id, players, rules, time control and fault
   policy.  Every seat is scripted: it answers each request with its recorded
   action and comment, or raises its recorded fault, and a clock that advances by
   each decision's recorded time makes the banks run down as they did.  The asked
   seat's connection keeps every message the referee sends it, byte for byte.  The
   referee's records are held against the replay's as they come: a re-run that
   departs from the replay stops with the record where it does.  No second message
   builder: what the seat is sent is what the referee sends.
2. **The stream, played to a bot** (``ask_stream``): the bot, started as ``arena
   match`` starts it, gets the messages over its match stream in order; at each of
   the seat's decisions it is asked under the recorded deadline (``decision_ms`` plus
   the bank left), and whatever it answers, the stream goes on with the recorded
   action: the match stays the recorded one.  Its answer is judged against the
   recorded one: the same, different, illegal, or a fault (a crash or a timeout,
   after which a crashed bot is started again and brought back through the stream).

A position (``arena.replays.positions``) is one decision's stream, cut after its
request and saved with the recorded answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.eventloop import new_event_loop
from arena.games.base import GameError
from arena.games.registry import find_game
from arena.games.spec import GameSpec
from arena.hosting.connection import BotConnection, GrpcConnection
from arena.hosting.faults import BotFault, SeatStatus
from arena.proto import bot_pb2 as pb
from arena.protocol import PROTOCOL_VERSION, ProtocolError, codec_for
from arena.protocol.codec import Codec
from arena.protocol.commitment import RevealCheck
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.observers import MatchObserver
from arena.referee.settings import FaultPolicy, TimeControl
from arena.replays.engine import Disagreement, EngineReplay, GameLookup, game_of
from arena.replays.files import Replay, ReplayError, read_replay
from arena.replays.positions import Coordinates, Position, PositionError, RecordedAnswer
from arena.replays.records import (
    ActionRecord,
    DealRecord,
    FaultRecordLine,
    GameEndRecord,
    GameStartRecord,
    Json,
    MatchEndRecord,
    MatchHeader,
    Record,
    RevealRecord,
)
from arena.replays.seat_view import SelectionError, check_selection, seat_labels
from arena.replays.verify import check_seed, verify_replay

if TYPE_CHECKING:
    from arena.hosting.launcher import HostedBot

__all__ = [
    "AskReport",
    "AskedDecision",
    "Asker",
    "BotStarter",
    "DecisionResult",
    "NewAnswer",
    "SeatStream",
    "Verdict",
    "ask_position",
    "ask_stream",
    "load_for_asking",
    "position_at",
    "seat_stream",
]

#: Starts the bot to ask (as ``arena match`` would) and returns it hosted; the caller
#: closes it.  Called again after the bot crashed, to go on with a fresh process.
BotStarter = Callable[[], "HostedBot"]


# -- step 1: the seat's stream ----------------------------------------------------------


def load_for_asking(path: Path, seat: int, find: GameLookup = find_game) -> tuple[Replay, GameSpec]:
    """The replay at ``path`` and its game, if a seat of it can be asked again: whole
    (not cut short), its seed opening its commitment, every record agreeing with the
    engine, and ``seat`` one of its seats.  Otherwise one line saying which it is not:
    ``SelectionError`` for the seat, ``ReplayError`` for the rest."""
    replay = read_replay(path)
    records, header = replay.records, replay.header
    check_selection(path, records, seat, None, None)
    if not any(isinstance(record, RevealRecord) for record in records) or not isinstance(
        records[-1], MatchEndRecord
    ):
        raise ReplayError(
            f"{path}: cut short (no reveal and match_end at its end): its deals are not "
            "known, so its messages cannot be rebuilt"
        )
    seed = check_seed(records)
    if seed.status is RevealCheck.MISMATCH:
        raise ReplayError(f"{path}: {seed}")
    if seed.status is RevealCheck.ABSENT or header.seed is None:
        raise ReplayError(
            f"{path}: {seed.detail}: the MatchStart it was sent cannot be rebuilt "
            "(replays of version 2 and later can be asked again)"
        )
    spec = game_of(header, find, f"{path}:1: ")
    problems = verify_replay(path, find)
    if problems:
        more = (
            f" (and {len(problems) - 1} more: arena replay --verify)" if len(problems) > 1 else ""
        )
        raise ReplayError(f"{path}: does not verify: {problems[0]}{more}")
    return replay, spec


@dataclass(frozen=True)
class _Turn:
    """One recorded decision of a seat, as its scripted connection answers it."""

    line: int  # the replay's line of its action record (of its fault, if it forfeited)
    action: str  # "" when the seat forfeited at it
    comment: str
    ms: float
    fault: FaultRecordLine | None  # the reply was refused: replaced (action set) or forfeit
    at_send: bool = False  # a fatal fault that struck a message before the request

    @property
    def recorded(self) -> RecordedAnswer:
        fault = None if self.fault is None else f"{self.fault.status}: {self.fault.reason}"
        return RecordedAnswer(self.action, self.comment, self.ms, fault)


@dataclass(frozen=True)
class AskedDecision:
    """One decision of the asked seat: where it is, its request (``frame``: its index
    in the stream) and what was answered in the recorded match."""

    number: int  # the seat's decisions counted from 0 over the match
    at: Coordinates
    frame: int
    request_id: int
    line: int  # the replay's line of the recorded action
    recorded: RecordedAnswer


@dataclass
class SeatStream:
    """What one seat of a recorded match was sent, message by message, and its
    decisions among them (``seat_stream`` builds it)."""

    replay: Replay
    spec: GameSpec
    seat: int
    frames: list[bytes] = field(default_factory=list)  # serialized RefereeMessages, in order
    decisions: list[AskedDecision] = field(default_factory=list)

    @property
    def header(self) -> MatchHeader:
        return self.replay.header

    @property
    def codec(self) -> Codec:
        return codec_for(self.spec.id)

    @property
    def labels(self) -> list[str]:
        """Each seat as the seat's view names it: ``you`` for the asked one."""
        names = [str(player["name"]) for player in self.header.players]
        return [
            "you" if index == self.seat else label for index, label in enumerate(seat_labels(names))
        ]

    def request(self, decision: AskedDecision) -> pb.DecisionRequest:
        request: pb.DecisionRequest = pb.RefereeMessage.FromString(
            self.frames[decision.frame]
        ).decision
        return request

    def find(self, at: Coordinates) -> AskedDecision:
        """The decision at ``at``; ``SelectionError`` naming the last one when ``at``
        is past the end, or the steps of the hand when the hand has no such step."""
        for decision in self.decisions:
            if decision.at == at:
                return decision
        where = f"--at {at}: seat {self.seat}"
        if not self.decisions:
            raise SelectionError(f"{where} makes no decision in {self.replay.path}")
        last = self.decisions[-1].at
        if at > last:
            raise SelectionError(
                f"{where}: past the end of {self.replay.path}: the seat's last decision is {last}"
            )
        steps = [d.at.step for d in self.decisions if (d.at.game, d.at.hand) == (at.game, at.hand)]
        if steps:
            has = f"steps 1-{max(steps)}" if len(steps) > 1 else "step 1"
            raise SelectionError(f"{where} has {has} in game {at.game} hand {at.hand}")
        raise SelectionError(
            f"{where} makes no decision in game {at.game} hand {at.hand} "
            f"(its decisions run from {self.decisions[0].at} to {last})"
        )

    def check_action(self, decision: AskedDecision, action: Any) -> str | None:
        """Why the engine refuses ``action`` at ``decision`` (None: it is legal), for an
        answer that is none of the listed actions (a knock with other melds): the game
        is re-played to that decision and the action tried on a copy."""
        engine = EngineReplay(self.spec, self.header)
        for line, record in enumerate(self.replay.records[1 : decision.line - 1], start=2):
            with contextlib.suppress(Disagreement):
                engine.feed(line, record)
        if engine.table is None:
            return "the engine could not re-play the game to this decision"
        game = copy.deepcopy(engine.table.game)
        try:
            game.apply(action, self.seat)
        except (GameError, ValueError) as error:
            return str(error)
        return None


class _Clock:
    """The referee's clock in a re-run: it moves only by each decision's recorded time."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _Rerun(MatchObserver):
    """The recorded match, as the scripted seats answer it and its records check it."""

    def __init__(self, replay: Replay, spec: GameSpec) -> None:
        self.replay = replay
        self.codec = codec_for(spec.id)
        self.clock = _Clock()
        self.expected = [
            (line, record)
            for line, record in enumerate(replay.records, start=1)
            if not isinstance(record, MatchHeader | MatchEndRecord)
        ]
        self.position = 0  # records of the re-run checked so far
        self.turns: list[deque[_Turn]] = [deque() for _ in replay.header.players]
        self.start_faults: dict[int, BotFault] = {}
        self._script()

    def _script(self) -> None:
        records = self.replay.records
        replaced: dict[int, FaultRecordLine] = {}
        started = False  # a game has begun (a fault before: the seat never took its seat)
        for index, record in enumerate(records):
            line = index + 1
            started = started or isinstance(record, GameStartRecord)
            if isinstance(record, ActionRecord):
                fault = replaced.pop(record.seat, None) if record.replaced else None
                self.turns[record.seat].append(
                    _Turn(line, record.action, record.comment, record.ms, fault)
                )
            elif isinstance(record, FaultRecordLine):
                if not started:
                    self.start_faults[record.seat] = BotFault(
                        SeatStatus(record.status), record.reason
                    )
                elif record.consequence.startswith("random:"):
                    replaced[record.seat] = record  # its replaced action follows
                else:
                    # A forfeit at a request ends its game "forfeit: seat N <status>"; one
                    # at a message before it (its stream broke) "... did not play".
                    at_send = not _game_end_reason(records[index:]).endswith(record.status)
                    self.turns[record.seat].append(_Turn(line, "", "", 0.0, record, at_send))

    def next_expected(self) -> Record | None:
        if self.position < len(self.expected):
            return self.expected[self.position][1]
        return None

    def on_record(self, record: Record) -> None:
        if isinstance(record, MatchHeader | MatchEndRecord):
            return
        if self.position >= len(self.expected):
            raise self._departs(len(self.replay.records), None, record)
        line, recorded = self.expected[self.position]
        if _comparable(recorded) != _comparable(record):
            raise self._departs(line, recorded, record)
        self.position += 1

    def _departs(self, line: int, recorded: Record | None, rerun: Record) -> ReplayError:
        said = "nothing more" if recorded is None else _short(recorded.to_json())
        return ReplayError(
            f"{self.replay.path}:{line}: the referee's re-run of the match departs from the "
            f"replay: recorded {said}, re-run {_short(rerun.to_json())}"
        )

    def close(self) -> None:
        pass


def _game_end_reason(records: Sequence[Record]) -> str:
    """The reason of the first game end among ``records`` ("" if none)."""
    for record in records:
        if isinstance(record, GameEndRecord):
            return record.reason
    return ""


def _comparable(record: Record) -> dict[str, Json]:
    """A record without what only one side has: the seeds and decks that
    ``read_replay`` puts back into a version 2 file (the reveal has them all)."""
    data = record.to_json()
    if isinstance(record, GameStartRecord | GameEndRecord):
        data.pop("seed", None)
    if isinstance(record, DealRecord):
        data.pop("deck", None)
    return data


def _short(data: dict[str, Json]) -> str:
    text = str(data)
    return text if len(text) <= 300 else text[:297] + "..."


class _ScriptedSeat:
    """A seat of the re-run: answers with its recorded actions and faults."""

    def __init__(self, rerun: _Rerun, seat: int, name: str, version: str, game_id: str) -> None:
        self.rerun = rerun
        self.seat = seat
        self.info = pb.HandshakeReply(
            name=name, version=version, protocol_version=PROTOCOL_VERSION, games=[game_id]
        )

    async def start_match(self) -> None:
        pass

    async def send(self, message: bytes) -> None:
        turns = self.rerun.turns[self.seat]
        if turns and turns[0].at_send and turns[0].fault is not None:
            expected = self.rerun.next_expected()
            if expected == turns[0].fault:
                fault = turns.popleft().fault
                assert fault is not None
                raise BotFault(SeatStatus(fault.status), fault.reason)

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        turns = self.rerun.turns[self.seat]
        if not turns:
            raise ReplayError(
                f"{self.rerun.replay.path}: the referee asks seat {self.seat} once more than "
                "the replay records"
            )
        turn = turns.popleft()
        self.rerun.clock.now += turn.ms / 1000.0
        fault = turn.fault
        # A bank overdrawn by a reply: the referee finds that itself, from the clock.
        overdrawn = fault is not None and fault.reason.startswith("answered after")
        if fault is not None and not overdrawn:
            raise BotFault(SeatStatus(fault.status), fault.reason)
        action = self.rerun.codec.parse_action(turn.action) if turn.action else None
        reply = pb.DecisionReply(request_id=request_id, comment=turn.comment)
        if action is not None:
            reply.action.CopyFrom(self.rerun.codec.action_to_proto(action))
        return reply

    async def end_match(self) -> None:
        pass

    def close(self) -> None:
        pass


class _RecordingSeat(_ScriptedSeat):
    """The asked seat in the re-run: scripted, and keeping every message it is sent."""

    def __init__(self, stream: SeatStream, rerun: _Rerun, name: str, version: str) -> None:
        super().__init__(rerun, stream.seat, name, version, stream.spec.id)
        self.stream = stream
        self.game = self.hand = 0
        self.step = 0

    async def send(self, message: bytes) -> None:
        self.stream.frames.append(message)
        parsed = pb.RefereeMessage.FromString(message)
        if parsed.WhichOneof("body") == "hand_start":
            self.game = parsed.hand_start.game_number
            self.hand = parsed.hand_start.hand_number
            self.step = 0
        await super().send(message)

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        turns = self.rerun.turns[self.seat]
        if turns:
            self.step += 1
            self.stream.frames.append(message)
            self.stream.decisions.append(
                AskedDecision(
                    number=len(self.stream.decisions),
                    at=Coordinates(self.game + 1, self.hand + 1, self.step),
                    frame=len(self.stream.frames) - 1,
                    request_id=request_id,
                    line=turns[0].line,
                    recorded=turns[0].recorded,
                )
            )
        return await super().decide(message, request_id, timeout)


def seat_stream(replay: Replay, spec: GameSpec, seat: int) -> SeatStream:
    """Seat ``seat``'s messages in the recorded match, rebuilt by the referee's own match
    loop (see the module docstring); ``load_for_asking`` checks the replay first."""
    header = replay.header
    records = replay.records
    reveal = next(record for record in reversed(records) if isinstance(record, RevealRecord))
    end = records[-1]
    revealed = (
        bool(end.result.get("seed_revealed_to_bots", True))
        if isinstance(end, MatchEndRecord)
        else True
    )
    assert header.seed is not None  # load_for_asking refuses a replay without one
    config = MatchConfig(
        spec,
        games=header.games,
        seed=header.seed,
        hands_only=header.hands_only,
        time_control=TimeControl(**header.time_control),
        fault_policy=FaultPolicy.parse(header.fault_policy),
        match_id=header.match_id,
        max_deals=header.max_deals,
        reveal_seed=revealed,
        salt=bytes.fromhex(reveal.salt),
    )
    stream = SeatStream(replay, spec, seat)
    rerun = _Rerun(replay, spec)
    seats = []
    for index, player in enumerate(header.players):
        name, version = str(player["name"]), str(player.get("version") or "")
        connection: BotConnection
        if index == seat:
            connection = _RecordingSeat(stream, rerun, name, version)
        else:
            connection = _ScriptedSeat(rerun, index, name, version, spec.id)
        start_fault = rerun.start_faults.get(index)
        stderr = player.get("stderr")
        seats.append(
            Seat(
                None if start_fault is not None else connection,
                name,
                str(player.get("sandbox") or "none"),
                stderr if isinstance(stderr, str) else None,
                start_fault,
            )
        )
    play_match(config, seats, [rerun], clock=rerun.clock)
    if rerun.position != len(rerun.expected):
        line, recorded = rerun.expected[rerun.position]
        raise ReplayError(
            f"{replay.path}:{line}: the referee's re-run of the match ended before this "
            f"record: {_short(recorded.to_json())}"
        )
    return stream


def position_at(stream: SeatStream, decision: AskedDecision) -> Position:
    """The position of ``decision``: the stream up to its request, and its answer."""
    header = stream.header
    request = stream.request(decision)
    codec = stream.codec
    legal = [str(codec.action_from_proto(action)) for action in request.legal_actions]
    expect = [decision.recorded.action] if decision.recorded.fault is None else []
    return Position(
        game_id=stream.spec.id,
        rules=dict(header.rules),
        seat=stream.seat,
        players=[str(player["name"]) for player in header.players],
        match_id=header.match_id,
        at=decision.at,
        time_control=dict(header.time_control),
        messages=stream.frames[: decision.frame + 1],
        legal_actions=legal,
        recorded=decision.recorded,
        expect=expect,
        replay=stream.replay.path.name,
    )


# -- step 2: asking the bot -------------------------------------------------------------


class Verdict(Enum):
    """The new answer against the recorded one."""

    SAME = "same"
    DIFFERENT = "different"
    ILLEGAL = "illegal"  # not an action the rules allow there, or a reply that is none
    FAULT = "fault"  # no answer: a timeout, a crash, a protocol error


@dataclass(frozen=True)
class NewAnswer:
    """What the bot answered when asked again: its action's text ("" if none), its
    comment and time; ``detail`` says why an answer is illegal or a fault."""

    verdict: Verdict
    action: str
    comment: str
    ms: float
    detail: str = ""

    @property
    def text(self) -> str:
        """The answer as listings show it: its action, or what went wrong."""
        if self.verdict is Verdict.FAULT:
            return f"FAULT {self.detail}"
        if self.verdict is Verdict.ILLEGAL:
            return f"{self.action or 'no action'} (ILLEGAL: {self.detail})"
        return f"{self.action} ({self.detail})" if self.detail else self.action


@dataclass(frozen=True)
class DecisionResult:
    """One decision and the answers the bot gave it, one a repeat."""

    decision: AskedDecision
    answers: list[NewAnswer]

    @property
    def answer(self) -> NewAnswer:
        return self.answers[0]

    @property
    def steady(self) -> bool:
        """The same answer every time it was asked."""
        return len({(answer.verdict, answer.action) for answer in self.answers}) == 1


@dataclass
class AskReport:
    results: list[DecisionResult]

    def count(self, verdict: Verdict) -> int:
        return sum(1 for result in self.results if result.answer.verdict is verdict)

    @property
    def unsteady(self) -> list[DecisionResult]:
        """Decisions the bot answered differently on two asks of the same question."""
        return [result for result in self.results if not result.steady]

    def summary(self) -> str:
        asked = len(self.results)
        return (
            f"{asked} decision{'s' * (asked != 1)} asked, {self.count(Verdict.SAME)} same, "
            f"{self.count(Verdict.DIFFERENT)} different, {self.count(Verdict.ILLEGAL)} illegal, "
            f"{self.count(Verdict.FAULT)} fault{'s' * (self.count(Verdict.FAULT) != 1)}"
        )


def judge(
    stream: SeatStream | None,
    decision: AskedDecision | None,
    request: pb.DecisionRequest,
    codec: Codec,
    recorded: RecordedAnswer,
    reply: pb.DecisionReply,
    ms: float,
) -> NewAnswer:
    """The bot's ``reply`` to ``request`` against the ``recorded`` answer.  An action
    none of the listed ones (a knock with other melds) is tried on the engine when the
    replay is at hand (``stream``); from a position alone it is a different answer
    whose legality is left unchecked."""
    comment = reply.comment[:200]
    choice = reply.WhichOneof("choice")
    legal = [codec.action_from_proto(action) for action in request.legal_actions]
    try:
        if choice == "legal_index":
            if reply.legal_index >= len(legal):
                raise ProtocolError(
                    f"legal_index {reply.legal_index} out of range: {len(legal)} legal actions"
                )
            action = legal[reply.legal_index]
        elif choice == "action":
            action = codec.action_from_proto(reply.action)
        else:
            raise ProtocolError("reply has neither legal_index nor action")
    except (ProtocolError, GameError, ValueError) as error:
        return NewAnswer(Verdict.ILLEGAL, "", comment, ms, str(error))
    text = str(action)
    recorded_action = codec.parse_action(recorded.action) if recorded.action else None
    same = (
        recorded.fault is None
        and recorded_action is not None
        and (action == recorded_action or text == recorded.action)
    )
    if same:
        return NewAnswer(Verdict.SAME, text, comment, ms)
    if action not in legal and not (recorded_action is not None and action == recorded_action):
        if stream is None or decision is None:
            # A position holds what its seat was told, not the other hands: the engine
            # cannot be set up to try the action (the replay can: arena replay --ask).
            return NewAnswer(
                Verdict.DIFFERENT, text, comment, ms, "not a listed action: legality unchecked"
            )
        problem = stream.check_action(decision, action)
        if problem is not None:
            return NewAnswer(Verdict.ILLEGAL, text, comment, ms, problem)
    return NewAnswer(Verdict.DIFFERENT, text, comment, ms)


def _fault_answer(fault: BotFault, ms: float) -> NewAnswer:
    return NewAnswer(Verdict.FAULT, "", "", ms, f"{fault.status.value}: {fault.reason}")


@dataclass
class _Pass:
    """One pass of a stream to a bot: the answers judged, and where a fault that
    needs a fresh process stopped it (the index of the decision it is charged to)."""

    answers: dict[int, NewAnswer] = field(default_factory=dict)
    stopped_at: int | None = None


#: Faults that leave the bot's stream usable: the answer is judged illegal, and the
#: pass goes on; so does a timeout whose late answer comes (``_answers_late``).  Any
#: other (a crash, a protocol error, a bot still silent) ends the pass, and a fresh
#: process goes on.
_ILLEGAL = frozenset({SeatStatus.MALFORMED_REPLY, SeatStatus.ILLEGAL_ACTION})


async def _play(
    connection: BotConnection,
    frames: Sequence[bytes],
    decisions: Sequence[tuple[int, int]],
    judged_from: int,
    skipped: set[int],
    answer_of: Callable[[int, pb.DecisionReply, float], NewAnswer],
) -> _Pass:
    """Send ``frames`` to the bot as a match; at each decision frame (``decisions``:
    (frame, request id), in order) ask it under the request's own deadline, except
    the ``skipped`` ones (a fault there made the bot start again: their requests are
    not sent again).  Answers from decision ``judged_from`` on are judged."""
    at_frame = {frame: (number, request_id) for number, (frame, request_id) in enumerate(decisions)}
    done = _Pass()
    upcoming = judged_from  # the decision a fault is charged to
    started = time.perf_counter()
    try:
        await connection.start_match()
        for index, data in enumerate(frames):
            if index not in at_frame:
                await connection.send(data)
                continue
            number, request_id = at_frame[index]
            if number in skipped:
                continue
            upcoming = max(number, judged_from)
            clock = pb.RefereeMessage.FromString(data).decision.clock
            timeout = (clock.decision_ms + clock.bank_ms) / 1000.0
            started = time.perf_counter()
            try:
                reply = await connection.decide(data, request_id, timeout)
            except BotFault as fault:
                late = fault.status is SeatStatus.TIMEOUT and await _answers_late(
                    connection, request_id, timeout
                )
                if late:  # it answered after all: go on with the bot idle again
                    if number >= judged_from:
                        done.answers[number] = _fault_answer(fault, _ms_since(started))
                    upcoming = max(number + 1, judged_from)
                    continue
                if fault.status not in _ILLEGAL:
                    raise
                if number >= judged_from:
                    done.answers[number] = NewAnswer(
                        Verdict.ILLEGAL,
                        "",
                        "",
                        _ms_since(started),
                        f"{fault.status.value}: {fault.reason}",
                    )
                continue
            if number >= judged_from:
                done.answers[number] = answer_of(number, reply, _ms_since(started))
            upcoming = max(number + 1, judged_from)
    except BotFault as fault:
        _stop(done, upcoming, len(decisions), fault, _ms_since(started))
    except Exception as error:  # the bot's connection failing in any other way: its fault
        crash = BotFault(SeatStatus.CRASHED, f"{type(error).__name__}: {error}")
        _stop(done, upcoming, len(decisions), crash, _ms_since(started))
    finally:
        with contextlib.suppress(Exception):
            await connection.end_match()
    return done


async def _answers_late(connection: BotConnection, request_id: int, timeout: float) -> bool:
    """Whether a bot that timed out answers after all, within twice its deadline and a
    second more (its late answer is dropped); then the next request finds it idle,
    and it need not be started again."""
    if not isinstance(connection, GrpcConnection):
        return False
    return await connection.late_reply(request_id, 2 * timeout + 1.0)


def _stop(done: _Pass, charged: int, count: int, fault: BotFault, ms: float) -> None:
    if charged < count:
        done.answers.setdefault(
            charged, NewAnswer(Verdict.FAULT, "", "", ms, f"{fault.status.value}: {fault.reason}")
        )
    done.stopped_at = charged


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


class Asker:
    """Asks one bot, started by ``start`` when first needed and again after a fault
    that broke its stream; ``close`` stops it.  One process answers many streams (a
    fresh match stream each), as a ladder's kept bots do."""

    def __init__(self, start: BotStarter) -> None:
        self.start = start
        self.bot: HostedBot | None = None
        self.broken: str | None = None  # why the bot could not be started again

    def __enter__(self) -> Asker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connection(self) -> BotConnection | None:
        if self.bot is None and self.broken is None:
            bot = self.start()
            if bot.connection is None or bot.start_fault is not None:
                reason = bot.start_fault.reason if bot.start_fault else "no connection"
                bot.close()
                self.broken = f"start_failed: {reason}"
            else:
                self.bot = bot
        return None if self.bot is None else self.bot.connection

    def close(self) -> None:
        if self.bot is not None:
            self.bot.close()
            self.bot = None

    def run(
        self,
        frames: Sequence[bytes],
        decisions: Sequence[tuple[int, int]],
        first: int,
        answer_of: Callable[[int, pb.DecisionReply, float], NewAnswer],
    ) -> dict[int, NewAnswer]:
        """Answers to decisions ``first``.. of ``frames`` (every earlier one is asked
        too: a bot answers each request it is sent).  A fault is that decision's
        answer; one that leaves the bot unusable (a crash, a protocol error, a
        timeout with no late answer) ends the pass: the bot is started again and
        brought through the stream to the next decision, without the requests it
        faulted at (so that it does not fault there again)."""
        answers: dict[int, NewAnswer] = {}
        skipped: set[int] = set()
        judged_from = first
        while judged_from < len(decisions):
            connection = self.connection()
            if connection is None:
                for number in range(judged_from, len(decisions)):
                    answers[number] = NewAnswer(
                        Verdict.FAULT,
                        "",
                        "",
                        0.0,
                        f"the bot could not be started again: {self.broken}",
                    )
                break
            with asyncio.Runner(loop_factory=new_event_loop) as runner:
                done = runner.run(
                    _play(connection, frames, decisions, judged_from, skipped, answer_of)
                )
            answers.update(done.answers)
            if done.stopped_at is None:
                break
            self.close()  # its stream is broken, or a late answer would follow: start afresh
            skipped.add(done.stopped_at)
            judged_from = done.stopped_at + 1
        return answers


def ask_stream(
    stream: SeatStream,
    asker: Asker,
    *,
    at: AskedDecision | None = None,
    repeat: int = 1,
) -> AskReport:
    """Ask ``asker``'s bot every decision of ``stream`` (only ``at``, with the stream
    cut after its request), ``repeat`` times each (a fresh match stream each time)."""
    if repeat < 1:
        raise ValueError(f"--repeat must be at least 1, got {repeat}")
    wanted = stream.decisions if at is None else stream.decisions[: at.number + 1]
    frames = stream.frames if at is None else stream.frames[: at.frame + 1]
    coordinates = [(decision.frame, decision.request_id) for decision in wanted]
    codec = stream.codec
    requests: dict[int, pb.DecisionRequest] = {}

    def answer_of(number: int, reply: pb.DecisionReply, ms: float) -> NewAnswer:
        decision = stream.decisions[number]
        if number not in requests:
            requests[number] = stream.request(decision)
        return judge(stream, decision, requests[number], codec, decision.recorded, reply, ms)

    first = 0 if at is None else at.number
    rounds = [asker.run(frames, coordinates, first, answer_of) for _ in range(repeat)]
    chosen = wanted if at is None else [at]
    return AskReport(
        [
            DecisionResult(decision, [answers[decision.number] for answers in rounds])
            for decision in chosen
        ]
    )


def ask_position(position: Position, asker: Asker, *, repeat: int = 1) -> DecisionResult:
    """Ask ``asker``'s bot the decision of ``position``: its messages sent as a match
    stream, the last one asked (its earlier requests are asked too, not judged)."""
    if repeat < 1:
        raise ValueError(f"--repeat must be at least 1, got {repeat}")
    codec = codec_for(position.game_id)
    decisions: list[tuple[int, int]] = []
    for index, data in enumerate(position.messages):
        message = pb.RefereeMessage.FromString(data)
        if message.WhichOneof("body") == "decision":
            decisions.append((index, message.decision.request_id))
    if not decisions or decisions[-1][0] != len(position.messages) - 1:
        raise PositionError(f"{position.name}: its last message is not a decision request")
    last = len(decisions) - 1
    request = position.request
    recorded = position.recorded

    def answer_of(number: int, reply: pb.DecisionReply, ms: float) -> NewAnswer:
        return judge(None, None, request, codec, recorded, reply, ms)

    answers = [
        asker.run(position.messages, decisions, last, answer_of)[last] for _ in range(repeat)
    ]
    decision = AskedDecision(
        number=last,
        at=position.at,
        frame=len(position.messages) - 1,
        request_id=request.request_id,
        line=0,
        recorded=recorded,
    )
    return DecisionResult(decision, answers)
