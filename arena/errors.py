"""The root of every error Rummy Arena raises on purpose.

``except ArenaError`` catches the arena's own errors and nothing else.  An error that
means the caller's input was wrong (a bad option, file, bot or request) also derives
from ``ValueError``: the command line prints those in one line, with exit status 2.
Everything else (``RuntimeError`` and the like) is the arena's or the host's problem.
"""

from __future__ import annotations

__all__ = ["ArenaError"]


class ArenaError(Exception):
    """An error of Rummy Arena's own (each subsystem subclasses it once)."""
