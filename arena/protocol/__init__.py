"""Conversion between the engines' domain types and protocol messages (v1)."""

from arena.protocol.codecs import codec_for, plays_game
from arena.protocol.common import PROTOCOL_VERSION, ProtocolError

__all__ = ["PROTOCOL_VERSION", "ProtocolError", "codec_for", "plays_game"]
