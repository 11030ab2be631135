"""Deliberately misbehaving bots: each kind breaks the protocol in one way.

    python -m arena.testing.broken_bots KIND [--delay-ms MS] [--after N] [--marker TEXT]

serves on ``$ARENA_BOT_ADDRESS`` (or ``--address``), as the arena runs any bot.
``KINDS`` describes every kind in one line, ``EXPECTED_STATUS`` is the seat status
the referee must record for it (``OK`` for the kinds that play legally but are
hard to stop), and ``write_manifest`` writes a manifest that starts one.  Bots that
play legally always answer ``legal_index`` 0.  ``--marker`` is ignored: it only puts
a unique word on the command line, so that tests can find the bot's processes.

Kinds that misbehave in ``decide`` or around the server go through the SDK
(``arena.sdk.serve``); the rest use raw gRPC, because the SDK cannot send what
they send.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.cards import ALL_CARDS
from arena.hosting.faults import SeatStatus
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.protocol import PROTOCOL_VERSION
from arena.sdk import ADDRESS_VARIABLE, Bot, Decision, gin, serve

__all__ = [
    "DELAY_VARIABLE",
    "EXPECTED_STATUS",
    "GARBAGE",
    "KINDS",
    "NAME_VARIABLE",
    "UNSTARTABLE",
    "main",
    "manifest_text",
    "write_manifest",
    "write_unstartable_manifest",
]

#: The ``slow`` kind's delay in milliseconds when ``--delay-ms`` is not given.
DELAY_VARIABLE = "BROKEN_BOT_DELAY_MS"

#: Every kind with its one-line description.
KINDS: dict[str, str] = {}
#: The seat status the referee must record for each kind.
EXPECTED_STATUS: dict[str, SeatStatus] = {}

_Runner = Callable[[argparse.Namespace], None]
_RUNNERS: dict[str, _Runner] = {}


def _kind(name: str, status: SeatStatus) -> Callable[[_Runner], _Runner]:
    def register(run: _Runner) -> _Runner:
        KINDS[name] = (run.__doc__ or "").strip()
        EXPECTED_STATUS[name] = status
        _RUNNERS[name] = run
        return run

    return register


# -- bots served through the SDK ---------------------------------------------------


class _FunctionBot(Bot[Any, Any]):
    author = "Rummy Arena tests"
    version = "1.0"

    def __init__(self, decide: Callable[[Decision[Any, Any]], Any]) -> None:
        self._decide = decide

    def decide(self, decision: Decision[Any, Any]) -> Any:
        return self._decide(decision)


#: The name a broken bot gives in its handshake (default ``broken-KIND``): its
#: manifest's, which the arena compares with it.
NAME_VARIABLE = "BROKEN_BOT_NAME"


def _name(kind: str) -> str:
    return os.environ.get(NAME_VARIABLE) or f"broken-{kind}"


def _legal(decision: Decision[Any, Any]) -> int:
    return 0


def _serve_sdk(options: argparse.Namespace, decide: Callable[[Decision[Any, Any]], Any]) -> None:
    bot_class = type("BrokenBot", (_FunctionBot,), {"name": _name(options.kind)})
    serve(bot_class(decide), address=options.address, argv=[])


@_kind("hang", SeatStatus.TIMEOUT)
def _hang(options: argparse.Namespace) -> None:
    """Never answers a decision: decide blocks forever."""

    def decide(decision: Decision[Any, Any]) -> int:
        threading.Event().wait()
        return 0

    _serve_sdk(options, decide)


@_kind("slow", SeatStatus.TIMEOUT)
def _slow(options: argparse.Namespace) -> None:
    """Answers legally, each time after sleeping --delay-ms (else $BROKEN_BOT_DELAY_MS, else 1000)."""
    delay_ms = options.delay_ms
    if delay_ms is None:
        delay_ms = int(os.environ.get(DELAY_VARIABLE, "1000"))

    def decide(decision: Decision[Any, Any]) -> int:
        time.sleep(delay_ms / 1000)
        return 0

    _serve_sdk(options, decide)


@_kind("crash-mid", SeatStatus.CRASHED)
def _crash_mid(options: argparse.Namespace) -> None:
    """Plays legally for --after decisions (default 3), then dies with os._exit(5)."""
    answered = 0

    def decide(decision: Decision[Any, Any]) -> int:
        nonlocal answered
        if answered >= options.after:
            print(f"broken-crash-mid: exiting after {answered} decisions", file=sys.stderr)
            sys.stderr.flush()
            os._exit(5)
        answered += 1
        return 0

    _serve_sdk(options, decide)


@_kind("raise", SeatStatus.CRASHED)
def _raise(options: argparse.Namespace) -> None:
    """An SDK bot whose decide raises RuntimeError."""

    def decide(decision: Decision[Any, Any]) -> int:
        raise RuntimeError("broken-raise fails on purpose")

    _serve_sdk(options, decide)


@_kind("garbage-index", SeatStatus.MALFORMED_REPLY)
def _garbage_index(options: argparse.Namespace) -> None:
    """Replies with legal_index 999, out of range."""
    _serve_sdk(options, lambda decision: 999)


@_kind("illegal", SeatStatus.ILLEGAL_ACTION)
def _illegal(options: argparse.Namespace) -> None:
    """Plays legally until it must discard, then discards a card not in its hand (a full Action)."""

    def decide(decision: Decision[Any, Any]) -> Any:
        observation = decision.observation
        if observation.phase is not gin.Phase.DISCARD:
            return 0
        return gin.discard(next(card for card in ALL_CARDS if card not in observation.hand))

    _serve_sdk(options, decide)


@_kind("ignore-sigterm", SeatStatus.OK)
def _ignore_sigterm(options: argparse.Namespace) -> None:
    """Plays legally but never reacts to SIGTERM (blocked in every thread): only SIGKILL stops it."""
    # Blocked before the server starts its threads, so no thread ever receives it.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    _serve_sdk(options, _legal)


@_kind("fork", SeatStatus.OK)
def _fork(options: argparse.Namespace) -> None:
    """Plays legally after forking 3 children that leave its session, ignore SIGTERM and sleep forever."""
    for _ in range(3):  # before gRPC starts any thread: forking is safe here
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            os.setsid()
            while True:
                time.sleep(60)
    _serve_sdk(options, _legal)


# -- bots that never get as far as serving ------------------------------------------


@_kind("crash-start", SeatStatus.START_FAILED)
def _crash_start(options: argparse.Namespace) -> None:
    """Writes a message to stderr and exits with status 3 before serving."""
    print("broken-crash-start: giving up before serving", file=sys.stderr, flush=True)
    sys.exit(3)


@_kind("never-ready", SeatStatus.START_FAILED)
def _never_ready(options: argparse.Namespace) -> None:
    """Runs until killed but never serves (no socket, no health check)."""
    while True:
        time.sleep(60)


# -- bots on raw gRPC: replies the SDK cannot produce ---------------------------------


class _RawBot(pb_grpc.BotServicer):
    """A servicer whose handshake and replies are given as functions."""

    def __init__(
        self,
        kind: str,
        reply: Callable[[pb.DecisionRequest], pb.DecisionReply] | None = None,
        *,
        version: int = PROTOCOL_VERSION,
        refuse: bool = False,
    ) -> None:
        self.name = _name(kind)
        self.reply = reply or (lambda request: pb.DecisionReply(request_id=request.request_id))
        self.version = version
        self.refuse = refuse

    def Handshake(
        self, request: pb.HandshakeRequest, context: grpc.ServicerContext
    ) -> pb.HandshakeReply:
        if self.refuse:
            context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"{self.name} refuses protocol version {request.protocol_version}",
            )
        return pb.HandshakeReply(
            name=self.name,
            author="Rummy Arena tests",
            version="1.0",
            protocol_version=self.version,
            games=["gin-rummy/*"],
        )

    def PlayMatch(
        self, request_iterator: Iterator[pb.RefereeMessage], context: grpc.ServicerContext
    ) -> Iterator[pb.BotMessage]:
        for message in request_iterator:
            if message.WhichOneof("body") == "decision":
                yield pb.BotMessage(decision=self.reply(message.decision))


def _serve_raw(options: argparse.Namespace, bot: _RawBot) -> None:
    """Serve until killed (SIGTERM keeps its default action: the process ends)."""
    address = options.address or os.environ.get(ADDRESS_VARIABLE)
    if not address:
        sys.exit(f"{bot.name}: no address: pass --address or set {ADDRESS_VARIABLE}")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_BotServicer_to_server(bot, server)  # type: ignore[no-untyped-call]  # generated
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    server.add_insecure_port(address)
    server.start()
    health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    server.wait_for_termination()


@_kind("empty-reply", SeatStatus.MALFORMED_REPLY)
def _empty_reply(options: argparse.Namespace) -> None:
    """Replies with a DecisionReply holding neither legal_index nor action."""
    _serve_raw(options, _RawBot(options.kind))


@_kind("garbage-card", SeatStatus.MALFORMED_REPLY)
def _garbage_card(options: argparse.Namespace) -> None:
    """Replies with an Action that discards the unparseable card "ZZ"."""

    def reply(request: pb.DecisionRequest) -> pb.DecisionReply:
        action = pb.Action(discard=pb.Discard(card="ZZ"))
        return pb.DecisionReply(request_id=request.request_id, action=action)

    _serve_raw(options, _RawBot(options.kind, reply))


@_kind("rummy-action", SeatStatus.MALFORMED_REPLY)
def _rummy_action(options: argparse.Namespace) -> None:
    """Replies with an action of another game (Basic Rummy's LayMeld)."""

    def reply(request: pb.DecisionRequest) -> pb.DecisionReply:
        meld = pb.Meld(cards=request.observation.hand[:3])
        action = pb.Action(lay_meld=pb.LayMeld(meld=meld))
        return pb.DecisionReply(request_id=request.request_id, action=action)

    _serve_raw(options, _RawBot(options.kind, reply))


@_kind("unknown-request", SeatStatus.PROTOCOL_ERROR)
def _unknown_request(options: argparse.Namespace) -> None:
    """Replies legally, but to a request_id 1000 higher than the one asked."""

    def reply(request: pb.DecisionRequest) -> pb.DecisionReply:
        return pb.DecisionReply(request_id=request.request_id + 1000, legal_index=0)

    _serve_raw(options, _RawBot(options.kind, reply))


@_kind("refuse-handshake", SeatStatus.PROTOCOL_ERROR)
def _refuse_handshake(options: argparse.Namespace) -> None:
    """Serves and reports SERVING, but aborts every Handshake with FAILED_PRECONDITION."""
    _serve_raw(options, _RawBot(options.kind, refuse=True))


@_kind("wrong-version", SeatStatus.PROTOCOL_ERROR)
def _wrong_version(options: argparse.Namespace) -> None:
    """Answers the handshake claiming protocol version 2."""
    _serve_raw(options, _RawBot(options.kind, version=PROTOCOL_VERSION + 1))


# -- bots writing raw bytes: what no protobuf library would send -------------------------

#: Bytes that are no protobuf message at all (a field with wire type 7, which does not exist).
GARBAGE = b"\xff\xff\xff\xff\x0f"
#: A comment this long makes a reply bigger than the referee accepts (MAX_MESSAGE_BYTES).
OVERSIZED_COMMENT = 100_000

_Respond = Callable[[pb.RefereeMessage], Iterable[bytes] | None]


def _reply_bytes(request: pb.DecisionRequest, comment: str = "") -> bytes:
    """A legal reply (``legal_index`` 0) to ``request``, serialized."""
    reply = pb.DecisionReply(request_id=request.request_id, legal_index=0, comment=comment)
    data: bytes = pb.BotMessage(decision=reply).SerializeToString()
    return data


def _serve_bytes(
    options: argparse.Namespace, respond: _Respond, *, hang_handshake: bool = False
) -> None:
    """Serve a bot whose PlayMatch writes whatever bytes ``respond`` returns for each
    referee message (``None``: end the stream), with no serializer in between."""
    name = _name(options.kind)

    def handshake(request: pb.HandshakeRequest, context: grpc.ServicerContext) -> pb.HandshakeReply:
        if hang_handshake:
            threading.Event().wait()
        return pb.HandshakeReply(
            name=name, version="1.0", protocol_version=PROTOCOL_VERSION, games=["gin-rummy/*"]
        )

    def play(
        requests: Iterator[pb.RefereeMessage], context: grpc.ServicerContext
    ) -> Iterator[bytes]:
        for message in requests:
            replies = respond(message)
            if replies is None:
                return
            yield from replies

    handlers = {
        "Handshake": grpc.unary_unary_rpc_method_handler(
            handshake,
            request_deserializer=pb.HandshakeRequest.FromString,
            response_serializer=pb.HandshakeReply.SerializeToString,
        ),
        "PlayMatch": grpc.stream_stream_rpc_method_handler(
            play, request_deserializer=pb.RefereeMessage.FromString, response_serializer=None
        ),
    }
    service = pb.DESCRIPTOR.services_by_name["Bot"].full_name
    _serve_handlers(options, name, grpc.method_handlers_generic_handler(service, handlers))


def _serve_handlers(
    options: argparse.Namespace, name: str, handler: grpc.GenericRpcHandler
) -> None:
    address = options.address or os.environ.get(ADDRESS_VARIABLE)
    if not address:
        sys.exit(f"{name}: no address: pass --address or set {ADDRESS_VARIABLE}")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    server.add_insecure_port(address)
    server.start()
    health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    server.wait_for_termination()


def _on_decision(reply: Callable[[pb.DecisionRequest], Iterable[bytes] | None]) -> _Respond:
    """Answer decision requests with ``reply``; lifecycle messages get nothing."""

    def respond(message: pb.RefereeMessage) -> Iterable[bytes] | None:
        if message.WhichOneof("body") == "decision":
            return reply(message.decision)
        return ()

    return respond


@_kind("garbage-bytes", SeatStatus.MALFORMED_REPLY)
def _garbage_bytes(options: argparse.Namespace) -> None:
    """Replies to every request with bytes that do not decode as any protobuf message."""
    _serve_bytes(options, _on_decision(lambda request: [GARBAGE]))


@_kind("truncated", SeatStatus.MALFORMED_REPLY)
def _truncated(options: argparse.Namespace) -> None:
    """Replies with a valid reply cut off in the middle of its comment."""
    _serve_bytes(
        options, _on_decision(lambda request: [_reply_bytes(request, comment="x" * 40)[:-10]])
    )


@_kind("wrong-message", SeatStatus.PROTOCOL_ERROR)
def _wrong_message(options: argparse.Namespace) -> None:
    """Replies with another message type: the RefereeMessage it was sent, echoed back."""
    _serve_bytes(
        options,
        _on_decision(lambda request: [pb.RefereeMessage(decision=request).SerializeToString()]),
    )


@_kind("oversized", SeatStatus.PROTOCOL_ERROR)
def _oversized(options: argparse.Namespace) -> None:
    """Replies legally, with a comment of 100,000 characters: over the referee's message limit."""
    _serve_bytes(
        options,
        _on_decision(lambda request: [_reply_bytes(request, comment="x" * OVERSIZED_COMMENT)]),
    )


@_kind("early-close", SeatStatus.CRASHED)
def _early_close(options: argparse.Namespace) -> None:
    """Ends its PlayMatch stream (cleanly) at the first decision request, unanswered."""
    _serve_bytes(options, _on_decision(lambda request: None))


@_kind("duplicate-reply", SeatStatus.PROTOCOL_ERROR)
def _duplicate_reply(options: argparse.Namespace) -> None:
    """Answers every request legally, twice: the second is a reply nobody asked for."""
    _serve_bytes(options, _on_decision(lambda request: [_reply_bytes(request)] * 2))


@_kind("future-reply", SeatStatus.PROTOCOL_ERROR)
def _future_reply(options: argparse.Namespace) -> None:
    """On MatchStart, answers requests 100000-100019, which no match gets to, unasked."""

    def respond(message: pb.RefereeMessage) -> Iterable[bytes]:
        if message.WhichOneof("body") != "match_start":
            return ()
        guesses = [pb.DecisionRequest(request_id=n) for n in range(100_000, 100_020)]
        return [_reply_bytes(guess) for guess in guesses]

    _serve_bytes(options, respond)


@_kind("flood", SeatStatus.PROTOCOL_ERROR)
def _flood(options: argparse.Namespace) -> None:
    """Answers the first request legally, then writes legal-looking replies without end."""

    def reply(request: pb.DecisionRequest) -> Iterator[bytes]:
        data = _reply_bytes(request)
        while True:
            yield data

    _serve_bytes(options, _on_decision(reply))


@_kind("hung-handshake", SeatStatus.START_FAILED)
def _hung_handshake(options: argparse.Namespace) -> None:
    """Reports SERVING, then never answers its Handshake."""
    _serve_bytes(
        options, _on_decision(lambda request: [_reply_bytes(request)]), hang_handshake=True
    )


@_kind("returns-none", SeatStatus.MALFORMED_REPLY)
def _returns_none(options: argparse.Namespace) -> None:
    """An SDK bot whose decide returns None (a forgotten return)."""
    _serve_sdk(options, lambda decision: None)


@_kind("returns-text", SeatStatus.MALFORMED_REPLY)
def _returns_text(options: argparse.Namespace) -> None:
    """An SDK bot whose decide returns a string ("draw stock") instead of an action."""
    _serve_sdk(options, lambda decision: "draw stock")


# -- manifests of programs that cannot start at all ----------------------------------------

#: How a manifest can name a program that cannot run, with the words its reason must hold.
UNSTARTABLE: dict[str, str] = {
    "missing-program": "not found on PATH",
    "missing-file": "does not exist",
    "not-executable": "is not executable",
    "bad-interpreter": "names the interpreter '/nonexistent/python9'",
    "bad-env-interpreter": "'python-that-does-not-exist' through #!/usr/bin/env",
    "no-shebang": "a text file without a #! line",
}


def write_unstartable_manifest(directory: Path, how: str, *, marker: str = "") -> Path:
    """A manifest in ``directory`` whose program cannot run, as ``how`` (a key of
    ``UNSTARTABLE``) says; ``marker`` goes on its command line."""
    directory = Path(directory)
    script = directory / f"{how}.sh"
    program = f"./{script.name}"
    if how == "missing-program":
        program = f"no-such-program-{how}"
    elif how == "missing-file":
        program = "./not-there.sh"
    elif how == "not-executable":
        script.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        script.chmod(0o644)
    elif how == "bad-interpreter":
        script.write_text("#!/nonexistent/python9\nprint(1)\n", encoding="utf-8")
        script.chmod(0o755)
    elif how == "bad-env-interpreter":
        script.write_text("#!/usr/bin/env python-that-does-not-exist\n", encoding="utf-8")
        script.chmod(0o755)
    elif how == "no-shebang":
        script.write_text("echo hello\n", encoding="utf-8")
        script.chmod(0o755)
    else:
        raise ValueError(f"unknown way not to start {how!r} (known: {', '.join(UNSTARTABLE)})")
    words = ", ".join(json.dumps(word) for word in (program, "--marker", marker))
    path = directory / f"{how}.toml"
    path.write_text(
        f'name = "unstartable-{how}"\ncommand = [{words}]\nworking_directory = "."\n',
        encoding="utf-8",
    )
    return path


# -- manifests and the command line -----------------------------------------------------


def manifest_text(kind: str, *args: str, name: str | None = None) -> str:
    """A manifest (TOML) running ``kind`` with this interpreter; ``args`` go after the kind."""
    if kind not in KINDS:
        raise ValueError(f"unknown broken bot kind {kind!r} (known: {', '.join(KINDS)})")
    command = [sys.executable, "-m", "arena.testing.broken_bots", kind, *args]
    # A JSON string is a valid TOML basic string.
    words = ", ".join(json.dumps(word) for word in command)
    # Its folder is the package that holds it, wherever the manifest is written.
    folder = json.dumps(str(Path(__file__).resolve().parent))
    name = name or f"broken-{kind}"
    return (
        f"name = {json.dumps(name)}\ncommand = [{words}]\n"
        f"working_directory = {folder}\n[env]\n{NAME_VARIABLE} = {json.dumps(name)}\n"
    )


def write_manifest(directory: Path, kind: str, *args: str, name: str | None = None) -> Path:
    """Write ``broken-KIND.toml`` into ``directory``; returns its path."""
    path = Path(directory) / f"{name or f'broken-{kind}'}.toml"
    path.write_text(manifest_text(kind, *args, name=name), encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m arena.testing.broken_bots",
        description="Serve a deliberately misbehaving bot.",
        epilog="kinds:\n" + "\n".join(f"  {k:<17}{d}" for k, d in KINDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("kind", choices=list(KINDS), metavar="KIND")
    parser.add_argument("--address", help=f"where to listen (default: ${ADDRESS_VARIABLE})")
    parser.add_argument("--delay-ms", type=int, help="slow: milliseconds to sleep per decision")
    parser.add_argument("--after", type=int, default=3, help="crash-mid: decisions to answer first")
    parser.add_argument("--marker", help="ignored: a word that makes the processes easy to find")
    options = parser.parse_args(argv)
    _RUNNERS[options.kind](options)


if __name__ == "__main__":
    main()
