"""Templates: Python bots started warm and pristine under bwrap (the referee's side).

A seat of a Python bot (``{python} SCRIPT ARGS``) at the ``bwrap`` level is forked
from a template (:mod:`arena.hosting.template_main`), which has imported grpc and the
SDK but never a bot's code, and which builds the seat's own namespaces, filesystem
(the bwrap options of a cold seat), uid, limits and seccomp filter before the script
runs: the isolation of a cold start, without its interpreter start and imports.  One
template per interpreter and environment, started on first use and kept while this
process lives, at most :data:`MAX_TEMPLATES` of them (the least recently used goes
first).

Anything that goes wrong with a template (it does not start, dies, hangs) makes
:func:`template_seat` return ``None``, and the seat starts cold as before; the
template is dropped and not tried again in this process.
``ARENA_TEMPLATES=0`` turns templates off.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import queue
import re
import select
import signal
import socket
import struct
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from arena.hosting._proctree import forget_child, own_child
from arena.hosting.allowlist import Jail
from arena.hosting.errors import HostingError
from arena.hosting.manifest import BotCommand
from arena.hosting.sandbox import (
    bwrap_binary,
    bwrap_filesystem,
    bwrap_namespaces,
    confine_specs,
    parent_bound_command,
)
from arena.hosting.seccomp import filter_program
from arena.hosting.template_main import SeatRequest

__all__ = ["MAX_TEMPLATES", "TEMPLATES_ENV", "SeatPlan", "TemplateSeat", "template_seat"]

_log = logging.getLogger(__name__)

#: Set to ``0`` to start every bot cold.
TEMPLATES_ENV = "ARENA_TEMPLATES"
#: How many templates one process keeps.
MAX_TEMPLATES = 32
_READY_TIMEOUT = 30.0  # a template's imports, on a loaded machine
_ANNOUNCE_TIMEOUT = 10.0  # a seat's keeper and bot telling their pids


class TemplateError(HostingError):
    """A template could not start or serve a seat (the seat then starts cold)."""


@dataclass(frozen=True)
class SeatPlan:
    """One seat, as the process module prepares it for a cold start."""

    command: BotCommand
    jail: Jail  # what a cold seat's bwrap binds (its runtime, folder, work and sock)
    cwd: Path
    env: dict[str, str]
    user: tuple[int, int] | None  # a root referee's seat uid and gid
    files: tuple[tuple[Path, str], ...]  # (source, destination) bound read-only: /etc/passwd
    homes: Path  # the folder every seat's home is made in (the arena's folder)


def eligible(command: BotCommand) -> bool:
    """Whether ``command`` is ``PYTHON SCRIPT.py ARGS``: a Python interpreter (a template
    runs the same one, so its imports are the ones the bot would make; one that cannot
    import the arena fails to start its template, and the bot starts cold)."""
    argv = command.argv
    return (
        os.environ.get(TEMPLATES_ENV, "1") != "0"
        and len(argv) >= 2
        and _PYTHON.fullmatch(os.path.basename(argv[0])) is not None
        and argv[1].endswith(".py")
        and not argv[1].startswith("-")
    )


_PYTHON = re.compile(r"python3?(\.\d+)?")


class TemplateSeat:
    """A seat forked from a template: its keeper's exit report and both pids, pinned."""

    def __init__(self, channel: socket.socket, keeper: int, bot: int) -> None:
        self._channel = channel
        self.pid = keeper  # the keeper, in this process's pid namespace
        self.bot_pid = bot
        self._keeper_fd = os.pidfd_open(keeper)
        self._bot_fd = os.pidfd_open(bot)
        self._code: int | None = None
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        """The bot's exit status once it has exited (negative: killed by that signal)."""
        with self._lock:
            if self._code is None:
                self._read(0.0)
            return self._code

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self._channel], [], [], timeout)
        if not ready:
            return
        try:
            data = self._channel.recv(16)
        except OSError:
            data = b""
        # No report: the keeper was killed, and the bot with it (parent-death signal).
        self._code = struct.unpack("i", data[:4])[0] if len(data) >= 4 else -signal.SIGKILL

    def kill(self, grace: float) -> None:
        """SIGTERM the bot, wait up to ``grace`` s, then SIGKILL the keeper (the bot is
        pid 1 of its pid namespace: everything in it dies) and the bot, and wait."""
        with self._lock:
            if self._code is None and grace > 0:
                _signal(self._bot_fd, signal.SIGTERM)
                self._read(grace)
            if self._code is None:
                _signal(self._bot_fd, signal.SIGKILL)
                _signal(self._keeper_fd, signal.SIGKILL)
                self._read(5.0)
            for fd in (self._keeper_fd, self._bot_fd):
                os.close(fd)
            self._keeper_fd = self._bot_fd = -1
            self._channel.close()


def _signal(pidfd: int, signum: int) -> None:
    if pidfd >= 0:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(pidfd, signum)


class _Template:
    """One template process and the socket its requests go through."""

    def __init__(self, plan: SeatPlan) -> None:
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._lock = threading.Lock()
        try:
            self.process = _start_in_long_thread(lambda: self._spawn(plan, theirs))
        finally:
            theirs.close()
        own_child(self.process.pid)
        # Readable once it ends: pinned now, while it is our unreaped child.
        self._ended = os.pidfd_open(self.process.pid)
        ready, _, _ = select.select([self._control], [], [], _READY_TIMEOUT)
        reply = self._control.recv(1 << 16) if ready else b""
        if not reply:
            self.close()
            raise TemplateError(f"the template of {plan.command.name!r} did not start")
        self.modules = frozenset(str(name) for name in json.loads(reply))

    def _spawn(self, plan: SeatPlan, theirs: socket.socket) -> subprocess.Popen[bytes]:
        python = plan.command.argv[0]
        # -P: neither its folder nor the bot's is on its import path (no bot code runs here).
        argv = [python, "-P", "-m", "arena.hosting.template_main", str(theirs.fileno())]
        # Its view: the host's files read-only, from which each seat binds what a cold
        # seat of its bot gets, and the seats' homes writable (made later).  Its rights
        # (namespaces, mounts, a seat's uid) are the ones bwrap itself uses for a seat.
        command = [
            bwrap_binary() or "bwrap",
            *bwrap_namespaces(["CAP_SYS_ADMIN"]),
            "--ro-bind", "/", "/",
            "--proc", "/proc",
            "--dev", "/dev",
            "--bind", str(plan.homes), str(plan.homes),
            "--chdir", "/",
            "--", *argv,
        ]  # fmt: skip
        return subprocess.Popen(
            parent_bound_command(command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=None,
            env={**_template_env(plan), "HOME": "/"},
            cwd="/",
            start_new_session=True,
            pass_fds=(theirs.fileno(),),
        )

    def alive(self) -> bool:
        return self.process.poll() is None

    def seat(self, plan: SeatPlan, stdout: int, stderr: int) -> TemplateSeat:
        """Fork a seat for ``plan``, its stdout and stderr on these fds."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        try:
            request = _request(plan).to_json()
            with self._lock:
                socket.send_fds(self._control, [request], [stdout, stderr, theirs.fileno()])
            theirs.close()
            keeper = _pid_of(ours, self._ended)
            ours.send(b"ok")
            bot = _pid_of(ours, self._ended)
            seat = TemplateSeat(ours, keeper, bot)
            ours.send(b"ok")
            return seat
        except BaseException:
            ours.close()
            theirs.close()
            raise

    def close(self) -> None:
        self._control.close()
        ended = getattr(self, "_ended", -1)
        if ended >= 0:
            os.close(ended)
            self._ended = -1
        process = getattr(self, "process", None)
        if process is not None:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            forget_child(process.pid)


def _pid_of(channel: socket.socket, ended: int) -> int:
    """The pid a seat's process announced, translated by the kernel into ours; a
    ``TemplateError`` at once if the template ends first (``ended``: its pidfd)."""
    ready, _, _ = select.select([channel.fileno(), ended], [], [], _ANNOUNCE_TIMEOUT)
    if channel.fileno() not in ready:
        raise TemplateError("the template ended" if ready else "a seat did not announce itself")
    size = struct.calcsize("3i")
    _, ancillary, _, _ = channel.recvmsg(16, socket.CMSG_SPACE(size))
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid: int = struct.unpack("3i", data[:size])[0]
            return pid
    raise TemplateError("a seat's process ended before it started")


def _request(plan: SeatPlan) -> SeatRequest:
    jail = plan.jail
    return SeatRequest(
        command=plan.command.argv,
        cwd=str(plan.cwd),
        env=plan.env,
        user=plan.user,
        filesystem=tuple(
            bwrap_filesystem(read_only=jail.read_only, writable=jail.writable, files=plan.files)
        ),
        # A cold seat's inside bwrap (arena.hosting.process), plus what bwrap applies
        # itself there: no capabilities, the seccomp filter.
        confinement=tuple(
            confine_specs(
                plan.command.limits,
                processes=plan.command.limits.processes,
                user=plan.user,
                seccomp=filter_program(),
                drop_capabilities=True,
            )
        ),
    )


# ----------------------------------------------------------------- the registry --

_templates: OrderedDict[tuple[object, ...], _Template] = OrderedDict()
_failed: set[tuple[object, ...]] = set()
_registry_lock = threading.Lock()


def template_seat(plan: SeatPlan, stdout: int, stderr: int) -> TemplateSeat | None:
    """A seat for ``plan`` forked from its template (started here on first use), or
    ``None``: start it cold (its folder shadows a module the template preloads, or the
    template failed)."""
    key = _key(plan)
    with _registry_lock:
        if key in _failed:
            return None
        template = _templates.get(key)
        if template is not None and not template.alive():
            _log.warning("bot %r starts cold: its template died", plan.command.name)
            _drop(key, failed=True)
            return None
        if template is None:
            try:
                template = _Template(plan)
            except (OSError, TemplateError) as error:
                _log.warning("bot %r starts cold: %s", plan.command.name, error)
                _failed.add(key)
                return None
            _templates[key] = template
            while len(_templates) > MAX_TEMPLATES:
                _drop(next(iter(_templates)), failed=False)
        _templates.move_to_end(key)
    if _shadows(plan, template.modules):
        return None
    try:
        return template.seat(plan, stdout, stderr)
    except (OSError, TemplateError) as error:
        _log.warning("bot %r starts cold: its template failed (%s)", plan.command.name, error)
        with _registry_lock:
            if _templates.get(key) is template:
                _drop(key, failed=True)
        return None


def _template_env(plan: SeatPlan) -> dict[str, str]:
    """The seat's environment without what is the seat's own (its address, its home):
    what its template starts with, so one template serves every seat that shares it."""
    return {key: value for key, value in plan.env.items() if key not in _SEAT_OWN}


_SEAT_OWN = ("ARENA_BOT_ADDRESS", "HOME")


def _key(plan: SeatPlan) -> tuple[object, ...]:
    return (plan.command.argv[0], plan.homes, tuple(sorted(_template_env(plan).items())))


def _shadows(plan: SeatPlan, modules: frozenset[str]) -> bool:
    """Whether the script's folder holds a module of the template's own name: run cold,
    where the bot's own would be imported."""
    folder = (plan.cwd / plan.command.argv[1]).parent
    try:
        names = os.listdir(folder)
    except OSError:
        return True
    stems = {name.split(".")[0] for name in names}
    return not stems.isdisjoint(modules)


def _drop(key: tuple[object, ...], *, failed: bool) -> None:
    template = _templates.pop(key)
    if failed:
        _failed.add(key)
    template.close()


@atexit.register
def close_all() -> None:
    """Kill every template this process started (also run at exit)."""
    with _registry_lock:
        while _templates:
            _drop(next(iter(_templates)), failed=False)


# A template must outlive the thread that asks for it first: Linux sends the
# parent-death signal when the *thread* that forked a process exits.
_spawner_lock = threading.Lock()
_spawner: _Spawner | None = None


class _Spawner(threading.Thread):
    """One long-lived thread that starts templates (checked alive: a fork does not
    carry threads into the child)."""

    def __init__(self) -> None:
        super().__init__(name="arena-template-spawner", daemon=True)
        self.jobs: queue.SimpleQueue[
            tuple[Callable[[], subprocess.Popen[bytes]], Future[subprocess.Popen[bytes]]]
        ] = queue.SimpleQueue()

    def run(self) -> None:
        while True:
            job, future = self.jobs.get()
            try:
                future.set_result(job())
            except BaseException as error:
                future.set_exception(error)


def _start_in_long_thread(job: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    global _spawner
    with _spawner_lock:
        if _spawner is None or not _spawner.is_alive():
            _spawner = _Spawner()
            _spawner.start()
        spawner = _spawner
    future: Future[subprocess.Popen[bytes]] = Future()
    spawner.jobs.put((job, future))
    return future.result(timeout=_READY_TIMEOUT)
