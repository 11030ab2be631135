"""Referee throughput over gRPC against bare gRPC round trips, measured in one run.

Run:  python benchmarks/bench_protocol.py [--quick] [--rounds N]

* referee: decisions per second of a whole match between two trivial bots (each
  its own process, over Unix sockets), everything included: engine, messages,
  clocks, fault checks.
* referee alone: the same match against instant replies in the referee's own
  process (the trivial bots' answer, no transport): the referee's own work per
  decision, in microseconds.
* bare stream: round trips per second on one PlayMatch stream to a server that
  answers at once, sending real decision requests of the same sizes.
* bare stream, asyncio server: the same against an echo server on grpc's asyncio
  server, the kind the SDK serves bots on (the like-for-like baseline; the first
  is grpc's thread-pool server, the simplest there is).
* bare, two servers: the same, alternating between two such servers two round
  trips at a time, as a Gin match alternates between its seats (a diagnostic: how
  much of the gap is the second process rather than the referee).
* referee's work in a match: in a real match like the first line's, the time from
  a bot's reply reaching the referee to the referee's next request (engine, legal
  actions, request building, hand ends), in microseconds: what the referee adds to
  the round trips, under the match's own load (a diagnostic, not the headline:
  timing it adds a little).
* referee's messages replayed: the very messages a referee match sent the two
  trivial bots, sent again through the referee's connections with no game in
  between (a diagnostic: the referee's transport; what it lacks to the referee
  line is the referee's own work per decision).  Its CPU per decision, each end
  against the same end in the match, shows what the game costs each end: the bots
  answer the same messages in both, so all they pay more in the match is for
  waking up after the longer waits the game's work makes.
* bare unary: one unary call per round trip (a Handshake carrying a padding
  string of the mean request size).
* CPU per decision (the headline since issue 21): the CPU time a decision costs both
  ends together, user and system, in microseconds: for the referee, this process's
  CPU during a match against two trivial SDK bots plus the bots' own (from
  ``/proc``), over the match's decisions; for the **bare aio pair**, the fastest bare
  Python pair there is (a ``grpc.aio`` client on the referee's event loop, one
  bidirectional stream over a Unix socket, against the ``grpc.aio`` echo server),
  this process's CPU plus the server's, over the round trips. Each round plays a
  match of its own seed and sends the bare pair the requests of that seed's deals.
  Target: bare / referee at least 0.85.  In a match the two seats take turns, so each
  bot sleeps while the other plays and wakes for its next request; the **bare aio pair
  with two servers in turn** pays the same and is the like-for-like figure.
  ``--gaps`` shows that price alone: the bare server's CPU per round trip when the
  client idles between round trips.  Each round also splits both figures by end: the
  asking end (the referee; the bare client) and the answering end (the two bots; the
  two bare servers), so that the gap can be placed on one side or the other.

The measurements take turns, round after round, so that a noisy spell on this
shared machine hits all of them; the ratios are the medians of each round's own
ratio (paired), the rates the medians over rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import queue
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import grpc
from flavour import flavour

from arena.eventloop import new_event_loop
from arena.games.registry import find_game
from arena.hosting.connection import BotConnection, GrpcConnection
from arena.hosting.limits import Limits
from arena.hosting.manifest import BotCommand
from arena.hosting.process import BotProcess
from arena.hosting.sandbox import SandboxLevel
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.protocol import codec_for
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.results import MatchResult

HERE = Path(__file__).resolve().parent


def start(script: str, name: str, run_dir: Path) -> BotProcess:
    command = BotCommand(name, (sys.executable, str(HERE / script)), None, {}, Limits(), script)
    process = BotProcess.start(command, SandboxLevel.NONE, run_dir)
    process.wait_ready(20)
    return process


def sample_requests(count: int, seed: int = 0) -> list[pb.DecisionRequest]:
    """Real decision requests from random play of the deals of ``seed`` on, in order."""
    spec = find_game("gin-rummy/standard")
    codec = codec_for(spec.id)
    rng = random.Random(7 + seed)
    requests: list[pb.DecisionRequest] = []
    while len(requests) < count:
        table = codec.new_table(spec.id, spec.new_game(seed, 2, hands_only=True))
        while not table.is_terminal() and len(requests) < count:
            seat = table.current_seat()
            assert seat is not None
            table.hand_started()
            requests.append(table.decision(seat, 0, len(requests) + 1).decision)
            table.apply(rng.choice(table.legal), seat)
        seed += 1
    return requests


# What a referee sent: (seat, serialized message, request id or None for no reply).
Sent = list[tuple[int, bytes, int | None]]


class _Passing:
    """A connection that passes everything to ``inner`` (subclasses note something)."""

    def __init__(self, inner: BotConnection) -> None:
        self.inner, self.info = inner, inner.info

    async def start_match(self) -> None:
        await self.inner.start_match()

    async def send(self, message: bytes) -> None:
        await self.inner.send(message)

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        return await self.inner.decide(message, request_id, timeout)

    async def end_match(self) -> None:
        await self.inner.end_match()

    def close(self) -> None:
        self.inner.close()


class _Recorder(_Passing):
    """Notes what the referee sends through the connection."""

    def __init__(self, inner: BotConnection, seat: int, sent: Sent) -> None:
        super().__init__(inner)
        self.seat, self.sent = seat, sent

    async def send(self, message: bytes) -> None:
        self.sent.append((self.seat, message, None))
        await self.inner.send(message)

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        self.sent.append((self.seat, message, request_id))
        return await self.inner.decide(message, request_id, timeout)


class _Timed(_Passing):
    """Notes, between two decisions, how long the referee worked."""

    def __init__(self, inner: BotConnection, gaps: list[float], last: list[float]) -> None:
        super().__init__(inner)
        self.gaps, self.last = gaps, last

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        asked = time.perf_counter()
        if self.last:  # shared by both seats: the previous reply, whoever sent it
            self.gaps.append(asked - self.last[0])
        reply = await self.inner.decide(message, request_id, timeout)
        self.last[:] = [time.perf_counter()]
        return reply


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` so far (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Cpu(NamedTuple):
    """CPU µs per decision (round trip) at the end that asks and at the end(s) that
    answer, and decisions (round trips) per second."""

    asking: float
    answering: float
    rate: float

    @property
    def total(self) -> float:
        return self.asking + self.answering


def referee_cpu_micros(addresses: list[str], pids: list[int], seed: int) -> Cpu:
    """One game: the referee's and its bots' CPU µs per decision, decisions per second."""
    spec = find_game("gin-rummy/standard")
    connections = _connect(addresses)
    seats = [Seat(connection, f"bot{seat}") for seat, connection in enumerate(connections)]
    bots_before = sum(process_cpu(pid) for pid in pids)
    cpu_before, started = time.process_time(), time.perf_counter()
    result = play_match(MatchConfig(spec, games=1, seed=seed), seats)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_before
    bots = sum(process_cpu(pid) for pid in pids) - bots_before
    decisions = sum(len(seat.decision_seconds) for seat in result.seats)
    assert not any(seat.faults for seat in result.seats), "the trivial bots must not fault"
    return Cpu(cpu / decisions * 1e6, bots / decisions * 1e6, decisions / elapsed)


async def _raw_stream(
    address: str, first: bytes
) -> tuple[grpc.aio.Channel, grpc.aio.StreamStreamCall]:
    """A bare aio PlayMatch stream of raw bytes to ``address``, one round trip done
    (``first``) so that it is up before any clock starts."""
    channel = grpc.aio.insecure_channel(address)
    call = channel.stream_stream(
        "/rummy_arena.v1.Bot/PlayMatch", request_serializer=None, response_deserializer=None
    )()
    await call.write(first)
    await call.read()
    return channel, call


async def _close_raw_stream(channel: grpc.aio.Channel, call: grpc.aio.StreamStreamCall) -> None:
    await call.done_writing()
    await channel.close()


def bare_aio_cpu_micros(addresses: list[str], pids: list[int], messages: list[bytes]) -> Cpu:
    """The bare aio pair: the client's and the server(s)' CPU µs per round trip, round
    trips per second.  With two servers, two round trips to each in turn, as a Gin
    match alternates."""

    async def run() -> Cpu:
        streams = [await _raw_stream(address, messages[0]) for address in addresses]
        calls = [call for _, call in streams]
        servers_before = sum(process_cpu(pid) for pid in pids)
        cpu_before, started = time.process_time(), time.perf_counter()
        for number, message in enumerate(messages):
            call = calls[number // 2 % len(calls)]
            await call.write(message)
            await call.read()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_before
        servers = sum(process_cpu(pid) for pid in pids) - servers_before
        for stream in streams:
            await _close_raw_stream(*stream)
        count = len(messages)
        return Cpu(cpu / count * 1e6, servers / count * 1e6, count / elapsed)

    with asyncio.Runner(loop_factory=new_event_loop) as runner:  # the referee's loop
        return runner.run(run())


def idle_gap_cpu(address: str, pid: int, messages: list[bytes], gap: float) -> float:
    """The bare aio server's CPU µs per round trip when the client waits ``gap``
    seconds (asleep, no CPU) between round trips, as a seat waits while the other
    plays: how much a server pays for waking up."""

    async def run() -> float:
        channel, call = await _raw_stream(address, messages[0])
        before = process_cpu(pid)
        for message in messages:
            await call.write(message)
            await call.read()
            if gap:
                time.sleep(gap)
        server = process_cpu(pid) - before
        await _close_raw_stream(channel, call)
        return server / len(messages) * 1e6

    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(run())


def gaps_table(rounds: int) -> None:
    """``--gaps``: the wake-up cost behind the gap between a match and the bare pair."""
    run_dir = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    server = start("bare_bot_asyncio.py", "bare-asyncio", run_dir)
    gaps = (0.0, 0.0002, 0.001, 0.005)
    try:
        print("bare aio server: CPU µs per round trip, by the client's idle gap between them")
        print(f"{'round':<7}" + "".join(f"{f'{gap * 1e3:g} ms':>9}" for gap in gaps))
        for number in range(rounds):
            wire = [
                pb.RefereeMessage(decision=r).SerializeToString()
                for r in sample_requests(1500, 2000 + number)
            ]
            row = [idle_gap_cpu(server.address, server.pid, wire, gap) for gap in gaps]
            print(f"{number + 1:<7}" + "".join(f"{value:>9.0f}" for value in row), flush=True)
    finally:
        server.kill()
        shutil.rmtree(run_dir, ignore_errors=True)


def _connect(addresses: list[str]) -> list[GrpcConnection]:
    connections = [GrpcConnection(address, f"bot{i}") for i, address in enumerate(addresses)]
    for connection in connections:
        connection.wait_ready(10)
    return connections


def _play(
    addresses: list[str], wrap: Callable[[int, BotConnection], BotConnection] | None = None
) -> tuple[MatchResult, float]:
    """One game between the bots at ``addresses`` (connections wrapped by ``wrap``, if
    given): the result and the seconds it took."""
    spec = find_game("gin-rummy/standard")
    connections = _connect(addresses)
    seats = [
        Seat(wrap(seat, connection) if wrap else connection, f"bot{seat}")
        for seat, connection in enumerate(connections)
    ]
    started = time.perf_counter()
    result = play_match(MatchConfig(spec, games=1, seed=1), seats)
    elapsed = time.perf_counter() - started
    for connection in connections:
        connection.close()
    assert not any(seat.faults for seat in result.seats), "the trivial bots must not fault"
    return result, elapsed


def referee_rate(addresses: list[str], sent: Sent | None = None) -> float:
    """Decisions per second of a match; ``sent``, if given, gets what the referee sent."""
    wrap = None if sent is None else lambda seat, inner: _Recorder(inner, seat, sent)
    result, elapsed = _play(addresses, wrap)
    return sum(len(seat.decision_seconds) for seat in result.seats) / elapsed


def referee_work_micros(addresses: list[str]) -> float:
    """Median microseconds from a reply reaching the referee to its next request."""
    gaps: list[float] = []
    last: list[float] = []
    _play(addresses, lambda seat, inner: _Timed(inner, gaps, last))
    return statistics.median(gaps) * 1e6


class _Instant:
    """A connection that answers every request at once, as the trivial bot does."""

    info = pb.HandshakeReply(name="instant", protocol_version=1, games=["*"])

    async def start_match(self) -> None:
        pass

    async def send(self, message: bytes) -> None:
        pass

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        return pb.DecisionReply(request_id=request_id, legal_index=0)

    async def end_match(self) -> None:
        pass

    def close(self) -> None:
        pass


def referee_alone_micros() -> float:
    """Microseconds per decision of the referee's own work (the same match, no transport)."""
    spec = find_game("gin-rummy/standard")
    seats = [Seat(_Instant(), f"bot{i}") for i in range(2)]
    started = time.perf_counter()
    result = play_match(MatchConfig(spec, games=1, seed=1), seats)
    elapsed = time.perf_counter() - started
    return elapsed / sum(len(seat.decision_seconds) for seat in result.seats) * 1e6


def replay_cpu(addresses: list[str], pids: list[int], sent: Sent) -> Cpu:
    """The referee's recorded messages sent again as they were, through its
    connections, with no game in between: its and the bots' CPU µs per decision, and
    decisions per second."""
    connections = _connect(addresses)

    async def replay() -> Cpu:
        for connection in connections:
            await connection.start_match()
        bots_before = sum(process_cpu(pid) for pid in pids)
        cpu_before, started = time.process_time(), time.perf_counter()
        for seat, message, request_id in sent:
            if request_id is None:
                await connections[seat].send(message)
            else:
                await connections[seat].decide(message, request_id, 10.0)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_before
        bots = sum(process_cpu(pid) for pid in pids) - bots_before
        for connection in connections:
            await connection.end_match()
        decisions = sum(request_id is not None for _, _, request_id in sent)
        return Cpu(cpu / decisions * 1e6, bots / decisions * 1e6, decisions / elapsed)

    with asyncio.Runner(loop_factory=new_event_loop) as runner:  # the referee's loop
        return runner.run(replay())


def bare_stream_rate(addresses: list[str], requests: list[pb.DecisionRequest]) -> float:
    """Round trips on one stream per address, two in a row on each in turn."""
    channels = [grpc.insecure_channel(address) for address in addresses]
    outgoing: list[queue.SimpleQueue[pb.RefereeMessage | None]] = []
    streams = []
    for channel in channels:
        feed: queue.SimpleQueue[pb.RefereeMessage | None] = queue.SimpleQueue()
        outgoing.append(feed)
        streams.append(pb_grpc.BotStub(channel).PlayMatch(_drain(feed)))
    messages = [pb.RefereeMessage(decision=request) for request in requests]
    started = time.perf_counter()
    for number, message in enumerate(messages):
        turn = number // 2 % len(streams)
        outgoing[turn].put(message)
        next(streams[turn])
    elapsed = time.perf_counter() - started
    for feed in outgoing:
        feed.put(None)
    for channel in channels:
        channel.close()
    return len(messages) / elapsed


def _drain(feed: queue.SimpleQueue[pb.RefereeMessage | None]) -> Iterator[pb.RefereeMessage]:
    while (item := feed.get()) is not None:
        yield item


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
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--gaps", action="store_true", help="only the idle-gap diagnostic (a server waking up)"
    )
    args = parser.parse_args()
    rounds = 2 if args.quick else args.rounds
    if args.gaps:
        gaps_table(rounds)
        return
    requests = sample_requests(500 if args.quick else 6000)
    mean_size = round(statistics.fmean(pb.RefereeMessage(decision=r).ByteSize() for r in requests))
    run_dir = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    bots = [start("trivial_bot.py", f"trivial{i}", run_dir) for i in range(2)]
    bare = [start("bare_bot.py", f"bare{i}", run_dir) for i in range(2)]
    bare_asyncio = [start("bare_bot_asyncio.py", f"bare-asyncio{i}", run_dir) for i in range(2)]
    results: dict[str, list[float]] = {
        "referee": [],
        "replayed": [],
        "stream": [],
        "stream_asyncio": [],
        "two": [],
        "unary": [],
        "alone": [],
        "work": [],
        "cpu_referee": [],
        "cpu_bare": [],
        "cpu_bare_two": [],
        "cpu_referee_side": [],
        "cpu_bots_side": [],
        "cpu_bare_two_client": [],
        "cpu_bare_two_servers": [],
        "cpu_replayed_referee": [],
        "cpu_replayed_bots": [],
        "rate_referee": [],
        "rate_bare": [],
    }
    addresses = [bot.address for bot in bots]
    try:
        sent: Sent = []
        referee_rate(addresses, sent)  # the same seed: every round sends these
        print(
            "CPU per decision, both ends together, µs (every round; a new seed each round);\n"
            "split into the asking end (referee, client) and the answering end (bots, servers)"
        )
        print(
            f"{'round':<7}{'seed':>6}{'referee':>9}{'= ref + bots':>14}{'bare aio':>10}"
            f"{'bare/ref':>10}{'2 servers':>11}{'= client + servers':>20}"
            "  decisions/s: referee, bare aio"
        )
        for number in range(rounds):
            seed = 1000 + number
            pids = [bot.pid for bot in bots]
            match = referee_cpu_micros(addresses, pids, seed)
            wire = [
                pb.RefereeMessage(decision=r).SerializeToString()
                for r in sample_requests(2000 if args.quick else 6000, seed)
            ]
            bare_one = bare_aio_cpu_micros([bare_asyncio[0].address], [bare_asyncio[0].pid], wire)
            two = bare_aio_cpu_micros(
                [b.address for b in bare_asyncio], [b.pid for b in bare_asyncio], wire
            )
            for key, value in (
                ("cpu_referee", match.total),
                ("cpu_referee_side", match.asking),
                ("cpu_bots_side", match.answering),
                ("rate_referee", match.rate),
                ("cpu_bare", bare_one.total),
                ("rate_bare", bare_one.rate),
                ("cpu_bare_two", two.total),
                ("cpu_bare_two_client", two.asking),
                ("cpu_bare_two_servers", two.answering),
            ):
                results[key].append(value)
            split = f"{match.asking:.0f} + {match.answering:.0f}"
            bare_split = f"{two.asking:.0f} + {two.answering:.0f}"
            print(
                f"{number + 1:<7}{seed:>6}{match.total:>9.0f}{split:>14}{bare_one.total:>10.0f}"
                f"{bare_one.total / match.total:>10.2f}{two.total:>11.0f}{bare_split:>20}"
                f"  {match.rate:,.0f}, {bare_one.rate:,.0f}",
                flush=True,
            )
            results["referee"].append(referee_rate(addresses))
            replayed = replay_cpu(addresses, pids, sent)
            results["replayed"].append(replayed.rate)
            results["cpu_replayed_referee"].append(replayed.asking)
            results["cpu_replayed_bots"].append(replayed.answering)
            results["alone"].append(referee_alone_micros())
            results["work"].append(referee_work_micros(addresses))
            results["stream"].append(bare_stream_rate([bare[0].address], requests))
            results["stream_asyncio"].append(bare_stream_rate([bare_asyncio[0].address], requests))
            results["two"].append(bare_stream_rate([b.address for b in bare], requests))
            results["unary"].append(bare_unary_rate(bare[0].address, len(requests) // 4, mean_size))
    finally:
        for process in [*bots, *bare, *bare_asyncio]:
            process.kill()
        shutil.rmtree(run_dir, ignore_errors=True)  # the bots' stderr files
    median = {key: statistics.median(values) for key, values in results.items()}

    def paired(top: str, bottom: str) -> float:
        return statistics.median(a / b for a, b in zip(results[top], results[bottom], strict=True))

    print(f"arena: {flavour()}")
    print(f"mean decision request: {mean_size} bytes; {rounds} rounds; medians (min-max)")
    print("| measurement | per second | range |")
    print("|---|---|---|")
    labels = {
        "referee": "referee decisions, 2 trivial bots (one game)",
        "replayed": "referee's messages replayed, no game",
        "stream": "bare round trips, one stream",
        "stream_asyncio": "bare round trips, one stream, asyncio server",
        "two": "bare round trips, two servers in turn",
        "unary": "bare round trips, unary calls",
    }
    for key, label in labels.items():
        values = results[key]
        print(f"| {label} | {median[key]:,.0f} | {min(values):,.0f}-{max(values):,.0f} |")
    micros = {
        "alone": "referee alone, instant in-process replies: µs per decision",
        "work": "referee's work in a match, reply to next request: µs (median)",
    }
    for key, label in micros.items():
        values = results[key]
        print(f"| {label} | {median[key]:.1f} | {min(values):.1f}-{max(values):.1f} |")
    print(f"| bare round trip, one stream: µs | {1e6 / median['stream']:.0f} | |")
    print(f"| referee / bare stream (target 80%) | {paired('referee', 'stream'):.0%} | |")
    print(
        f"| referee / bare stream, asyncio server (like for like) | {paired('referee', 'stream_asyncio'):.0%} | |"
    )
    print(f"| referee / bare, two servers in turn | {paired('referee', 'two'):.0%} | |")
    print(f"| replayed / bare stream | {paired('replayed', 'stream'):.0%} | |")
    print(f"| bare stream / bare unary | {paired('stream', 'unary'):.2f}x | |")
    print(
        f"| CPU per decision, referee + 2 SDK bots: µs | {median['cpu_referee']:.0f} | "
        f"{min(results['cpu_referee']):.0f}-{max(results['cpu_referee']):.0f} |"
    )
    print(
        f"| CPU per round trip, bare aio pair: µs | {median['cpu_bare']:.0f} | "
        f"{min(results['cpu_bare']):.0f}-{max(results['cpu_bare']):.0f} |"
    )
    print(
        f"| CPU per round trip, bare aio, two servers in turn: µs (diagnostic) | "
        f"{median['cpu_bare_two']:.0f} | "
        f"{min(results['cpu_bare_two']):.0f}-{max(results['cpu_bare_two']):.0f} |"
    )
    print(
        f"| CPU: bare aio pair / referee (target 0.85) | "
        f"{paired('cpu_bare', 'cpu_referee'):.2f} | |"
    )
    print(
        f"| CPU: bare aio, two servers in turn / referee (like for like: a match's two "
        f"seats take turns) | {paired('cpu_bare_two', 'cpu_referee'):.2f} | |"
    )
    print(
        f"| CPU per decision, the referee's end / the bare client's (two servers in turn) | "
        f"{paired('cpu_referee_side', 'cpu_bare_two_client'):.2f}x | |"
    )
    print(
        f"| CPU per decision, the bots' end / the bare servers' (two in turn) | "
        f"{paired('cpu_bots_side', 'cpu_bare_two_servers'):.2f}x | |"
    )
    print(
        f"| CPU per decision, replayed with no game / in the match: the referee's end, "
        f"the bots' | {paired('cpu_replayed_referee', 'cpu_referee_side'):.2f}, "
        f"{paired('cpu_replayed_bots', 'cpu_bots_side'):.2f} | |"
    )
    print(f"| decisions/s: referee / bare aio pair | {paired('rate_referee', 'rate_bare'):.0%} | |")


if __name__ == "__main__":
    main()
