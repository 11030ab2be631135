"""Who watches a match: the replay writer, the verbose printer, plugins."""

from __future__ import annotations

from typing import Any

__all__ = ["MatchObserver"]


class MatchObserver:
    """Receives a match's events as plain JSON-ready records.  Override what you need.

    Records (each a dict with a "type"): ``match`` (header), ``game``, ``deal``,
    ``action``, ``fault``, ``hand_end``, ``game_end``, ``reveal`` (the seed, salt and
    decks, once the match is over), ``match_end``.
    """

    def on_record(self, record: dict[str, Any]) -> None:
        """Called for every record, in order."""

    def close(self) -> None:
        """The match is over (or aborted): flush and release resources."""
