"""A supervisor of plain child processes: each is restarted with back-off when it dies,
and one stop request ends them all.

Children are watched through pidfds in one ``select`` with the stop request's pipe,
so the supervisor sleeps until something happens.  A child that dies is started again
after 1 s, then 2, 4... up to a minute; one that ran for a minute is starting afresh.
On stop, every child gets SIGTERM and its own time to finish (a runner lets its
matches end), then SIGKILL.  Children get SIGTERM too if the supervisor itself dies
(``PR_SET_PDEATHSIG``), so none outlives it.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

__all__ = ["ChildSpec", "Supervisor"]

FIRST_BACKOFF = 1.0
MAX_BACKOFF = 60.0
STABLE_SECONDS = 60.0  # a child that ran this long is restarted without delay growth
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class ChildSpec:
    name: str  # for the log: "web", "runner"
    command: Sequence[str]
    stop_seconds: float  # how long it may take to stop after SIGTERM


@dataclass
class _Child:
    spec: ChildSpec
    process: subprocess.Popen[bytes] | None = None
    pidfd: int | None = None
    started: float = 0.0
    backoff: float = FIRST_BACKOFF
    restart_at: float | None = None  # when a dead child is due to start again
    restarts: int = field(default=0)


def _die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the supervisor dies."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class Supervisor:
    def __init__(self, children: Sequence[ChildSpec], log: Callable[[str], None]) -> None:
        self.children = [_Child(spec) for spec in children]
        self.log = log

    def _start(self, child: _Child) -> None:
        # Its own session: a Ctrl-C at the terminal reaches the supervisor alone, which
        # stops the children in order.
        child.process = subprocess.Popen(
            list(child.spec.command), preexec_fn=_die_with_parent, start_new_session=True
        )
        child.pidfd = os.pidfd_open(child.process.pid)
        child.started = time.monotonic()
        child.restart_at = None
        self.log(f"{child.spec.name} started (pid {child.process.pid})")

    def _reap(self, child: _Child) -> None:
        """The child exited: log it and schedule its restart."""
        assert child.process is not None
        code = child.process.wait()
        if child.pidfd is not None:
            os.close(child.pidfd)
            child.pidfd = None
        ran = time.monotonic() - child.started
        if ran >= STABLE_SECONDS:
            child.backoff = FIRST_BACKOFF
        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        self.log(
            f"{child.spec.name} (pid {child.process.pid}) stopped after {ran:.0f} s ({how}); "
            f"restarting in {child.backoff:g} s"
        )
        child.process = None
        child.restarts += 1
        child.restart_at = time.monotonic() + child.backoff
        child.backoff = min(child.backoff * 2, MAX_BACKOFF)

    def run(self, stop_fd: int, stopping: Callable[[], bool]) -> None:
        """Start the children and keep them running until ``stopping()`` (whose pipe is
        ``stop_fd``); then stop them."""
        for child in self.children:
            self._start(child)
        try:
            while not stopping():
                due = [c.restart_at for c in self.children if c.restart_at is not None]
                timeout = max(0.0, min(due) - time.monotonic()) if due else None
                watched = [stop_fd] + [c.pidfd for c in self.children if c.pidfd is not None]
                ready, _, _ = select.select(watched, [], [], timeout)
                if stopping():
                    break
                for child in self.children:
                    if child.pidfd is not None and child.pidfd in ready:
                        self._reap(child)
                now = time.monotonic()
                for child in self.children:
                    if child.restart_at is not None and child.restart_at <= now:
                        self._start(child)
        finally:
            self._stop_all()

    def _stop_all(self) -> None:
        running = [c for c in self.children if c.process is not None]
        for child in running:
            assert child.process is not None
            self.log(f"stopping {child.spec.name} (pid {child.process.pid})")
            child.process.send_signal(signal.SIGTERM)
        for child in running:
            assert child.process is not None
            try:
                code = child.process.wait(child.spec.stop_seconds)
            except subprocess.TimeoutExpired:
                self.log(f"{child.spec.name} did not stop in {child.spec.stop_seconds:g} s: killed")
                child.process.kill()
                code = child.process.wait()
            self.log(f"{child.spec.name} stopped (exit status {code})")
            if child.pidfd is not None:
                os.close(child.pidfd)
                child.pidfd = None
            child.process = None
