"""A bot's stdout and stderr, copied into owner-only log files up to a cap.

The bot never holds a log file: it writes into pipes, and one thread per bot copies
what arrives into ``NAME.stdout.log`` and ``NAME.stderr.log`` (mode 0600, so one bot
cannot read another's logs even where it could reach the folder).  Past the cap the
pipes are still read, so a chatty bot never blocks on a full pipe, but the bytes are
dropped, and the log ends with a line saying how many.  The cap holds at every
sandbox level, which an rlimit on file size could not give at ``none``.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
from pathlib import Path

from arena.hosting.errors import HostingError

__all__ = ["DEFAULT_LOG_CAP", "LogPump", "open_log"]

#: Bytes kept of each of a bot's streams unless the caller says otherwise (16 MiB).
DEFAULT_LOG_CAP = 16 * 1024 * 1024
_CHUNK = 65536


def open_log(run_dir: Path, name: str, stream: str) -> tuple[Path, int]:
    """A new owner-only log file for ``stream`` of bot ``name``: ``name.stream.log``,
    then ``name.2.stream.log``... for further copies of one bot (self-play)."""
    for n in range(1, 1000):
        path = run_dir / (f"{name}.{stream}.log" if n == 1 else f"{name}.{n}.{stream}.log")
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
            return path, os.open(path, flags, 0o600)
        except FileExistsError:
            continue
    raise HostingError(f"too many {stream} logs for bot {name!r} in {run_dir}")


class LogPump:
    """Copies a bot's two output pipes into its log files; see the module docstring."""

    def __init__(self, run_dir: Path, name: str, cap: int = DEFAULT_LOG_CAP) -> None:
        if cap < 0:
            raise HostingError(f"log cap must be at least 0 bytes, got {cap}")
        self.cap = cap
        self.paths: dict[str, Path] = {}
        self._files: dict[int, tuple[int, str]] = {}  # pipe read end -> (log fd, stream)
        self.child_ends: dict[str, int] = {}  # what the bot writes into
        try:
            for stream in ("stdout", "stderr"):
                path, log = open_log(run_dir, name, stream)
                self.paths[stream] = path
                read, write = os.pipe2(os.O_CLOEXEC)
                self._files[read] = (log, stream)
                self.child_ends[stream] = write
        except BaseException:
            self._close_all()
            raise
        self._thread = threading.Thread(target=self._run, name=f"logs-{name}", daemon=True)

    def start(self) -> None:
        """Start copying; call once the bot holds its ends (they are closed here)."""
        for write in self.child_ends.values():
            os.close(write)
        self.child_ends.clear()
        self._thread.start()

    def wait(self, timeout: float) -> bool:
        """Wait until both pipes are closed (the bot and all it started are gone) and
        everything they wrote is in the files; ``False`` if ``timeout`` passed first."""
        if self._thread.ident is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def close(self, timeout: float = 1.0) -> None:
        """Finish copying (up to ``timeout``), then close everything.  Idempotent."""
        self.wait(timeout)
        if not self._thread.is_alive():
            self._close_all()
        # else: a process we could not kill still holds a pipe; the daemon thread
        # keeps its ends and closes them when that process is gone.

    def _run(self) -> None:
        written = {read: 0 for read in self._files}
        dropped = {read: 0 for read in self._files}
        with selectors.DefaultSelector() as selector:
            for read in self._files:
                selector.register(read, selectors.EVENT_READ)
            while selector.get_map():
                for key, _ in selector.select():
                    read = int(key.fd)
                    try:
                        data = os.read(read, _CHUNK)
                    except OSError:
                        data = b""
                    if not data:
                        selector.unregister(read)
                        continue
                    keep = data[: max(0, self.cap - written[read])]
                    if keep:
                        self._write(self._files[read][0], keep)
                        written[read] += len(keep)
                    dropped[read] += len(data) - len(keep)
        for read, count in dropped.items():
            if count:
                note = f"\n[arena: {count} more bytes dropped: the log is capped at {self.cap} bytes]\n"
                self._write(self._files[read][0], note.encode())
        self._close_all()

    @staticmethod
    def _write(fd: int, data: bytes) -> None:
        with contextlib.suppress(OSError):  # a full disk loses log lines, not the match
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]

    def _close_all(self) -> None:
        for write in self.child_ends.values():
            with contextlib.suppress(OSError):
                os.close(write)
        self.child_ends.clear()
        files, self._files = self._files, {}
        for read, (log, _) in files.items():
            for fd in (read, log):
                with contextlib.suppress(OSError):
                    os.close(fd)
