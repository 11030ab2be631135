"""Looking at a ladder runner from outside, as an operator's tools would: its database read
only while it writes, and the live processes it and its bots left."""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import time
from contextlib import closing, suppress
from pathlib import Path
from typing import Any

ARENA = Path(sys.executable).parent / "arena"


def read(db: Path, query: str, *args: object) -> list[tuple[Any, ...]]:
    """A read-only look, as a reporting tool would take it while the runner writes."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as connection:
        return connection.execute(query, args).fetchall()


def count(db: Path, query: str, *args: object) -> int:
    value = read(db, query, *args)[0][0]
    assert isinstance(value, int)
    return value


def ours(marker: str, folder: Path) -> list[str]:
    """Our live processes: the runner's (marker) and the bots' (HOME, socket in ``folder``)."""
    found = []
    needles = (marker.encode(), str(folder).encode())
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if any(needle in environ for needle in needles):
            state, parent = stat.rsplit(")", 1)[1].split()[:2]
            command = cmdline.replace(b"\0", b" ").decode(errors="replace")[:160]
            found.append(f"pid {entry} (parent {parent}, state {state}): {command}")
    return found


def wait_for_none(marker: str, folder: Path, seconds: float) -> list[str]:
    deadline = time.monotonic() + seconds
    while (left := ours(marker, folder)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def kill_leftovers(left: list[str]) -> None:
    for line in left:
        pid = int(line.split()[1])
        for kill in (os.killpg, os.kill):
            with suppress(OSError):
                kill(pid, signal.SIGKILL)
