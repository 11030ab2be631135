"""What plugins hand to the arena: bots, games, and the context of a match."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games.spec import GameSpec
from arena.protocol.codec import Codec
from arena.sdk import Bot

__all__ = ["BotRegistration", "GameRegistration", "MatchContext"]


@dataclass(frozen=True)
class BotRegistration:
    """A Python bot: its name, how to make one, and the games it plays."""

    name: str
    factory: Callable[[], Bot[Any, Any]]
    games: tuple[str, ...] = ("gin-rummy/*",)
    description: str = ""
    source: str = ""  # filled in by the plugin manager: which plugin registered it

    @classmethod
    def of_class(cls, bot_class: type[Bot[Any, Any]]) -> BotRegistration:
        doc = (bot_class.__doc__ or "").strip().splitlines()
        return cls(bot_class.name, bot_class, tuple(bot_class.games), doc[0] if doc else "")


@dataclass(frozen=True)
class GameRegistration:
    """A rule set and the module that converts its types to protocol messages."""

    spec: GameSpec
    codec: Codec
    source: str = ""


@dataclass
class MatchContext:
    """What observers may know about the match being set up."""

    match_id: str
    game_id: str
    players: list[str]
    replay_path: Path | None = None
    verbose: bool = False
    progress: bool = False
    # Watched while it is played (a ladder's match): the replay is flushed at every
    # record, so a spectator sees each decision at once.
    live: bool = False
