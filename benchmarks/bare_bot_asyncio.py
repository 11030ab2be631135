"""The bare gRPC baseline on grpc's asyncio server (and the referee's event loop):
answers each message at once, nothing else.  The SDK serves bots on this kind of
server, so this is the like-for-like baseline of a match's round trips."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

from grpc import aio as grpc_aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.eventloop import new_event_loop
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc


class Echo(pb_grpc.BotServicer):
    async def Handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeReply:
        return pb.HandshakeReply(name="bare-asyncio", protocol_version=1)

    async def PlayMatch(
        self, requests: AsyncIterator[pb.RefereeMessage], context: Any
    ) -> AsyncIterator[pb.BotMessage]:
        async for message in requests:
            yield pb.BotMessage(
                decision=pb.DecisionReply(request_id=message.decision.request_id, legal_index=0)
            )


async def main() -> None:
    server = grpc_aio.server()
    pb_grpc.add_BotServicer_to_server(Echo(), server)
    status = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(status, server)
    server.add_insecure_port(os.environ["ARENA_BOT_ADDRESS"])
    await server.start()
    await status.set("", health_pb2.HealthCheckResponse.SERVING)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await server.stop(0)


if __name__ == "__main__":
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(main())
