"""A progress bar with an ETA for ladder runs (stderr; one line per update off a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    def __init__(self, total: int | None, stream: TextIO | None = None, width: int = 28) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.width = width
        self.done = 0
        self.started = time.monotonic()
        self.tty = self.stream.isatty()

    def update(self, done: int, note: str = "") -> None:
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
            self.stream.write("\r" + line.ljust(100))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
