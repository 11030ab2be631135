"""Raw calls on a running bot, outside a match: what ``arena check`` asks a bot directly.

The referee's own handshake (``GrpcConnection.wait_ready``) always offers the
protocol version it speaks; a conformance check also needs to offer another one
and see the bot refuse it, and to ask the health service again afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena import __version__
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc

__all__ = ["HandshakeProbe", "health_status", "probe_handshake"]


@dataclass(frozen=True)
class HandshakeProbe:
    """How a bot answered a ``Handshake``: a reply, or a gRPC status code and details."""

    reply: pb.HandshakeReply | None
    code: str  # "OK" or the status code's name, e.g. "FAILED_PRECONDITION"
    details: str = ""


def probe_handshake(address: str, protocol_version: int, timeout: float) -> HandshakeProbe:
    """Call ``Handshake`` offering ``protocol_version``; never raises for the bot's answer."""
    channel = grpc.insecure_channel(address.removeprefix("grpc://"))
    try:
        request = pb.HandshakeRequest(
            protocol_version=protocol_version, referee=f"rummy-arena {__version__} (arena check)"
        )
        try:
            stub = pb_grpc.BotStub(channel)  # type: ignore[no-untyped-call]  # generated
            reply = stub.Handshake(request, timeout=timeout)
        except grpc.RpcError as error:
            return HandshakeProbe(None, error.code().name, error.details() or "")
        return HandshakeProbe(reply, "OK")
    finally:
        channel.close()


def health_status(address: str, timeout: float) -> str:
    """The bot's health status name (``SERVING``...), or the gRPC error code's name."""
    channel = grpc.insecure_channel(address.removeprefix("grpc://"))
    try:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            status = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        except grpc.RpcError as error:
            return str(error.code().name)
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(status.status))
    finally:
        channel.close()
