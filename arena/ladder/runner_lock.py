"""One runner per ladder: an exclusive ``flock`` on ``DB.runner.lock`` beside the database
(and one ``arena compete`` per ladder: ``DB.compete.lock``, the same way).

The kernel drops the lock when its holder dies (even by ``kill -9``), so a crashed
runner never leaves a ladder locked; the file holds the holder's pid so that a refusal
can say which process has the ladder.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from types import TracebackType

from arena.errors import ArenaError
from arena.privatefiles import FILE_MODE

__all__ = ["LadderBusy", "RunnerLock", "held_by", "lock_path", "refuse_if_held"]


class LadderBusy(ArenaError, ValueError):
    """Another process runs this ladder (names its pid, also kept in ``pid``: None when
    it cannot be read)."""

    def __init__(self, message: str, pid: int | None = None) -> None:
        super().__init__(message)
        self.pid = pid


def lock_path(db: Path, role: str = "runner") -> Path:
    return db.with_name(f"{db.name}.{role}.lock")


def _holder_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def held_by(db: Path, role: str = "runner") -> int | None:
    """The pid of the process that runs this ladder now (as ``role``), or None when none
    does (-1: one does, but its pid cannot be read)."""
    try:
        fd = os.open(lock_path(db, role), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            # A shared lock is refused exactly while a runner holds its exclusive one.
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _holder_pid(fd) or -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _busy(db: Path, pid: int | None) -> LadderBusy:
    known = pid if pid is not None and pid > 0 else None
    who = f"process {known}" if known else "another process"
    return LadderBusy(
        f"ladder {db} is already run by {who} (one runner per ladder; stop it first)", known
    )


def refuse_if_held(db: Path, role: str = "runner") -> None:
    """``LadderBusy`` naming the holder if a process holds the ladder as ``role`` now."""
    pid = held_by(db, role)
    if pid is not None:
        raise _busy(db, pid)


class RunnerLock:
    """Held while a process runs the ladder; ``LadderBusy`` if another already does."""

    def __init__(self, db: Path, role: str = "runner") -> None:
        self.db = db
        self.path = lock_path(db, role)
        self._fd: int | None = None

    def __enter__(self) -> RunnerLock:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.path, flags, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _holder_pid(fd)
            os.close(fd)
            raise _busy(self.db, pid) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing the last descriptor releases the lock
            self._fd = None
