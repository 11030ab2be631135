"""Finding and killing every process a bot started (Linux /proc; degrades elsewhere).

A bot's processes are found three ways, so that none is left behind:

* its session and process group (the bot starts with ``start_new_session``),
* parent links in /proc from any process already found (catches children that
  called ``setsid()`` while their parent is alive),
* orphans re-parented to the referee, which is a child subreaper, whose environment
  still carries the bot's unique ``ARENA_BOT_ADDRESS`` (catches double-forked daemons),
* strays: orphans re-parented to the referee that left its session, are no bot's
  root, carry no other bot's address and started after the bot (catches a daemon that also emptied its environment;
  when several bots run in one referee, the first of them killed takes such strays
  with it, since nothing tells whose they were).

Under a root referee every bot also has a uid of its own, and everything running as
that uid is killed when its lease ends (:mod:`arena.hosting.identity`).

Processes are pinned with pidfds and their start time, so a pid that is recycled
while we work is never signalled or reaped by mistake, and only processes found
this way are ever reaped: other bots and other children of the referee are left alone.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ProcessTree", "count_user_tasks", "ensure_child_subreaper", "forget_child", "own_child"]

_log = logging.getLogger(__name__)
_PROC = Path("/proc")
_PR_SET_CHILD_SUBREAPER = 36
_subreaper_done = False
_live_roots: set[int] = set()  # pids of what this process started on purpose and not killed


def own_child(pid: int) -> None:
    """Mark ``pid``, a child started on purpose that is no bot's (a bot's template), as
    nobody's stray: killing a bot never takes it."""
    _live_roots.add(pid)


def forget_child(pid: int) -> None:
    _live_roots.discard(pid)


def ensure_child_subreaper() -> None:
    """Make this process a child subreaper (once), so orphaned bot processes become
    our children instead of init's, and we can find and reap them."""
    global _subreaper_done
    if _subreaper_done or not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        _log.warning("prctl(PR_SET_CHILD_SUBREAPER) failed: %s", os.strerror(errno))
    _subreaper_done = True


@dataclass(frozen=True, slots=True)
class _Stat:
    pid: int
    ppid: int
    pgrp: int
    session: int
    state: str
    starttime: int


def _read_stat(pid: int) -> _Stat | None:
    try:
        raw = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    # comm (field 2) may contain spaces and parentheses: split after the last ')'.
    rest = raw[raw.rindex(b")") + 2 :].split()
    return _Stat(pid, int(rest[1]), int(rest[2]), int(rest[3]), rest[0].decode(), int(rest[19]))


def _scan() -> dict[int, _Stat]:
    table: dict[int, _Stat] = {}
    try:
        names = os.listdir(_PROC)
    except OSError:
        return table
    for name in names:
        if name.isdigit():
            stat = _read_stat(int(name))
            if stat is not None:
                table[stat.pid] = stat
    return table


def _environ(pid: int) -> list[bytes]:
    try:
        return (_PROC / str(pid) / "environ").read_bytes().split(b"\0")
    except OSError:
        return []


def count_user_tasks(uid: int) -> int:
    """Number of tasks (threads) whose real uid is ``uid``: what RLIMIT_NPROC counts."""
    total = 0
    for stat in _scan().values():
        try:
            status = (_PROC / str(stat.pid) / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            total += int(fields.get("Threads", "1"))
    return total


class _Proc:
    """One process, pinned by a pidfd (where available) and its start time."""

    def __init__(self, stat: _Stat, fd: int | None) -> None:
        self.pid = stat.pid
        self.starttime = stat.starttime
        self.fd = fd
        self.killed = False

    @classmethod
    def open(cls, stat: _Stat) -> _Proc | None:
        fd: int | None = None
        if hasattr(os, "pidfd_open"):
            try:
                fd = os.pidfd_open(stat.pid)
            except OSError:
                return None  # already reaped
        # The pid may have been recycled between reading /proc and opening the pidfd.
        now = _read_stat(stat.pid)
        if now is None or now.starttime != stat.starttime:
            if fd is not None:
                os.close(fd)
            return None
        return cls(stat, fd)

    def current(self) -> _Stat | None:
        stat = _read_stat(self.pid)
        return stat if stat is not None and stat.starttime == self.starttime else None

    def exists(self) -> bool:
        return self.current() is not None

    def running(self) -> bool:
        stat = self.current()
        return stat is not None and stat.state not in ("Z", "X")

    def send(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if self.fd is not None:
                signal.pidfd_send_signal(self.fd, sig)
            elif self.exists():
                os.kill(self.pid, sig)

    def reap(self) -> None:
        """Reap the process if it is our zombie child; otherwise do nothing."""
        stat = self.current()
        if stat is None or stat.ppid != os.getpid() or stat.state != "Z":
            return
        with contextlib.suppress(ChildProcessError):
            if self.fd is not None and hasattr(os, "P_PIDFD"):
                os.waitid(os.P_PIDFD, self.fd, os.WEXITED | os.WNOHANG)
            else:
                os.waitpid(self.pid, os.WNOHANG)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class ProcessTree:
    """Every process belonging to one bot, rooted at the ``Popen`` that started it."""

    def __init__(self, root: subprocess.Popen[bytes], marker: bytes) -> None:
        self.root = root
        self.session = root.pid  # start_new_session: the root leads its session and group
        self.marker = marker
        self.marker_key = marker.partition(b"=")[0] + b"="
        self.procs: dict[int, _Proc] = {}
        root_stat = _read_stat(root.pid)
        self.started = root_stat.starttime if root_stat is not None else 0
        _live_roots.add(root.pid)

    def kill(self, grace: float, reap_timeout: float = 5.0) -> list[int]:
        """SIGTERM everything, wait up to ``grace``, SIGKILL everything, reap.

        Returns the pids still present after ``reap_timeout`` (normally none).
        """
        try:
            self._refresh()
            self._signal_group(signal.SIGTERM)
            for proc in self.procs.values():
                proc.send(signal.SIGTERM)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and any(p.running() for p in self.procs.values()):
                time.sleep(0.01)
            # Killed processes cannot fork any more, so this converges in a round or two.
            for _ in range(100):
                self._signal_group(signal.SIGKILL)
                for proc in self.procs.values():
                    if not proc.killed:
                        proc.send(signal.SIGKILL)
                        proc.killed = True
                if not self._refresh():
                    break
            return self._reap(reap_timeout)
        finally:
            for proc in self.procs.values():
                proc.close()
            self.procs.clear()
            _live_roots.discard(self.root.pid)

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.session, sig)

    def _refresh(self) -> list[_Proc]:
        """Find the bot's processes; return those not seen before."""
        table = _scan()
        found = {pid for pid, st in table.items() if self.session in (st.session, st.pgrp)}
        if self.root.returncode is None and self.root.pid in table:
            found.add(self.root.pid)
        me = os.getpid()
        mine = table.get(me)
        for pid, st in table.items():
            if st.ppid != me or pid in found or pid in _live_roots:
                continue
            environ = _environ(pid)
            if self.marker in environ:
                found.add(pid)
                continue
            # Another bot's address marks its process, even one started in the same clock
            # tick as this bot (start times count ticks of 10 ms).
            if any(entry.startswith(self.marker_key) for entry in environ):
                continue
            if mine is not None and st.session != mine.session and st.starttime >= self.started:
                found.add(pid)
        children: defaultdict[int, list[int]] = defaultdict(list)
        for pid, st in table.items():
            children[st.ppid].append(pid)
        stack = list(found)
        while stack:
            for child in children[stack.pop()]:
                if child not in found:
                    found.add(child)
                    stack.append(child)
        new: list[_Proc] = []
        for pid in found:
            known = self.procs.get(pid)
            if known is not None and known.starttime == table[pid].starttime:
                continue
            proc = _Proc.open(table[pid])
            if proc is not None:
                if known is not None:
                    known.close()
                self.procs[pid] = proc
                new.append(proc)
        return new

    def _reap(self, timeout: float) -> list[int]:
        deadline = time.monotonic() + timeout
        while True:
            # The root belongs to Popen, which must do its own waiting to record the status.
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.root.wait(timeout=0.005)
            for pid, proc in self.procs.items():
                if pid != self.root.pid:
                    proc.reap()  # zombies re-parented to us as their parents die
            left = [pid for pid, p in self.procs.items() if p.exists() and pid != self.root.pid]
            if self.root.returncode is None:
                left.append(self.root.pid)
            if not left:
                return []
            if time.monotonic() > deadline:
                _log.warning("bot processes still present after SIGKILL: %s", sorted(left))
                return left
            time.sleep(0.005)
