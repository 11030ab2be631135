"""What the referee talks to: a bot behind gRPC, or one in the referee's own process."""

from __future__ import annotations

import asyncio
import contextlib
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

__all__ = ["BotConnection", "GrpcConnection", "InProcessConnection", "handshake_request"]

_EXIT_WAIT = 0.5  # seconds to wait for a bot whose stream broke to be seen exiting
_CLOSE_GRACE = 1.0  # seconds a bot gets to end its match stream after the referee's
_PLAY_MATCH = "/{}/PlayMatch".format(pb.DESCRIPTOR.services_by_name["Bot"].full_name)


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
    """A bot served over gRPC (a process we started, or any address)."""

    def __init__(
        self, address: str, label: str, *, describe_exit: Callable[[], str] | None = None
    ) -> None:
        self.address = address
        self.label = label
        self._target = address.removeprefix("grpc://")
        self._describe_exit = describe_exit  # "process exited with status 3; stderr: ..." or ""
        self._channel: Any = None  # the match's grpc.aio channel
        self._call: Any = None  # the PlayMatch call
        self._replies: deque[pb.BotMessage | BaseException] = deque()  # not yet awaited
        self._waiter: asyncio.Future[pb.BotMessage | BaseException] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._owed = False  # a decision request is still unanswered
        self.info = pb.HandshakeReply()

    def _exit_note(self) -> str:
        note = self._describe_exit() if self._describe_exit else ""
        return f" ({note})" if note else ""

    def wait_ready(self, timeout: float) -> None:
        """Health check until SERVING, then the handshake; all within ``timeout``."""
        channel = grpc.insecure_channel(self._target)
        try:
            self.info = self._handshake(channel, timeout)
        finally:
            channel.close()

    def _handshake(self, channel: Any, timeout: float) -> pb.HandshakeReply:
        try:
            grpc.channel_ready_future(channel).result(timeout=timeout)
            status = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout
            )
        except grpc.FutureTimeoutError:
            raise BotFault(
                SeatStatus.START_FAILED,
                f"{self.label} not reachable at {self.address} within {timeout:.1f}s{self._exit_note()}",
            ) from None
        except grpc.RpcError as error:
            raise BotFault(
                SeatStatus.START_FAILED,
                f"{self.label} health check failed: {error.code().name} {error.details()}{self._exit_note()}",
            ) from None
        if status.status != health_pb2.HealthCheckResponse.SERVING:
            name = health_pb2.HealthCheckResponse.ServingStatus.Name(status.status)
            raise BotFault(SeatStatus.START_FAILED, f"{self.label} health status is {name}")
        try:
            reply = pb_grpc.BotStub(channel).Handshake(handshake_request(), timeout=timeout)
        except grpc.RpcError as error:
            raise BotFault(
                SeatStatus.PROTOCOL_ERROR,
                f"{self.label} refused the handshake: {error.code().name} {error.details()}{self._exit_note()}",
            ) from None
        return check_handshake(reply, self.label)

    async def start_match(self) -> None:
        self._channel = grpc_aio.insecure_channel(self._target)
        # No request serializer: the referee hands over messages already serialized.
        self._call = call = self._channel.stream_stream(
            _PLAY_MATCH, request_serializer=None, response_deserializer=pb.BotMessage.FromString
        )()
        self._replies.clear()
        self._owed = False

        async def read() -> None:
            try:
                async for message in call:
                    self._deliver(message)
                    # Let the waiting ``decide`` run first: asking grpc for the next
                    # message can wait, the referee's next move is the round trip.
                    await asyncio.sleep(0)
                self._deliver(EOFError("the bot closed its stream"))
            except grpc.RpcError as error:
                self._deliver(error)
            except asyncio.CancelledError:
                pass

        self._reader = asyncio.get_running_loop().create_task(read())

    def _deliver(self, item: pb.BotMessage | BaseException) -> None:
        """Hand a reply (or how the stream ended) to the waiting ``decide``, else keep it."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(item)
        else:
            self._replies.append(item)

    async def _next_reply(self, deadline: float) -> pb.BotMessage | BaseException:
        """The next reply; ``TimeoutError`` at ``deadline`` (loop time).  One future and
        one timer: lighter than a queue and a timeout context, on the hot path."""
        if self._replies:
            return self._replies.popleft()
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = loop.call_at(deadline, _expire, waiter)
        try:
            item: pb.BotMessage | BaseException = await waiter
        finally:
            timer.cancel()
            self._waiter = None
        return item

    async def send(self, message: bytes) -> None:
        try:
            await self._call.write(message)
        except (grpc.RpcError, asyncio.InvalidStateError) as error:
            raise await self._broken_stream(error) from None

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        deadline = asyncio.get_running_loop().time() + max(timeout, 0.0)
        self._owed = True
        await self.send(message)
        while True:
            try:
                item = await self._next_reply(deadline)
            except TimeoutError:
                raise BotFault(
                    SeatStatus.TIMEOUT,
                    f"no reply to request {request_id} within {timeout * 1000:.0f} ms",
                ) from None
            if isinstance(item, BaseException):
                self._replies.appendleft(item)  # the stream stays broken for later calls
                raise await self._broken_stream(item)
            if item.WhichOneof("body") != "decision":
                raise BotFault(
                    SeatStatus.PROTOCOL_ERROR,
                    f"expected a DecisionReply, got {item.WhichOneof('body') or 'an empty BotMessage'}",
                )
            decision = item.decision
            if decision.request_id == request_id:
                self._owed = False
                return decision
            if decision.request_id > request_id:
                raise BotFault(
                    SeatStatus.PROTOCOL_ERROR, f"reply to unknown request {decision.request_id}"
                )
            # else: a late reply to an earlier request that already timed out: drop it

    async def _broken_stream(self, error: BaseException) -> BotFault:
        """The fault for a broken stream.  A dying process closes its socket a moment
        before it can be seen to exit: wait up to ``_EXIT_WAIT`` s for that, so the
        reason can say how it ended (exit status, stderr) instead of just "lost"."""
        raised = isinstance(error, grpc.RpcError) and "raised" in (error.details() or "")
        if self._describe_exit is not None and not raised:
            deadline = asyncio.get_running_loop().time() + _EXIT_WAIT
            while not self._describe_exit() and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.01)
        return self._stream_fault(error)

    def _stream_fault(self, error: BaseException) -> BotFault:
        if isinstance(error, grpc.RpcError):
            code = error.code()
            details = error.details() or ""
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


def _expire(waiter: asyncio.Future[Any]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


class InProcessConnection:
    """A Python bot called directly in the referee's process (breakpoints work).

    Messages still go through the protocol conversion (the very bytes a bot
    process would receive), so the bot sees exactly what it would see over gRPC.
    There is no preemption: a timeout is noticed only after the bot returns.
    """

    def __init__(self, bot: Bot) -> None:
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
