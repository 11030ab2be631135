"""Test bot: serves grpc.health.v1 (SERVING) on $ARENA_BOT_ADDRESS until killed.

With --no-health it serves gRPC without the health service. Never imports arena.
"""

import os
import sys
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
if "--no-health" not in sys.argv:
    servicer = health.HealthServicer()
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
server.add_insecure_port(os.environ["ARENA_BOT_ADDRESS"])
server.start()
server.wait_for_termination()
