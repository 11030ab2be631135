"""What wakes an idle runner: a change to its database by another process, or a request
to stop.  Neither is polled in a busy loop.

Changes are seen with inotify on the database's folder (SQLite's commits write the
``-wal`` file beside it); ``PRAGMA data_version`` then says whether another connection
committed, so the runner's own heartbeats never wake it.  Where inotify is missing the
watch looks once a second, which is still cheap.  A stop request (SIGTERM, SIGINT)
writes to a pipe the same ``select`` waits on.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import sqlite3
import struct
import sys
import time
from pathlib import Path
from types import FrameType, TracebackType

__all__ = ["DatabaseWatch", "StopRequest"]

_IN_MODIFY = 0x002
_IN_CLOSE_WRITE = 0x008
_IN_MOVED_TO = 0x080
_IN_CREATE = 0x100
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC
_EVENT = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name)
_FALLBACK_SECONDS = 1.0


def _inotify(folder: Path) -> int | None:
    """An inotify descriptor watching writes in ``folder``; None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = int(libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC))
    except (OSError, AttributeError):
        return None
    if fd < 0:
        return None
    mask = _IN_MODIFY | _IN_CLOSE_WRITE | _IN_MOVED_TO | _IN_CREATE
    if libc.inotify_add_watch(fd, os.fsencode(folder), mask) < 0:
        os.close(fd)
        return None
    return fd


def _drain(fd: int) -> list[bytes]:
    """Read every pending event; the names of the files they are about."""
    names: list[bytes] = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return names
        if not chunk:
            return names
        offset = 0
        while offset + _EVENT.size <= len(chunk):
            _, _, _, length = _EVENT.unpack_from(chunk, offset)
            start = offset + _EVENT.size
            names.append(chunk[start : start + length].rstrip(b"\0"))
            offset = start + length


class StopRequest:
    """SIGTERM and SIGINT, while installed, ask the run to stop (the first signal's time
    is kept, so a grace period counts from it) instead of killing the process."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self) -> None:
        self.at: float | None = None  # time.monotonic() of the first request
        self._read, self._write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._previous: dict[int, object] = {}

    @property
    def requested(self) -> bool:
        return self.at is not None

    def fileno(self) -> int:
        return self._read

    def request(self) -> None:
        if self.at is None:
            self.at = time.monotonic()
        with contextlib.suppress(BlockingIOError):
            os.write(self._write, b"x")

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.request()

    def __enter__(self) -> StopRequest:
        for sig in self.SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)  # type: ignore[arg-type]  # what signal() gave back
        os.close(self._read)
        os.close(self._write)


class DatabaseWatch:
    """Waits for another process to commit to the ladder's database."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        self.db = db
        self._names = {os.fsencode(path.name), os.fsencode(path.name + "-wal")}
        self._fd = _inotify(path.resolve().parent)
        self._version = self._data_version()

    def _data_version(self) -> int:
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def changed(self) -> bool:
        """Whether another connection committed since the last call."""
        version = self._data_version()
        changed, self._version = version != self._version, version
        return changed

    def wait(self, timeout: float, stop: StopRequest | None = None) -> bool:
        """Block until another process commits, ``stop`` is requested, or ``timeout``
        seconds pass; whether the database changed."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or (stop is not None and stop.requested):
                return self.changed()
            watched = [stop.fileno()] if stop is not None else []
            if self._fd is not None:
                watched.append(self._fd)
            else:
                left = min(left, _FALLBACK_SECONDS)
            ready, _, _ = select.select(watched, [], [], left)
            if self._fd is not None and self._fd in ready:
                if self._names & set(_drain(self._fd)) and self.changed():
                    return True
            elif self._fd is None and self.changed():
                return True

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
