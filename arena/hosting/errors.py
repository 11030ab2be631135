"""Exceptions raised by the hosting layer.

Only misuse of the hosting API and bots that cannot be started raise; once a bot
is running, what it does is data for the referee (see STYLE.md §7).
"""

from __future__ import annotations

from arena.errors import ArenaError

__all__ = ["BotStartError", "HostingError", "ManifestError", "UnknownBotError"]


class HostingError(ArenaError):
    """Root of every error raised by :mod:`arena.hosting`."""


class ManifestError(HostingError, ValueError):
    """A bot manifest is unreadable or invalid.

    The message names the file, the field and, where it can be found, the line:
    ``bots/x.toml:7: field 'limits.memory_mb' must be a positive integer, got 'lots'``.
    """


class BotStartError(HostingError):
    """A bot process could not be started, exited early, or never became ready.

    The message carries the exit status (when there is one) and the last lines
    of the bot's stderr.
    """


class UnknownBotError(HostingError, LookupError, ValueError):
    """A bot reference that names nothing: no address, no manifest, no registered bot
    (raised by the launcher and by the plugin manager's lookups alike)."""
