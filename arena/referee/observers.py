"""Who watches a match: the replay writer, the verbose printer, plugins."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.replays.records import Record

__all__ = ["MatchObserver"]


class MatchObserver:
    """Receives a match's records as they happen.  Override what you need.

    Records (``arena.replays.records``, docs/REPLAY.md): ``MatchHeader``,
    ``GameStartRecord``, ``DealRecord``, ``ActionRecord``, ``FaultRecordLine``,
    ``HandEndRecord``, ``GameEndRecord``, ``RevealRecord`` (the seed, salt and decks,
    once the match is over), ``MatchEndRecord``; ``record.to_json()`` is its replay line.
    """

    def on_record(self, record: Record) -> None:
        """Called for every record, in order."""

    def close(self) -> None:
        """The match is over (or aborted): flush and release resources."""
