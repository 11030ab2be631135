"""The toolkit's exception root."""

from __future__ import annotations

from arena.errors import ArenaError

__all__ = ["ToolkitError"]


class ToolkitError(ArenaError, ValueError):
    """Bad input to a toolkit function: a test parameter, a seat or hand not in a replay.

    A ``ValueError``: it is always the caller's input that is wrong (the CLI prints
    it as a one-line error, exit status 2)."""
