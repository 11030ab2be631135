"""Serve a ``Bot`` over gRPC, as the arena starts it (docs/PROTOCOL.md, "Starting")."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.protocol import ProtocolError
from arena.sdk.bot import Bot, BotSession, report_crash

__all__ = ["ADDRESS_VARIABLE", "serve"]

ADDRESS_VARIABLE = "ARENA_BOT_ADDRESS"


class _Servicer(pb_grpc.BotServicer):
    def __init__(self, bot: Bot) -> None:
        self._bot = bot

    def Handshake(
        self, request: pb.HandshakeRequest, context: grpc.ServicerContext
    ) -> pb.HandshakeReply:
        try:
            return BotSession(self._bot).handshake(request)
        except ProtocolError as error:
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))
            raise  # abort raises; this keeps type checkers content

    def PlayMatch(
        self, request_iterator: Iterator[pb.RefereeMessage], context: grpc.ServicerContext
    ) -> Iterator[pb.BotMessage]:
        session = BotSession(self._bot)
        for message in request_iterator:
            try:
                reply = session.handle(message)
            except Exception:
                context.abort(grpc.StatusCode.INTERNAL, report_crash(self._bot))
                raise
            if reply is not None:
                yield reply


def serve(bot: Bot, address: str | None = None, argv: Sequence[str] | None = None) -> None:
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
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_BotServicer_to_server(_Servicer(bot), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if server.add_insecure_port(address) == 0 and not address.startswith("unix:"):
        sys.exit(f"{bot.name}: cannot listen on {address}")
    server.start()
    health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    print(f"{bot.name} listening on {address}", file=sys.stderr, flush=True)
    while not stop.wait(0.5):  # a short wait keeps the signal handler responsive
        pass
    health_servicer.enter_graceful_shutdown()
    server.stop(grace=1).wait()
