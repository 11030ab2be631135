"""A progress bar with an ETA for ladder runs (stderr; one line per update off a terminal),
and the note on each match it shows: the result, the sandbox level, the faults' reasons."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import TextIO

from arena.referee.results import MatchResult

__all__ = ["Progress", "fault_where", "match_note", "score_text"]

#: Characters kept of each fault's reason in the progress line (the whole reason is
#: in the database: ``arena ladder history DB``).
REASON_CHARS = 300


def score_text(names: Sequence[str], wins: Sequence[int]) -> str:
    """``greedy 2-1 random`` for two seats, ``a 2, b 1, c 0`` for more."""
    if len(names) == 2:
        return f"{names[0]} {wins[0]}-{wins[1]} {names[1]}"
    return ", ".join(f"{name} {won}" for name, won in zip(names, wins, strict=True))


def fault_where(game: int) -> str:
    """When a fault came: `` (game 2)`` (records number games from 0), or before any game."""
    return f" (game {game + 1})" if game >= 0 else " (at the start)"


def match_note(match_id: int, result: MatchResult) -> str:
    """``match 7: greedy 2-1 random [bwrap]; fault: random timeout (game 2): ...``"""
    seats = result.seats
    score = score_text([seat.name for seat in seats], [result.wins(i) for i in range(len(seats))])
    levels = ", ".join(sorted({seat.sandbox for seat in seats}))
    note = f"match {match_id}: {score} [{levels}]"
    for fault in result.faults():
        reason = fault.reason
        if len(reason) > REASON_CHARS:
            reason = reason[: REASON_CHARS - 3] + "..."
        where = fault_where(fault.game)
        note += f"; fault: {seats[fault.seat].name} {fault.status.value}{where}: {reason}"
    return note


class Progress:
    def __init__(self, total: int | None, stream: TextIO | None = None, width: int = 28) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.width = width
        self.done = 0
        self.started = time.monotonic()
        self.tty = self.stream.isatty()

    def update(self, done: int, note: str = "", *, keep: bool = False) -> None:
        """Show ``done`` matches with ``note``; ``keep``: on a terminal too, leave the
        line standing (a fault's reason) rather than draw the next over it."""
        self.done = done
        elapsed = time.monotonic() - self.started
        if self.total:
            share = min(1.0, done / self.total)
            filled = int(share * self.width)
            bar = "#" * filled + "." * (self.width - filled)
            eta = elapsed / done * (self.total - done) if done else 0.0
            noun = "match" if self.total == 1 else "matches"
            line = f"[{bar}] {done}/{self.total} {noun}, {elapsed:4.0f}s, ETA {eta:4.0f}s"
        else:
            line = f"{done} {'match' if done == 1 else 'matches'}, {elapsed:4.0f}s"
        if note:
            line += f"  {note}"
        if self.tty:
            self.stream.write("\r" + line.ljust(100) + ("\n" if keep else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
