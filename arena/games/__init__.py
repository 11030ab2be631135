"""Game engines and the interface they share."""

from arena.games.base import GameError, GameState, IllegalActionError, Outcome

__all__ = ["GameError", "GameState", "IllegalActionError", "Outcome"]
