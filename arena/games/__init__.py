"""Game engines and the interface they share."""

from arena.games.base import GameError, IllegalActionError, Outcome, PlayedGame

__all__ = ["GameError", "IllegalActionError", "Outcome", "PlayedGame"]
