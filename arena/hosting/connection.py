"""What the referee talks to: a bot behind gRPC, or one in the referee's own process."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import grpc
from grpc import aio as grpc_aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena import __version__
from arena.hosting.faults import BotFault, SeatStatus
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.protocol import PROTOCOL_VERSION, ProtocolError
from arena.sdk.bot import Bot, BotSession, report_crash

__all__ = [
    "MAX_MESSAGE_BYTES",
    "BotConnection",
    "GrpcConnection",
    "InProcessConnection",
    "handshake_request",
]

#: The largest message a bot may send (grpc's max_receive_message_length on the
#: referee's channels): a DecisionReply takes well under 1 KiB, so this only stops
#: a bot that would make the referee buffer megabytes.
MAX_MESSAGE_BYTES = 64 * 1024

_EXIT_WAIT = 0.5  # seconds to wait for a bot whose stream broke to be seen exiting
_CLOSE_GRACE = 1.0  # seconds a bot gets to end its match stream after the referee's
_PLAY_MATCH = "/{}/PlayMatch".format(pb.DESCRIPTOR.services_by_name["Bot"].full_name)
_CHANNEL_OPTIONS = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)]
_BOT_MESSAGE = pb.BotMessage.FromString
# Seats that fault this way cannot go on (the referee's own list, arena.referee.match).


def handshake_request() -> pb.HandshakeRequest:
    return pb.HandshakeRequest(
        protocol_version=PROTOCOL_VERSION, referee=f"rummy-arena {__version__}"
    )


def check_handshake(reply: pb.HandshakeReply, where: str) -> pb.HandshakeReply:
    if reply.protocol_version != PROTOCOL_VERSION:
        raise BotFault(
            SeatStatus.PROTOCOL_ERROR,
            f"{where} speaks protocol version {reply.protocol_version}, the referee {PROTOCOL_VERSION}",
        )
    if not reply.name:
        raise BotFault(SeatStatus.PROTOCOL_ERROR, f"{where} sent no name in its handshake")
    return reply


class BotConnection(Protocol):
    """One bot, as the referee uses it.  Every method raises ``BotFault`` on a bot's fault.

    The match methods are coroutines: the referee runs a match in one asyncio loop,
    so a decision costs one network round trip and no thread hand-offs.  Messages
    arrive serialized (``RefereeMessage`` bytes): the referee encodes a decision
    request from cached fragments and a lifecycle message once for every seat.
    """

    info: pb.HandshakeReply

    async def start_match(self) -> None:
        """Open the match stream."""

    async def send(self, message: bytes) -> None:
        """A lifecycle message; no reply expected."""

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        """Send decision request ``request_id``; ``BotFault(TIMEOUT)`` after ``timeout`` seconds."""

    async def end_match(self) -> None:
        """Close the match stream (the bot may stay up for another match)."""

    def close(self) -> None:
        """Drop the connection; idempotent."""


class GrpcConnection:
    """A bot served over gRPC (a process we started, or any address).

    Every message the bot writes is read by one reader task and judged as it
    arrives (``_judge``): the reply to the open request, a late reply to a request
    the referee stopped waiting for (dropped), or a fault (undecodable bytes,
    another message, a reply nobody asked for).  A fatal fault stops the reading,
    so a bot flooding its stream fills grpc's flow-control window and no memory.
    """

    def __init__(
        self, address: str, label: str, *, describe_exit: Callable[[], str] | None = None
    ) -> None:
        self.address = address
        self.label = label
        self._target = address.removeprefix("grpc://")
        self._describe_exit = describe_exit  # "process exited with status 3; stderr: ..." or ""
        self._channel: Any = None  # the match's grpc.aio channel
        self._call: Any = None  # the PlayMatch call
        self._replies: deque[pb.DecisionReply | BaseException] = deque()  # not yet awaited
        self._waiter: asyncio.Future[pb.DecisionReply | BaseException] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._owed = 0  # the request whose reply is awaited (0: none)
        self._last_asked = 0  # the latest request sent to this bot
        self._abandoned: set[int] = set()  # timed out: a late reply to one is dropped, once
        self.info = pb.HandshakeReply()

    def _exit_note(self) -> str:
        note = self._describe_exit() if self._describe_exit else ""
        return f" ({note})" if note else ""

    def wait_ready(self, timeout: float, *, limit: float | None = None) -> None:
        """Health check until SERVING, then the handshake: all within ``timeout`` seconds
        together.  ``limit`` is the whole start-up limit, as reasons name it (the
        launcher has already spent part of it starting the process)."""
        deadline = time.monotonic() + max(timeout, 0.0)
        channel = grpc.insecure_channel(self._target, options=_CHANNEL_OPTIONS)
        try:
            self.info = self._handshake(channel, deadline, timeout if limit is None else limit)
        finally:
            channel.close()

    def _handshake(self, channel: Any, deadline: float, limit: float) -> pb.HandshakeReply:
        late = BotFault(
            SeatStatus.START_FAILED,
            f"{self.label} not reachable at {self.address} within the start-up limit of "
            f"{limit:.1f} s{self._exit_note()}",
        )
        try:
            # wait_for_ready rather than channel_ready_future, whose polling of the
            # channel's state added 200 ms to every bot's start (bench_cold_ladder.py).
            status = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""),
                timeout=_left(deadline),
                wait_for_ready=True,
            )
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise late from None
            raise BotFault(
                SeatStatus.START_FAILED,
                f"{self.label} health check failed: {error.code().name} {error.details()}{self._exit_note()}",
            ) from None
        if status.status != health_pb2.HealthCheckResponse.SERVING:
            name = health_pb2.HealthCheckResponse.ServingStatus.Name(status.status)
            raise BotFault(SeatStatus.START_FAILED, f"{self.label} health status is {name}")
        if _left(deadline) <= 0:
            raise late
        try:
            reply = pb_grpc.BotStub(channel).Handshake(handshake_request(), timeout=_left(deadline))
        except grpc.RpcError as error:
            raise self._handshake_fault(error, limit) from None
        return check_handshake(reply, self.label)

    def _handshake_fault(self, error: grpc.RpcError, limit: float) -> BotFault:
        code, details = error.code(), error.details() or ""
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return BotFault(
                SeatStatus.START_FAILED,
                f"{self.label} did not answer the handshake within the start-up limit of "
                f"{limit:.1f} s{self._exit_note()}",
            )
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
            return BotFault(
                SeatStatus.START_FAILED,
                f"{self.label} went away during the handshake: {code.name} {details}{self._exit_note()}",
            )
        if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
            return BotFault(SeatStatus.PROTOCOL_ERROR, self._oversized(details))
        if code == grpc.StatusCode.INTERNAL and "deserializ" in details.lower():
            return BotFault(
                SeatStatus.PROTOCOL_ERROR,
                f"{self.label} answered the handshake with bytes that are not a HandshakeReply",
            )
        return BotFault(
            SeatStatus.PROTOCOL_ERROR,
            f"{self.label} refused the handshake: {code.name} {details}{self._exit_note()}",
        )

    def _oversized(self, details: str) -> str:
        return (
            f"{self.label} sent a message over the limit of {MAX_MESSAGE_BYTES} bytes "
            f"a bot message may have (grpc: {details})"
        )

    async def start_match(self) -> None:
        self._channel = grpc_aio.insecure_channel(self._target, options=_CHANNEL_OPTIONS)
        # No serializers: the referee hands over messages already serialized, and
        # reads the bot's bytes itself (``_judge``), so that undecodable bytes are the
        # bot's fault rather than a None from grpc's deserializer.
        self._call = call = self._channel.stream_stream(
            _PLAY_MATCH, request_serializer=None, response_deserializer=None
        )()
        # A bot may serve match after match on one connection: nothing carries over.
        self._replies.clear()
        self._abandoned.clear()
        self._owed = self._last_asked = 0

        async def read() -> None:
            try:
                async for raw in call:
                    item = self._judge(raw)
                    if item is not None:
                        self._deliver(item)
                        if isinstance(item, BotFault) and item.status.fatal:
                            return  # nothing after it counts: stop reading (a flood stops here)
                    # Let the waiting ``decide`` run first: asking grpc for the next
                    # message can wait, the referee's next move is the round trip.
                    await asyncio.sleep(0)
                self._deliver(EOFError("the bot closed its stream"))
            except grpc.RpcError as error:
                self._deliver(error)
            except asyncio.CancelledError:
                pass
            except Exception as error:  # a fault of this seat, never the referee's crash
                self._deliver(
                    BotFault(
                        SeatStatus.CRASHED,
                        f"{self.label}: reading its stream failed: {type(error).__name__}: {error}",
                    )
                )

        self._reader = asyncio.get_running_loop().create_task(read())

    def _judge(self, raw: bytes) -> pb.DecisionReply | BotFault | None:
        """What one message from the bot is: the reply to the open request, a fault,
        or ``None`` (a late reply to a request the referee stopped waiting for)."""
        owed = self._owed
        try:
            message = _BOT_MESSAGE(raw)
        except Exception as error:  # DecodeError, or whatever the parser raises
            if not owed:
                return BotFault(
                    SeatStatus.PROTOCOL_ERROR,
                    f"sent {len(raw)} bytes that are not a BotMessage while no request was open",
                )
            self._owed = 0
            return _ReplyFault(
                owed,
                SeatStatus.MALFORMED_REPLY,
                f"reply to request {owed} is not a BotMessage: {len(raw)} bytes that do not "
                f"decode ({type(error).__name__})",
            )
        if not message.HasField("decision"):
            return BotFault(
                SeatStatus.PROTOCOL_ERROR,
                f"expected a DecisionReply, got an empty BotMessage ({len(raw)} bytes: "
                "nothing set, or another message type)",
            )
        decision: pb.DecisionReply = message.decision
        request_id = decision.request_id
        if request_id == owed and owed:
            self._owed = 0
            return decision
        if request_id in self._abandoned:
            self._abandoned.discard(request_id)
            return None
        if request_id > self._last_asked:
            return BotFault(
                SeatStatus.PROTOCOL_ERROR,
                f"reply to unknown request {request_id}: not sent yet "
                f"(the latest request to this seat is {self._last_asked})",
            )
        return BotFault(
            SeatStatus.PROTOCOL_ERROR,
            f"reply to request {request_id}, which is not open: answered already or never "
            "sent to this seat (one reply per request)",
        )

    def _deliver(self, item: pb.DecisionReply | BaseException) -> None:
        """Hand a reply (or a fault, or how the stream ended) to the waiting ``decide``,
        else keep it."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(item)
        else:
            self._replies.append(item)

    async def _next_reply(self, deadline: float) -> pb.DecisionReply | BaseException:
        """The next reply; ``TimeoutError`` at ``deadline`` (loop time).  One future and
        one timer: lighter than a queue and a timeout context, on the hot path."""
        if self._replies:
            return self._replies.popleft()
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = loop.call_at(deadline, _expire, waiter)
        try:
            item: pb.DecisionReply | BaseException = await waiter
        finally:
            timer.cancel()
            self._waiter = None
        return item

    async def send(self, message: bytes) -> None:
        try:
            await self._call.write(message)
        except (grpc.RpcError, asyncio.InvalidStateError) as error:
            raise await self._broken_stream(error) from None
        except Exception as error:  # a fault of this seat, never the referee's crash
            raise BotFault(
                SeatStatus.CRASHED,
                f"{self.label}: writing to its stream failed: {type(error).__name__}: {error}",
            ) from None

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        deadline = asyncio.get_running_loop().time() + max(timeout, 0.0)
        self._owed = self._last_asked = request_id
        await self.send(message)
        while True:
            try:
                item = await self._next_reply(deadline)
            except TimeoutError:
                self._owed = 0
                self._abandoned.add(request_id)
                raise BotFault(
                    SeatStatus.TIMEOUT,
                    f"no reply to request {request_id} within {timeout * 1000:.0f} ms",
                ) from None
            if isinstance(item, pb.DecisionReply):
                if item.request_id == request_id:
                    return item
                continue  # the answer to an earlier request, come as its wait ran out
            if isinstance(item, _ReplyFault):
                if item.request_id == request_id:
                    raise item
                continue  # likewise
            self._replies.appendleft(item)  # the stream stays broken for later calls
            if isinstance(item, BotFault):
                raise item
            raise await self._broken_stream(item)

    async def late_reply(self, request_id: int, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the late reply to request ``request_id``,
        which ``decide`` stopped waiting for (it is dropped when it comes): True once it
        came, False if it did not in time or the stream ended first.  For a caller that
        would rather not send the bot its next message while it still works on the last
        one (``arena replay --ask``: the next request should find the bot as idle as it
        found it in the recorded match); the referee itself never waits."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(timeout, 0.0)
        while request_id in self._abandoned:
            reader = self._reader
            if reader is None or reader.done() or loop.time() >= deadline:
                return False
            await asyncio.sleep(0.01)
        return True

    async def _broken_stream(self, error: BaseException) -> BotFault:
        """The fault for a broken stream.  A dying process closes its socket a moment
        before it can be seen to exit: wait up to ``_EXIT_WAIT`` s for that, so the
        reason can say how it ended (exit status, stderr) instead of just "lost"."""
        known = isinstance(error, grpc.RpcError) and (
            "raised" in (error.details() or "")
            or error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # the referee's own limit
        )
        if self._describe_exit is not None and not known:
            deadline = asyncio.get_running_loop().time() + _EXIT_WAIT
            while not self._describe_exit() and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.01)
        return self._stream_fault(error)

    def _stream_fault(self, error: BaseException) -> BotFault:
        if isinstance(error, grpc.RpcError):
            code = error.code()
            details = error.details() or ""
            if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                return BotFault(SeatStatus.PROTOCOL_ERROR, self._oversized(details))
            if code == grpc.StatusCode.INTERNAL and "raised" in details:
                return BotFault(SeatStatus.CRASHED, f"{self.label}: {details}")
            if code in (
                grpc.StatusCode.UNAVAILABLE,
                grpc.StatusCode.CANCELLED,
                grpc.StatusCode.UNKNOWN,
                grpc.StatusCode.INTERNAL,
            ):
                return BotFault(
                    SeatStatus.CRASHED,
                    f"{self.label} connection lost: {code.name} {details}{self._exit_note()}",
                )
            return BotFault(
                SeatStatus.PROTOCOL_ERROR,
                f"{self.label} ended the match stream: {code.name} {details}",
            )
        return BotFault(SeatStatus.CRASHED, f"{self.label}: {error}{self._exit_note()}")

    async def end_match(self) -> None:
        """Half-close the stream, give the bot a moment to finish, then drop the channel.

        A bot still owing a reply (it hung or is still thinking) gets no moment:
        it would only make the match end a second later."""
        call, reader, channel = self._call, self._reader, self._channel
        self._call = self._reader = self._channel = None
        if call is not None:
            with contextlib.suppress(grpc.RpcError, asyncio.InvalidStateError):
                await call.done_writing()
        if reader is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.0 if self._owed else _CLOSE_GRACE):
                    await reader
            reader.cancel()
        if call is not None:
            call.cancel()
        if channel is not None:
            await channel.close()

    def close(self) -> None:
        """Nothing to do outside a match: the match channel closes in ``end_match``."""


class _ReplyFault(BotFault):
    """A fault that answers one request (a malformed reply): it counts for that
    request only, and is dropped if the referee stopped waiting for it meanwhile."""

    def __init__(self, request_id: int, status: SeatStatus, reason: str) -> None:
        super().__init__(status, reason)
        self.request_id = request_id


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.0)


def _expire(waiter: asyncio.Future[Any]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


class InProcessConnection:
    """A Python bot called directly in the referee's process (breakpoints work).

    Messages still go through the protocol conversion (the very bytes a bot
    process would receive), so the bot sees exactly what it would see over gRPC.
    There is no preemption: a timeout is noticed only after the bot returns.
    """

    def __init__(self, bot: Bot[Any, Any]) -> None:
        self.bot = bot
        self.label = bot.name
        self._session = BotSession(bot)
        try:
            self.info = check_handshake(self._session.handshake(handshake_request()), bot.name)
        except ProtocolError as error:
            raise BotFault(SeatStatus.PROTOCOL_ERROR, str(error)) from error

    async def start_match(self) -> None:
        self._session = BotSession(self.bot)

    async def send(self, message: bytes) -> None:
        try:
            self._session.handle(pb.RefereeMessage.FromString(message))
        except Exception:
            raise BotFault(SeatStatus.CRASHED, report_crash(self.bot)) from None

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        try:
            reply = self._session.handle(pb.RefereeMessage.FromString(message))
        except Exception:
            raise BotFault(SeatStatus.CRASHED, report_crash(self.bot)) from None
        assert reply is not None
        return reply.decision

    async def end_match(self) -> None:
        pass

    def close(self) -> None:
        pass
