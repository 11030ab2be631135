"""Test bot: looks for what an earlier bot of its command may have left (in the memory
of a module its template preloads, in its environment, in $HOME, in /tmp), prints one
JSON line {"found": [...], "left": [...]} on stdout, leaves the same marks, then serves
grpc.health.v1 until killed."""

import json
import os
import sys
from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

MARK = "left by an earlier match"
places = {
    "memory": lambda: getattr(grpc, "arena_test_mark", None) == MARK,
    "environment": lambda: os.environ.get("ARENA_TEST_MARK") == MARK,
    "home": lambda: (Path.home() / "mark").exists(),
    "tmp": lambda: Path("/tmp/mark").exists(),
}
found = [place for place, seen in places.items() if seen()]
grpc.arena_test_mark = MARK
os.environ["ARENA_TEST_MARK"] = MARK
(Path.home() / "mark").write_text(MARK)
Path("/tmp/mark").write_text(MARK)
left = [place for place, seen in places.items() if seen()]
print(json.dumps({"found": found, "left": left}), flush=True)

server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
servicer = health.HealthServicer()
servicer.set("", health_pb2.HealthCheckResponse.SERVING)
health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
server.add_insecure_port(os.environ["ARENA_BOT_ADDRESS"])
server.start()
sys.stdout.flush()
server.wait_for_termination()
