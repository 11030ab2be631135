"""Which conversion module serves which game family (the part of a game id before '/')."""

from __future__ import annotations

from types import ModuleType

from arena.protocol import gin
from arena.protocol.common import ProtocolError

__all__ = ["codec_for"]

_CODECS: dict[str, ModuleType] = {"gin-rummy": gin}


def codec_for(game_id: str) -> ModuleType:
    """The conversion module for ``game_id`` (``gin-rummy/standard`` -> ``arena.protocol.gin``)."""
    family = game_id.split("/", 1)[0]
    try:
        return _CODECS[family]
    except KeyError:
        raise ProtocolError(f"no protocol conversion for game {game_id!r}") from None
