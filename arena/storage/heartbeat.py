"""The ladder runner's heartbeat: one row its runner rewrites every few seconds, so that
``/healthz`` and the pages can tell a runner that plays, one that waits for bots, one
that stopped, and one that died (its beat grows old)."""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from enum import StrEnum

from arena.storage.db import write_transaction

__all__ = ["BEAT_SECONDS", "Heartbeat", "RunnerState", "read_heartbeat", "write_heartbeat"]

#: How often a runner beats; a beat older than three of these means the runner is gone.
BEAT_SECONDS = 5.0


class RunnerState(StrEnum):
    PLAYING = "playing"
    IDLE = "idle"  # nothing to play: waits for a bot to be added or enabled
    STOPPING = "stopping"  # asked to stop: lets the matches in flight finish
    STOPPED = "stopped"


@dataclass(frozen=True, slots=True)
class Heartbeat:
    pid: int
    host: str
    started: float  # Unix time
    beat: float  # Unix time
    state: RunnerState
    running: int

    def age(self, now: float | None = None) -> float:
        return max(0.0, (time.time() if now is None else now) - self.beat)

    def stale(self, now: float | None = None) -> bool:
        """A runner that has not stopped but has not beaten for three beats: dead or hung."""
        return self.state is not RunnerState.STOPPED and self.age(now) > 3 * BEAT_SECONDS


def write_heartbeat(
    db: sqlite3.Connection, started: float, state: RunnerState, running: int
) -> None:
    """Replace the heartbeat with this process's, in its own transaction."""
    with write_transaction(db):
        db.execute(
            "INSERT OR REPLACE INTO runner (id, pid, host, started, beat, state, running) "
            "VALUES (1, ?, ?, ?, ?, ?, ?)",
            (os.getpid(), socket.gethostname(), started, time.time(), state.value, running),
        )


def read_heartbeat(db: sqlite3.Connection) -> Heartbeat | None:
    """The latest heartbeat; None if no runner ever ran this ladder."""
    row = db.execute("SELECT pid, host, started, beat, state, running FROM runner").fetchone()
    if row is None:
        return None
    pid, host, started, beat, state, running = tuple(row)
    return Heartbeat(
        int(pid), str(host), float(started), float(beat), RunnerState(state), int(running)
    )
