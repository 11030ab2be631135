"""Referee throughput over gRPC against bare gRPC round trips, measured in one run.

Run:  python benchmarks/bench_protocol.py [--quick] [--rounds N]

* referee: decisions per second of a whole match between two trivial bots (each
  its own process, over Unix sockets), everything included: engine, messages,
  clocks, fault checks.
* bare stream: round trips per second on one PlayMatch stream to a server that
  answers at once, sending real decision requests of the same sizes.
* bare unary: the same with one unary call per round trip (a Handshake carrying
  a padding string of the mean request size).

Prints the median of the rounds and the ratio referee / bare stream.
"""

from __future__ import annotations

import argparse
import queue
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc

from arena.games.registry import find_game
from arena.hosting.connection import GrpcConnection
from arena.hosting.limits import Limits
from arena.hosting.manifest import BotCommand
from arena.hosting.process import BotProcess
from arena.hosting.sandbox import SandboxLevel
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.protocol import codec_for
from arena.referee.match import MatchConfig, Seat, play_match

HERE = Path(__file__).resolve().parent


def start(script: str, name: str, run_dir: Path) -> BotProcess:
    command = BotCommand(name, (sys.executable, str(HERE / script)), None, {}, Limits(), script)
    process = BotProcess.start(command, SandboxLevel.NONE, run_dir)
    process.wait_ready(20)
    return process


def sample_requests(count: int) -> list[pb.DecisionRequest]:
    """Real decision requests from random play, in order."""
    spec = find_game("gin-rummy/standard")
    codec = codec_for(spec.id)
    rng = random.Random(7)
    requests: list[pb.DecisionRequest] = []
    seed = 0
    while len(requests) < count:
        table = codec.new_table(spec.id, spec.new_game(seed, 2, hands_only=True))
        while not table.is_terminal() and len(requests) < count:
            seat = table.current_seat()
            table.hand_started()
            requests.append(table.decision(seat, 0, len(requests) + 1).decision)
            table.apply(rng.choice(table.legal), seat)
        seed += 1
    return requests


def referee_rate(addresses: list[str], games: int) -> float:
    spec = find_game("gin-rummy/standard")
    connections = [GrpcConnection(address, f"bot{i}") for i, address in enumerate(addresses)]
    for connection in connections:
        connection.wait_ready(10)
    seats = [Seat(connection, f"bot{i}") for i, connection in enumerate(connections)]
    started = time.perf_counter()
    result = play_match(MatchConfig(spec, games=games, seed=1), seats)
    elapsed = time.perf_counter() - started
    for connection in connections:
        connection.close()
    decisions = sum(len(seat.decision_seconds) for seat in result.seats)
    assert not any(seat.faults for seat in result.seats), "the trivial bots must not fault"
    return decisions / elapsed


def bare_stream_rate(address: str, requests: list[pb.DecisionRequest]) -> float:
    channel = grpc.insecure_channel(address)
    stub = pb_grpc.BotStub(channel)
    outgoing: queue.SimpleQueue[pb.RefereeMessage | None] = queue.SimpleQueue()

    def feed() -> Iterator[pb.RefereeMessage]:
        while (item := outgoing.get()) is not None:
            yield item

    replies = stub.PlayMatch(feed())
    messages = [pb.RefereeMessage(decision=request) for request in requests]
    started = time.perf_counter()
    for message in messages:
        outgoing.put(message)
        next(replies)
    elapsed = time.perf_counter() - started
    outgoing.put(None)
    channel.close()
    return len(messages) / elapsed


def bare_unary_rate(address: str, count: int, size: int) -> float:
    channel = grpc.insecure_channel(address)
    stub = pb_grpc.BotStub(channel)
    request = pb.HandshakeRequest(protocol_version=1, referee="x" * size)
    started = time.perf_counter()
    for _ in range(count):
        stub.Handshake(request, timeout=10)
    elapsed = time.perf_counter() - started
    channel.close()
    return count / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a short run (smoke test)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rounds = 2 if args.quick else args.rounds
    games = 2 if args.quick else 10
    requests = sample_requests(300 if args.quick else 3000)
    mean_size = round(statistics.fmean(pb.RefereeMessage(decision=r).ByteSize() for r in requests))
    run_dir = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    bots = [start("trivial_bot.py", f"trivial{i}", run_dir) for i in range(2)]
    bare = start("bare_bot.py", "bare", run_dir)
    results: dict[str, list[float]] = {"referee": [], "stream": [], "unary": []}
    try:
        for _ in range(rounds):
            results["referee"].append(referee_rate([bot.address for bot in bots], games))
            results["stream"].append(bare_stream_rate(bare.address, requests))
            results["unary"].append(bare_unary_rate(bare.address, len(requests) // 2, mean_size))
    finally:
        for process in [*bots, bare]:
            process.kill()
    median = {key: statistics.median(values) for key, values in results.items()}
    print(f"mean decision request: {mean_size} bytes; {rounds} rounds; medians (min-max)")
    print("| measurement | per second | range |")
    print("|---|---|---|")
    labels = {
        "referee": "referee decisions, 2 trivial bots",
        "stream": "bare round trips, one stream",
        "unary": "bare round trips, unary calls",
    }
    for key, label in labels.items():
        values = results[key]
        print(f"| {label} | {median[key]:,.0f} | {min(values):,.0f}-{max(values):,.0f} |")
    print(f"| referee / bare stream | {median['referee'] / median['stream']:.0%} | |")
    print(f"| bare stream / bare unary | {median['stream'] / median['unary']:.2f}x | |")


if __name__ == "__main__":
    main()
