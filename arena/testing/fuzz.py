"""Fuzzing the referee through a real gRPC connection (needs the ``test`` extra: hypothesis).

A :class:`FuzzBot` is a bot server in the test's own process, on a Unix socket,
whose ``PlayMatch`` answers each decision request with the bytes a :class:`Recipe`
makes of it: random bytes, or a valid reply (an index or a full action) with its
request id shifted and its bytes flipped, inserted, deleted or cut, sometimes sent
more than once.  The referee reaches it with its own ``GrpcConnection``, as it
reaches any bot.

:func:`fuzz_matches` plays matches against ``random`` with scripts of recipes and
checks, for every case: no exception escaped the referee, the seat got a verdict
(an accepted action or a fault), and that verdict is the one :func:`expected`
predicts from the bytes alone (decoding, request id, index range), until a case
with extra messages makes the next verdicts depend on when the referee read them.
"""

from __future__ import annotations

import tempfile
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from hypothesis import strategies as st

from arena.bots import RandomBot
from arena.cards import ALL_CARDS
from arena.games.spec import GameSpec
from arena.hosting.connection import GrpcConnection, InProcessConnection
from arena.hosting.faults import SeatStatus
from arena.proto import bot_pb2 as pb
from arena.protocol import PROTOCOL_VERSION
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.observers import MatchObserver
from arena.referee.results import SeatRecord
from arena.referee.settings import FaultMode, FaultPolicy, TimeControl
from arena.replays.records import ActionRecord, FaultRecordLine, Record

__all__ = ["OK", "FuzzBot", "FuzzStats", "Recipe", "expected", "fuzz_matches", "scripts"]

#: The verdict of a decision whose reply was accepted.
OK = "ok"
_EDITS = ("flip", "insert", "delete", "truncate")
_CARDS = (*(str(card) for card in ALL_CARDS), "JK")
# Generous: a fuzzed reply comes at once, so only a case that sends nothing could time
# out, and recipes always send something.
_TIME = TimeControl(startup_ms=10_000, decision_ms=10_000, bank_ms=0)


@dataclass(frozen=True)
class Recipe:
    """How to answer one decision request.

    ``raw`` set: send those bytes as they are.  Otherwise a valid reply: legal action
    ``pick`` (modulo their number) as ``legal_index`` or, with ``full_action``, as
    the action itself; ``index_shift`` added to the index, ``id_shift`` to the
    request id; then the byte ``edits`` (kind, position, value), and ``copies``
    more copies of the result after it."""

    raw: bytes | None = None
    pick: int = 0
    full_action: bool = False
    index_shift: int = 0
    id_shift: int = 0
    edits: tuple[tuple[str, int, int], ...] = ()
    copies: int = 0
    card: str | None = None  # with ``full_action``: this card in place of the action's first

    def messages(self, request: pb.DecisionRequest) -> list[bytes]:
        if self.raw is not None:
            data = self.raw
        else:
            reply = pb.DecisionReply(request_id=max(0, request.request_id + self.id_shift))
            count = len(request.legal_actions)
            pick = self.pick % count if count else 0
            if self.full_action and count:
                reply.action.CopyFrom(request.legal_actions[pick])
                if self.card is not None:
                    _swap_card(reply.action, self.card)
            else:
                reply.legal_index = max(0, min(pick + self.index_shift, 2**32 - 1))
            data = _edit(pb.BotMessage(decision=reply).SerializeToString(), self.edits)
        return [data] * (1 + self.copies)


def _swap_card(action: pb.Action, card: str) -> None:
    """``card`` in place of the action's first card (a discard's, a knock's, a meld's)."""
    kind = action.WhichOneof("kind")
    if kind == "discard":
        action.discard.card = card
    elif kind == "knock":
        action.knock.card = card
    elif kind == "defend" and action.defend.melds and action.defend.melds[0].cards:
        action.defend.melds[0].cards[0] = card


def _edit(data: bytes, edits: Sequence[tuple[str, int, int]]) -> bytes:
    buffer = bytearray(data)
    for kind, position, value in edits:
        at = position % (len(buffer) + 1)
        if kind == "flip" and buffer:
            buffer[at % len(buffer)] ^= value or 1
        elif kind == "insert":
            buffer[at:at] = bytes([value])
        elif kind == "delete" and buffer:
            del buffer[at % len(buffer)]
        elif kind == "truncate":
            del buffer[at:]
    return bytes(buffer)


def expected(data: bytes, request: pb.DecisionRequest) -> frozenset[str]:
    """The verdicts the referee may give a decision whose first reply is ``data``:
    told from the bytes and the request alone (an action's legality is the engine's)."""
    try:
        message = pb.BotMessage.FromString(data)
    except Exception:  # whatever the parser raises: bytes that do not decode
        return frozenset({SeatStatus.MALFORMED_REPLY.value})
    if not message.HasField("decision"):
        return frozenset({SeatStatus.PROTOCOL_ERROR.value})
    reply = message.decision
    if reply.request_id != request.request_id:
        return frozenset({SeatStatus.PROTOCOL_ERROR.value})
    choice = reply.WhichOneof("choice")
    if choice == "legal_index":
        ok = reply.legal_index < len(request.legal_actions)
        return frozenset({OK if ok else SeatStatus.MALFORMED_REPLY.value})
    if choice == "action":
        return frozenset({OK, SeatStatus.MALFORMED_REPLY.value, SeatStatus.ILLEGAL_ACTION.value})
    return frozenset({SeatStatus.MALFORMED_REPLY.value})


# -- hypothesis strategies -----------------------------------------------------------------

_edit_strategy = st.tuples(st.sampled_from(_EDITS), st.integers(0, 300), st.integers(0, 255))

#: Random bytes, empty included.
random_bytes = st.builds(Recipe, raw=st.binary(max_size=80))
#: A valid reply, as an index or a full action: so that matches go on to later decisions.
valid = st.builds(Recipe, pick=st.integers(0, 1000), full_action=st.booleans())
#: A valid reply with its index, request id or bytes changed, or sent more than once.
mutated = st.builds(
    Recipe,
    pick=st.integers(0, 1000),
    full_action=st.booleans(),
    index_shift=st.one_of(st.just(0), st.just(0), st.integers(-2, 2), st.integers(0, 2**32)),
    id_shift=st.one_of(st.just(0), st.just(0), st.integers(-3, 3), st.integers(1, 10**6)),
    edits=st.one_of(st.just(()), st.lists(_edit_strategy, min_size=1, max_size=3).map(tuple)),
    copies=st.sampled_from((0, 0, 0, 0, 0, 0, 0, 0, 1, 3)),
    card=st.one_of(st.none(), st.sampled_from(_CARDS), st.text(max_size=3)),
)
recipes = st.one_of(random_bytes, valid, valid, mutated, mutated, mutated)


def scripts(max_size: int = 24) -> st.SearchStrategy[list[Recipe]]:
    """The replies of one match, one recipe per decision."""
    return st.lists(recipes, min_size=1, max_size=max_size)


# -- the bot -------------------------------------------------------------------------------


@dataclass
class _Asked:
    request: pb.DecisionRequest
    messages: list[bytes]
    copies: bool


class FuzzBot:
    """A bot server in this process whose replies follow ``script``; ``with`` it."""

    name = "fuzz"

    def __init__(self) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="arena-fuzz-"))
        self.address = f"unix:{self._folder / 'bot.sock'}"
        self.script: list[Recipe] = []
        self.asked: list[_Asked] = []
        self._match = 0  # which match's script is loaded (one PlayMatch stream a match)
        self._lock = threading.Lock()
        self._server: Any = None

    def __enter__(self) -> FuzzBot:
        handlers = {
            "Handshake": grpc.unary_unary_rpc_method_handler(
                self._handshake,
                request_deserializer=pb.HandshakeRequest.FromString,
                response_serializer=pb.HandshakeReply.SerializeToString,
            ),
            "PlayMatch": grpc.stream_stream_rpc_method_handler(
                self._play,
                request_deserializer=pb.RefereeMessage.FromString,
                response_serializer=None,
            ),
        }
        service = pb.DESCRIPTOR.services_by_name["Bot"].full_name
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
        health_servicer = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        server.add_insecure_port(self.address)
        server.start()
        health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        self._server = server
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stop(grace=None)
        (self._folder / "bot.sock").unlink(missing_ok=True)
        self._folder.rmdir()

    def play(self, script: list[Recipe]) -> None:
        """Answer the next match's decisions with ``script`` (then legally, index 0)."""
        with self._lock:
            self.script = list(script)
            self.asked = []
            self._match += 1

    def _handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeReply:
        return pb.HandshakeReply(
            name=self.name, version="1.0", protocol_version=PROTOCOL_VERSION, games=["gin-rummy/*"]
        )

    def _play(self, requests: Iterator[pb.RefereeMessage], context: Any) -> Iterator[bytes]:
        with self._lock:
            match = self._match
        for message in requests:
            if message.WhichOneof("body") != "decision":
                continue
            with self._lock:
                if match == self._match:
                    recipe = self.script.pop(0) if self.script else Recipe()
                    messages = recipe.messages(message.decision)
                    self.asked.append(_Asked(message.decision, messages, recipe.copies > 0))
                else:
                    # A request of an earlier match read late (a queued extra message had
                    # answered it): it must not take the next match's first recipe.
                    messages = Recipe().messages(message.decision)
            yield from messages


# -- playing and judging -------------------------------------------------------------------


@dataclass
class FuzzStats:
    """What a fuzzing run saw.  ``escaped`` and ``wrong`` must stay empty."""

    cases: int = 0  # decisions answered by a recipe
    matches: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    escaped: list[str] = field(default_factory=list)  # exceptions out of play_match
    wrong: list[str] = field(default_factory=list)  # verdicts other than predicted, or missing


class _Verdicts(MatchObserver):
    """A match observer: each decision of the fuzzed seat, accepted or faulted, in order."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.seen: list[str] = []
        self._replaced = False

    def on_record(self, record: Record) -> None:
        if isinstance(record, FaultRecordLine) and record.seat == self.seat and record.game >= 0:
            self.seen.append(record.status)
        elif isinstance(record, ActionRecord) and record.seat == self.seat and not record.replaced:
            self.seen.append(OK)


def fuzz_matches(
    bot: FuzzBot,
    connection: GrpcConnection,
    spec: GameSpec,
    scripts: Sequence[Sequence[Recipe]],
    stats: FuzzStats,
    *,
    seed: int = 0,
) -> None:
    """Play one single-hand match per script, the fuzzed bot in seat 0 against
    ``random``, and judge every decision into ``stats``."""
    policy = FaultPolicy(FaultMode.RANDOM, 10**6)  # non-fatal faults keep the match going
    for number, script in enumerate(scripts):
        bot.play(list(script))
        config = MatchConfig(
            spec, games=1, seed=seed + number, hands_only=True, time_control=_TIME,
            fault_policy=policy,
        )  # fmt: skip
        opponent = InProcessConnection(RandomBot(seed + number))
        verdicts = _Verdicts(0)
        counted = _Counted(connection)
        seats = [Seat(counted, "fuzz"), Seat(opponent, "random")]
        try:
            result = play_match(config, seats, [verdicts])
        except Exception as error:  # the one thing that must never happen
            stats.escaped.append(f"{type(error).__name__}: {error} (script {script})")
            continue
        stats.matches += 1
        _judge(bot, script, counted.decisions, verdicts.seen, result.seats[0], stats)


class _Counted:
    """The fuzzed bot's connection, counting the decisions the referee asks of it."""

    def __init__(self, inner: GrpcConnection) -> None:
        self.inner = inner
        self.info = inner.info
        self.decisions = 0

    async def start_match(self) -> None:
        await self.inner.start_match()

    async def send(self, message: bytes) -> None:
        await self.inner.send(message)

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        self.decisions += 1
        return await self.inner.decide(message, request_id, timeout)

    async def end_match(self) -> None:
        await self.inner.end_match()

    def close(self) -> None:
        self.inner.close()


def _judge(
    bot: FuzzBot,
    script: Sequence[Recipe],
    decisions: int,
    seen: list[str],
    record: SeatRecord,
    stats: FuzzStats,
) -> None:
    # The bot may not have read the last request yet when a queued fault answered it.
    asked = bot.asked[: min(len(script), decisions)]  # past the script it answers legally
    stats.cases += min(len(script), decisions)
    if len(seen) != decisions or len(record.decision_seconds) != decisions:
        stats.wrong.append(
            f"{decisions} decisions asked, {len(seen)} verdicts, "
            f"{len(record.decision_seconds)} timed (script {list(script)})"
        )
        return
    if (record.status is SeatStatus.OK) != (not record.faults):
        stats.wrong.append(f"seat status {record.status} with faults {record.faults}")
    in_sync = True
    for verdict in seen[: min(len(script), decisions)]:
        stats.verdicts[verdict] += 1
    for case, verdict in zip(asked, seen, strict=False):
        if in_sync and verdict not in expected(case.messages[0], case.request):
            stats.wrong.append(
                f"request {case.request.request_id}: {case.messages[0]!r} got {verdict}, "
                f"expected one of {sorted(expected(case.messages[0], case.request))}"
            )
        # Extra messages are judged when they are read: what follows depends on timing.
        in_sync = in_sync and not case.copies
