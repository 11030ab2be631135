"""Conversion between the engines' domain types and protocol messages (v1)."""

from arena.protocol.common import PROTOCOL_VERSION, ProtocolError
from arena.protocol.families import codec_for, plays_game

__all__ = ["PROTOCOL_VERSION", "ProtocolError", "codec_for", "plays_game"]
