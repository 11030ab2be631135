"""Serve a ``Bot`` over gRPC, as the arena starts it (docs/PROTOCOL.md, "Starting").

The server is grpc's asyncio one, on ``arena.eventloop``'s loop, and calls the bot
on the loop's own thread: no thread hand-off per message, which makes each round
trip cheaper (a referee against two trivial bots: about a quarter more decisions per
second than on grpc's thread-pool server).  So ``decide`` may block, but must not run
an event loop of its own (``asyncio.run``) inside the call.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc
from grpc import aio as grpc_aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.eventloop import new_event_loop
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.protocol import ProtocolError
from arena.sdk.bot import Bot, BotSession, report_crash

__all__ = ["ADDRESS_VARIABLE", "serve"]

ADDRESS_VARIABLE = "ARENA_BOT_ADDRESS"


class _Servicer(pb_grpc.BotServicer):
    def __init__(self, bot: Bot[Any, Any]) -> None:
        self._bot = bot

    async def Handshake(
        self, request: pb.HandshakeRequest, context: grpc_aio.ServicerContext[object, object]
    ) -> pb.HandshakeReply:
        try:
            return BotSession(self._bot).handshake(request)
        except ProtocolError as error:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))
            raise  # abort raises; this keeps type checkers content

    async def PlayMatch(
        self,
        request_iterator: AsyncIterator[pb.RefereeMessage],
        context: grpc_aio.ServicerContext[object, object],
    ) -> AsyncIterator[pb.BotMessage]:
        session = BotSession(self._bot)
        async for message in request_iterator:
            try:
                reply = session.handle(message)
            except Exception:
                await context.abort(grpc.StatusCode.INTERNAL, report_crash(self._bot))
                raise
            if reply is not None:
                yield reply


def serve(
    bot: Bot[Any, Any], address: str | None = None, argv: Sequence[str] | None = None
) -> None:
    """Serve ``bot`` until SIGTERM/SIGINT or until the referee shuts it down.

    The address comes from ``address``, else ``--address``, else the
    ``ARENA_BOT_ADDRESS`` environment variable set by the arena.
    """
    parser = argparse.ArgumentParser(description=f"Rummy Arena bot {bot.name}")
    parser.add_argument("--address", help=f"where to listen (default: ${ADDRESS_VARIABLE})")
    args = parser.parse_args(argv)
    address = address or args.address or os.environ.get(ADDRESS_VARIABLE)
    if not address:
        sys.exit(
            f"{bot.name}: no address: pass --address or set {ADDRESS_VARIABLE} (e.g. unix:/tmp/bot.sock)"
        )
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(_serve(bot, address))


async def _serve(bot: Bot[Any, Any], address: str) -> None:
    server = grpc_aio.server()
    pb_grpc.add_BotServicer_to_server(_Servicer(bot), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if server.add_insecure_port(address) == 0 and not address.startswith("unix:"):
        sys.exit(f"{bot.name}: cannot listen on {address}")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    print(f"{bot.name} listening on {address}", file=sys.stderr, flush=True)
    await stop.wait()
    await health_servicer.enter_graceful_shutdown()
    await server.stop(grace=1)
