"""Which conversion module serves which game: built in by family, plugins by game id."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

from arena.protocol import gin, rummy
from arena.protocol.codec import Codec
from arena.protocol.common import ProtocolError

__all__ = ["codec_for", "plays_game", "register_codec"]

_BY_FAMILY: dict[str, Codec] = {"gin-rummy": gin, "rummy": rummy}
_BY_GAME: dict[str, Codec] = {}


def register_codec(game_id: str, codec: Codec) -> None:
    """Make ``codec`` convert the messages of ``game_id`` (plugins' games)."""
    _BY_GAME[game_id] = codec


def codec_for(game_id: str) -> Codec:
    """The conversion module for ``game_id`` (``gin-rummy/standard`` -> ``arena.protocol.gin``)."""
    codec = _BY_GAME.get(game_id) or _BY_FAMILY.get(game_id.split("/", 1)[0])
    if codec is None:
        raise ProtocolError(f"no protocol conversion for game {game_id!r}")
    return codec


def plays_game(patterns: Iterable[str], game_id: str) -> bool:
    """Whether a bot that says it plays ``patterns`` (its handshake's ``games``, shell
    patterns such as ``gin-rummy/*``) plays ``game_id``."""
    return any(fnmatch.fnmatchcase(game_id, pattern) for pattern in patterns)
