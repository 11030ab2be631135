"""The bare gRPC baseline: a server that answers each message at once, nothing else."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc


class Echo(pb_grpc.BotServicer):
    def Handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeReply:
        return pb.HandshakeReply(name="bare", protocol_version=1)

    def PlayMatch(
        self, requests: Iterator[pb.RefereeMessage], context: Any
    ) -> Iterator[pb.BotMessage]:
        for message in requests:
            yield pb.BotMessage(
                decision=pb.DecisionReply(request_id=message.decision.request_id, legal_index=0)
            )


if __name__ == "__main__":
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_BotServicer_to_server(Echo(), server)
    status = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(status, server)
    server.add_insecure_port(os.environ["ARENA_BOT_ADDRESS"])
    server.start()
    status.set("", health_pb2.HealthCheckResponse.SERVING)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
    server.stop(0)
