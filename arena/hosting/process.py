"""Starting a bot as a process, waiting until it serves, and killing all of it.

Each bot gets a directory ``run_dir/<name>-<random>/`` holding ``work/`` (its
HOME, and its working directory unless the command names one) and ``sock/bot.sock``
(the unix socket it must serve gRPC on, given to it as ``ARENA_BOT_ADDRESS``).
Its stdout and stderr go to ``run_dir/<name>.stdout.log`` and ``.stderr.log``
(``<name>.2.stderr.log``... for further copies of the same bot), which are kept;
the per-bot directory is removed when the bot is killed. If ``run_dir`` is so deep
that the socket path would not fit in a unix address (107 bytes), the socket
directory is made in /tmp instead.

Cleanup: :meth:`BotProcess.kill` is idempotent and is also run by a weakref
finalizer, which ``weakref`` calls at interpreter exit (an atexit hook) or when the
``BotProcess`` is garbage collected, whichever comes first. A referee killed with
SIGKILL cannot clean up; then ``limits`` and ``bwrap`` bots die with it (parent-death
signal) but their own children may not at ``limits`` level.

Call :meth:`BotProcess.start` from a thread that lives as long as the bot (for
example the one that plays the match and later calls ``kill``): Linux delivers the
parent-death signal when the *thread* that forked the bot exits.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from types import TracebackType

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.hosting._proctree import ProcessTree, count_user_tasks, ensure_child_subreaper
from arena.hosting.errors import BotStartError, HostingError
from arena.hosting.manifest import BotCommand
from arena.hosting.sandbox import (
    SandboxLevel,
    bwrap_command,
    parent_bound_command,
    rlimit_command,
)

__all__ = ["ADDRESS_ENV", "BotProcess"]

#: The environment variable that tells a bot where to serve.
ADDRESS_ENV = "ARENA_BOT_ADDRESS"

_log = logging.getLogger(__name__)
_SUN_PATH_MAX = 107  # sockaddr_un.sun_path is 108 bytes including the terminating NUL
_POLL = 0.02
_HEALTH_CALL_TIMEOUT = 0.25
_CHANNEL_OPTIONS = [
    # Retry the connection quickly while the bot is starting, not after the default 1 s.
    ("grpc.initial_reconnect_backoff_ms", 20),
    ("grpc.min_reconnect_backoff_ms", 20),
    ("grpc.max_reconnect_backoff_ms", 100),
]


class BotProcess:
    """A running bot process; create with :meth:`start`, always end with :meth:`kill`."""

    address: str
    """Where the bot serves gRPC, ``unix:/abs/path/bot.sock``."""
    level: SandboxLevel
    """The sandbox level the bot runs under."""
    pid: int
    """Pid of the process we started (under bwrap, of bwrap itself)."""
    stderr_path: Path
    stdout_path: Path
    workdir: Path
    """The bot's writable directory and HOME (its cwd unless the command names one)."""
    command: BotCommand

    def __init__(
        self,
        command: BotCommand,
        level: SandboxLevel,
        popen: subprocess.Popen[bytes],
        *,
        socket_path: Path,
        workdir: Path,
        stdout_path: Path,
        stderr_path: Path,
        cleanup: list[Path],
    ) -> None:
        """Internal: use :meth:`start`."""
        self.command = command
        self.level = level
        self.pid = popen.pid
        self.address = f"unix:{socket_path}"
        self.workdir = workdir
        self.stdout_path = stdout_path
        self.stderr_path = stderr_path
        self._socket_path = socket_path
        self._popen = popen
        marker = f"{ADDRESS_ENV}={self.address}".encode()
        self._cleanup = _Cleanup(ProcessTree(popen, marker), cleanup)
        self._finalizer = weakref.finalize(self, self._cleanup.run, 0.0)

    @classmethod
    def start(cls, command: BotCommand, level: SandboxLevel, run_dir: Path) -> BotProcess:
        """Start ``command`` under ``level``, with its files in ``run_dir``.

        Returns as soon as the process exists; call :meth:`wait_ready` next.
        Raises :class:`BotStartError` if the program cannot be found or started.
        """
        if not command.argv:
            raise HostingError(f"bot {command.name!r} ({command.source}): empty command")
        run_dir = Path(run_dir).resolve()
        run_dir.mkdir(parents=True, exist_ok=True)
        home = Path(tempfile.mkdtemp(prefix=f"{command.name}-", dir=run_dir))
        cleanup = [home]
        try:
            workdir = home / "work"
            workdir.mkdir()
            sock_dir = home / "sock"
            if len(os.fsencode(sock_dir / "bot.sock")) > _SUN_PATH_MAX:
                # Too long for a unix socket address: use a short directory instead.
                sock_dir = Path(tempfile.mkdtemp(prefix="arena-", dir="/tmp"))
                cleanup.append(sock_dir)
            else:
                sock_dir.mkdir()
            socket_path = sock_dir / "bot.sock"
            cwd = command.cwd.resolve() if command.cwd is not None else workdir
            env = {
                "PATH": os.environ.get("PATH", os.defpath),
                "HOME": str(workdir),
                "LANG": "C.UTF-8",
                "PYTHONUNBUFFERED": "1",
                **command.env,
                ADDRESS_ENV: f"unix:{socket_path}",
            }
            _check_program(command, cwd, env["PATH"])
            argv = _command_line(command, level, run_dir, cwd, workdir, sock_dir)
            ensure_child_subreaper()
            with contextlib.ExitStack() as logs:
                stdout_path, stdout = _open_log(run_dir, command.name, "stdout")
                logs.enter_context(stdout)
                stderr_path, stderr = _open_log(run_dir, command.name, "stderr")
                logs.enter_context(stderr)
                try:
                    popen = subprocess.Popen(
                        argv,
                        stdin=subprocess.DEVNULL,
                        stdout=stdout,
                        stderr=stderr,
                        cwd=workdir if level is SandboxLevel.BWRAP else cwd,
                        env=env,
                        start_new_session=True,
                        close_fds=True,
                    )
                except OSError as exc:
                    raise BotStartError(
                        f"bot {command.name!r} ({command.source}): cannot start {argv[0]!r}: {exc.strerror or exc}"
                    ) from exc
        except BaseException:
            for path in cleanup:
                shutil.rmtree(path, ignore_errors=True)
            raise

        return cls(
            command,
            level,
            popen,
            socket_path=socket_path,
            workdir=workdir,
            stdout_path=stdout_path,
            stderr_path=stderr_path,
            cleanup=cleanup,
        )

    def wait_ready(self, timeout: float, *, limit: float | None = None) -> None:
        """Poll grpc.health.v1 ``Health/Check`` (service "") until it answers SERVING.

        Raises :class:`BotStartError` if the process exits first, if it does not
        implement the health service, or after ``timeout`` seconds. Does not kill.
        ``limit`` is the whole start-up limit, as the reason names it, when the
        caller has already spent part of it (the rest is for the handshake).
        """
        deadline = time.monotonic() + timeout
        limit = timeout if limit is None else limit
        last = "its socket was never created"
        channel = grpc.insecure_channel(self.address, options=_CHANNEL_OPTIONS)
        try:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                if self.returncode() is not None:
                    raise BotStartError(self._failure(f"{self._status()} before it was ready"))
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise BotStartError(self._failure(f"was not ready after {limit:g} s ({last})"))
                if not self._socket_path.exists():
                    time.sleep(min(_POLL, remaining))
                    continue
                try:
                    reply = stub.Check(
                        health_pb2.HealthCheckRequest(service=""),
                        timeout=min(_HEALTH_CALL_TIMEOUT, remaining),
                        wait_for_ready=True,
                    )
                except grpc.RpcError as exc:
                    code = exc.code()
                    if code == grpc.StatusCode.UNIMPLEMENTED:
                        raise BotStartError(
                            self._failure("does not serve the grpc.health.v1.Health service")
                        ) from None
                    last = f"health check: {code.name} {exc.details() or ''}".strip()
                else:
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                    status_name = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
                    last = f"health check: {status_name}"
                    time.sleep(min(_POLL, max(0.0, deadline - time.monotonic())))
        finally:
            channel.close()

    def returncode(self) -> int | None:
        """The exit status once the process has exited (negative: killed by that signal)."""
        return self._popen.poll()

    def stderr_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines the bot wrote to stderr."""
        return _tail(self.stderr_path, lines)

    def kill(self, grace: float = 0.5) -> None:
        """SIGTERM the bot's processes, wait up to ``grace`` s, SIGKILL them all and reap.

        Idempotent. Leaves no process behind: not the children it forked, nor those
        that left its session with ``setsid()``, nor double-forked orphans. (At the
        ``none`` and ``limits`` levels an orphan is recognised by the bot's address in
        its environment, so one that also clears its environment can escape; under
        ``bwrap`` the pid namespace holds everything.)
        """
        self._cleanup.run(grace)
        self._finalizer.detach()

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.kill()

    def __repr__(self) -> str:
        state = "running" if self.returncode() is None else self._status()
        return f"<BotProcess {self.command.name!r} pid={self.pid} level={self.level.value} {state}>"

    def _status(self) -> str:
        code = self.returncode()
        if code is None:
            return "is still running"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with status {code}"

    def _failure(self, what: str) -> str:
        tail = self.stderr_tail()
        shown = "\n".join(f"    {line}" for line in tail.splitlines()) if tail else "    (nothing)"
        return f"bot {self.command.name!r} ({self.command.source}) {what}; last lines of {self.stderr_path}:\n{shown}"


class _Cleanup:
    """Kills a bot's processes and removes its directories, once. Holds no reference
    to the BotProcess, so a weakref finalizer can own it."""

    def __init__(self, tree: ProcessTree, paths: list[Path]) -> None:
        self._tree = tree
        self._paths = paths
        self._lock = threading.Lock()
        self._done = False

    def run(self, grace: float) -> None:
        with self._lock:
            if self._done:
                return
            try:
                self._tree.kill(grace)
            finally:
                self._done = True
                for path in self._paths:
                    shutil.rmtree(path, ignore_errors=True)


def _command_line(
    command: BotCommand,
    level: SandboxLevel,
    run_dir: Path,
    cwd: Path,
    workdir: Path,
    sock_dir: Path,
) -> list[str]:
    if level is SandboxLevel.NONE:
        return list(command.argv)
    if level is SandboxLevel.LIMITS:
        # RLIMIT_NPROC counts every task of our uid: allow `processes` more than run now.
        nproc = command.limits.processes + count_user_tasks(os.getuid())
        return rlimit_command(command.argv, command.limits, processes=nproc, die_with_parent=True)
    # In its own user namespace the count starts from zero (bwrap's init included).
    inner = rlimit_command(
        command.argv, command.limits, processes=command.limits.processes, die_with_parent=False
    )
    # Hide the run directory (other bots' logs) unless the bot's own files live in it.
    hidden = [] if cwd.is_relative_to(run_dir) else [run_dir]
    read_only = [*command.read_only_paths, *([cwd] if cwd != workdir else [])]
    needed = [Path(sys.prefix), Path(sys.executable), cwd, *command.read_only_paths]
    needed += [Path(arg) for arg in command.argv if os.path.isabs(arg) and os.path.exists(arg)]
    return parent_bound_command(
        bwrap_command(
            inner,
            writable=[workdir, sock_dir],
            read_only=read_only,
            hidden=hidden,
            chdir=cwd,
            visible_in_tmp=_tmp_roots(needed),
        )
    )


_TMP = Path("/tmp")


def _tmp_roots(paths: list[Path]) -> list[Path]:
    """The top folders under /tmp holding what the bot needs to run (its program, the
    Python environment it runs on): bwrap's private /tmp would hide them."""
    roots: set[Path] = set()
    for path in paths:
        for candidate in (path.absolute(), path.resolve()):
            if candidate != _TMP and candidate.is_relative_to(_TMP):
                roots.add(_TMP / candidate.relative_to(_TMP).parts[0])
    return sorted(roots)


def _check_program(command: BotCommand, cwd: Path, path: str) -> None:
    program = command.argv[0]
    found = (cwd / program) if os.sep in program else shutil.which(program, path=path)
    if found is None or not os.access(found, os.X_OK) or Path(found).is_dir():
        where = f"in {cwd}" if os.sep in program else f"on PATH={path}"
        raise BotStartError(
            f"bot {command.name!r} ({command.source}): program {program!r} not found or not executable {where}"
        )


def _open_log(run_dir: Path, name: str, stream: str) -> tuple[Path, io.BufferedWriter]:
    # Two copies of one bot in a run (self-play) get name.stream.log, name.2.stream.log, ...
    for n in range(1, 1000):
        path = run_dir / (f"{name}.{stream}.log" if n == 1 else f"{name}.{n}.{stream}.log")
        try:
            return path, open(path, "xb")  # the caller closes it after Popen
        except FileExistsError:
            continue
    raise HostingError(f"too many {stream} logs for bot {name!r} in {run_dir}")


def _tail(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as file:
            file.seek(0, os.SEEK_END)
            file.seek(max(0, file.tell() - 64 * 1024))
            data = file.read()
    except OSError:
        return ""
    return "\n".join(data.decode(errors="replace").splitlines()[-lines:]) if lines > 0 else ""
