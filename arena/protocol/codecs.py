"""Which conversion module serves which game: built in by family, plugins by game id."""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Iterable
from typing import cast

from arena.protocol.codec import Codec
from arena.protocol.common import ProtocolError

__all__ = ["codec_for", "plays_game", "register_codec"]

#: The built-in families' modules, imported when first asked for: a bot process loads
#: only the game it plays (each family's codec brings its engine).
_BY_FAMILY: dict[str, str] = {"gin-rummy": "arena.protocol.gin", "rummy": "arena.protocol.rummy"}
_BY_GAME: dict[str, Codec] = {}


def register_codec(game_id: str, codec: Codec) -> None:
    """Make ``codec`` convert the messages of ``game_id`` (plugins' games)."""
    _BY_GAME[game_id] = codec


def codec_for(game_id: str) -> Codec:
    """The conversion module for ``game_id`` (``gin-rummy/standard`` -> ``arena.protocol.gin``)."""
    codec = _BY_GAME.get(game_id)
    if codec is not None:
        return codec
    module = _BY_FAMILY.get(game_id.split("/", 1)[0])
    if module is None:
        raise ProtocolError(f"no protocol conversion for game {game_id!r}")
    return cast(Codec, importlib.import_module(module))


def plays_game(patterns: Iterable[str], game_id: str) -> bool:
    """Whether a bot that says it plays ``patterns`` (its handshake's ``games``, shell
    patterns such as ``gin-rummy/*``) plays ``game_id``."""
    return any(fnmatch.fnmatchcase(game_id, pattern) for pattern in patterns)
