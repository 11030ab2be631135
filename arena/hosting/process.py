"""Starting a bot as a process, waiting until it serves, and killing all of it.

Each bot gets a home folder of its own, outside the run directory: under a root
referee ``/tmp/rummy-arena-0/seat-UID/`` for the uid it runs as
(:mod:`arena.hosting.identity`), else a fresh ``/tmp/rummy-arena-UID/NAME-XXXX/``.
It holds ``work/`` (the bot's HOME and, unless the command names one, its working
directory), ``sock/bot.sock``, the unix socket it must serve gRPC on, given to it
as ``ARENA_BOT_ADDRESS``, and ``tmp/`` (its ``TMPDIR`` outside bwrap, which mounts a
private ``/tmp``); all belong to the bot's uid, mode 0700.  What else it may reach is
its :class:`~arena.hosting.allowlist.Jail`, enforced by bwrap or, at ``limits``, by
Landlock and seccomp (:mod:`arena.hosting.confine`).  The home is
removed when the bot is killed.  Its stdout and stderr go through pipes into
``run_dir/<name>.stdout.log`` and ``.stderr.log`` (:mod:`arena.hosting.logs`: owner-only,
capped), which are kept.

Cleanup: :meth:`BotProcess.kill` is idempotent and is also run by a weakref
finalizer, which ``weakref`` calls at interpreter exit (an atexit hook) or when the
``BotProcess`` is garbage collected, whichever comes first.  A referee killed with
SIGKILL cannot clean up; then bots at every level but ``none`` die with it
(parent-death signal), under bwrap with everything they started (pid namespace), and
the next lease of the same uid kills whatever still runs as it.

Call :meth:`BotProcess.start` from a thread that lives as long as the bot (for
example the one that plays the match and later calls ``kill``): Linux delivers the
parent-death signal when the *thread* that forked the bot exits.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.hosting._proctree import ProcessTree, ensure_child_subreaper
from arena.hosting.allowlist import Jail, runtime_paths
from arena.hosting.errors import BotStartError, HostingError
from arena.hosting.identity import (
    SeatIdentity,
    configured_uid_range,
    folder_problem,
    lease_identity,
    path_problem,
)
from arena.hosting.logs import DEFAULT_LOG_CAP, LogPump
from arena.hosting.manifest import BotCommand
from arena.hosting.programs import program_problem
from arena.hosting.sandbox import (
    SandboxLevel,
    bwrap_command,
    limits_processes,
    parent_bound_command,
    rlimit_command,
    seccomp_memfd,
)
from arena.hosting.shared_python import unprivileged_python
from arena.hosting.templates import SeatPlan, TemplateSeat, eligible, template_seat

__all__ = ["ADDRESS_ENV", "BotProcess", "arena_folder", "reachable_copy"]

#: The environment variable that tells a bot where to serve.
ADDRESS_ENV = "ARENA_BOT_ADDRESS"

_log = logging.getLogger(__name__)
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
    """Pid of the process we started (a wrapper, bwrap, or the bot itself)."""
    uid: int
    """The uid the bot runs as, seen from outside any sandbox."""
    stderr_path: Path
    stdout_path: Path
    workdir: Path
    """The bot's writable directory and HOME (its cwd unless the command names one)."""
    command: BotCommand

    from_template: bool
    """Whether the bot was forked from its template (:mod:`arena.hosting.templates`)."""

    def __init__(
        self,
        command: BotCommand,
        level: SandboxLevel,
        run: subprocess.Popen[bytes] | TemplateSeat,
        home: _Home,
        logs: LogPump,
    ) -> None:
        """Internal: use :meth:`start`."""
        self.command = command
        self.level = level
        self.pid = run.pid
        self.from_template = isinstance(run, TemplateSeat)
        self.uid = home.identity.uid if home.identity is not None else os.getuid()
        self.address = f"unix:{home.socket}"
        self.workdir = home.work
        self.stdout_path = logs.paths["stdout"]
        self.stderr_path = logs.paths["stderr"]
        self._socket_path = home.socket
        self._run = run
        self._logs = logs
        #: Whether the logs outlive the bot (False: a temporary run folder, removed with
        #: it), so a failure names the log's path only where the user can open it.
        self.logs_kept = True
        marker = f"{ADDRESS_ENV}={self.address}".encode()
        tree = run if isinstance(run, TemplateSeat) else ProcessTree(run, marker)
        self._cleanup = _Cleanup(tree, home, logs)
        self._finalizer = weakref.finalize(self, self._cleanup.run, 0.0)

    @classmethod
    def start(
        cls,
        command: BotCommand,
        level: SandboxLevel,
        run_dir: Path,
        *,
        log_cap: int = DEFAULT_LOG_CAP,
        seat_uids: tuple[int, int] | None = None,
    ) -> BotProcess:
        """Start ``command`` under ``level``, with its logs in ``run_dir``.

        Returns as soon as the process exists; call :meth:`wait_ready` next.
        ``log_cap`` bytes of each of stdout and stderr are kept; ``seat_uids`` is the
        range a root referee takes the bot's uid from (default: see
        :mod:`arena.hosting.identity`).  Raises :class:`BotStartError` if the program
        cannot be found, reached by the bot's uid, or started.
        """
        if not command.argv:
            raise HostingError(f"bot {command.name!r} ({command.source}): empty command")
        run_dir = Path(run_dir).resolve()
        run_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        home = _Home.make(command.name, seat_uids)
        logs: LogPump | None = None
        try:
            cwd = command.cwd.resolve() if command.cwd is not None else home.work
            env = {
                "PATH": os.environ.get("PATH", os.defpath),
                "HOME": str(home.work),
                "LANG": "C.UTF-8",
                "PYTHONUNBUFFERED": "1",
                **({} if level is SandboxLevel.BWRAP else {"TMPDIR": str(home.tmp)}),
                **command.env,
                ADDRESS_ENV: f"unix:{home.socket}",
            }
            problem = program_problem(command)
            if problem is not None:
                raise BotStartError(f"bot {command.name!r} ({command.source}): {problem}")
            if home.identity is not None and level is not SandboxLevel.BWRAP:
                command = _on_reachable_python(command, home.identity)
                _check_reachable(command, level, cwd, env["PATH"], home.identity)
            elif home.identity is not None and cwd != home.work:
                problem = folder_problem(cwd, home.identity.uid, home.identity.gid)
                if problem is not None:
                    raise BotStartError(
                        f"bot {command.name!r} ({command.source}) runs as uid "
                        f"{home.identity.uid}, and its folder {problem}: make it readable by "
                        f"other users (chmod a+rX)"
                    )
            logs = LogPump(run_dir, command.name, log_cap)
            seat = None
            if level is SandboxLevel.BWRAP and eligible(command):
                seat = template_seat(
                    _seat_plan(command, cwd, env, home),
                    logs.child_ends["stdout"],
                    logs.child_ends["stderr"],
                )
            if seat is not None:
                logs.start()
                return cls(command, level, seat, home, logs)
            seccomp = seccomp_memfd() if level is SandboxLevel.BWRAP else None
            try:
                argv = _command_line(command, level, cwd, env["PATH"], home, seccomp)
                ensure_child_subreaper()
                try:
                    popen = subprocess.Popen(
                        argv,
                        stdin=subprocess.DEVNULL,
                        stdout=logs.child_ends["stdout"],
                        stderr=logs.child_ends["stderr"],
                        cwd=home.work if level is SandboxLevel.BWRAP else cwd,
                        env=env,
                        start_new_session=True,
                        close_fds=True,
                        pass_fds=() if seccomp is None else (seccomp,),
                    )
                except OSError as exc:
                    raise BotStartError(
                        f"bot {command.name!r} ({command.source}): cannot start {argv[0]!r}: {exc.strerror or exc}"
                    ) from exc
            finally:
                if seccomp is not None:
                    os.close(seccomp)
            logs.start()
        except BaseException:
            if logs is not None:
                logs.close(timeout=0.0)
            home.remove()
            raise
        return cls(command, level, popen, home, logs)

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
        return self._run.poll()

    def wait_output(self, timeout: float) -> bool:
        """Wait until all the bot (and what it started) wrote is in its log files: the
        copying thread lags the process, so an exit status alone does not mean that.
        ``False`` if something still holds a pipe after ``timeout`` seconds."""
        return self._logs.wait(timeout)

    def stderr_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines the bot wrote to stderr."""
        if self.returncode() is not None:
            self.wait_output(0.2)  # what it wrote last may still be in the pipe
        return _tail(self.stderr_path, lines)

    def kill(self, grace: float = 0.5) -> None:
        """SIGTERM the bot's processes, wait up to ``grace`` s, SIGKILL them all and reap.

        Idempotent. Leaves no process behind: not the children it forked, nor those
        that left its session with ``setsid()``, nor double-forked orphans, even with
        an empty environment: under a root referee everything that runs as the bot's
        uid is killed; under ``bwrap`` the pid namespace holds everything; otherwise
        an orphan is recognised by the bot's address in its environment or, failing
        that, as a stray the referee adopted (see :mod:`arena.hosting._proctree`).
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
        where = (
            str(self.stderr_path)
            if self.logs_kept
            else "its stderr (not kept: give a folder for replays and logs, e.g. --replays DIR)"
        )
        return f"bot {self.command.name!r} ({self.command.source}) {what}; last lines of {where}:\n{shown}"


@dataclass
class _Home:
    """A bot's own folder (``work/`` and ``sock/``) and the uid it runs as, if its own."""

    root: Path
    identity: SeatIdentity | None

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def tmp(self) -> Path:
        """Its private tmp folder (``TMPDIR``) outside bwrap, which mounts its own /tmp."""
        return self.root / "tmp"

    @property
    def socket(self) -> Path:
        return self.root / "sock" / "bot.sock"

    def etc_files(self) -> tuple[tuple[Path, str], ...]:
        """The sandbox's /etc/passwd and /etc/group (source, destination), written for a
        seat uid of its own (:func:`_write_passwd`); none for a bot without one."""
        if self.identity is None:
            return ()
        return tuple((self.root / name, f"/etc/{name}") for name in ("passwd", "group"))

    @classmethod
    def make(cls, name: str, seat_uids: tuple[int, int] | None) -> _Home:
        base = arena_folder()
        identity = lease_identity(seat_uids)
        try:
            if identity is not None:
                root = base / f"seat-{identity.uid}"
                shutil.rmtree(root, ignore_errors=True)  # a dead referee's leftovers
                root.mkdir(mode=0o711)
            else:
                root = Path(tempfile.mkdtemp(prefix=f"{name[:_NAME_IN_HOME]}-", dir=base))
            os.chmod(root, 0o711)  # the bot may pass through, not list
            for sub in ("work", "sock", "tmp"):
                (root / sub).mkdir(mode=0o700)
                if identity is not None:
                    os.chown(root / sub, identity.uid, identity.gid)
            if identity is not None:
                _write_passwd(root, identity.uid, identity.gid)
        except BaseException:
            if identity is not None:
                identity.release()
            raise
        return cls(root, identity)

    def remove(self) -> None:
        try:
            if self.identity is not None:
                self.identity.kill_processes()  # nothing of the bot's writes here any more
            shutil.rmtree(self.root, ignore_errors=True)
        finally:
            # Only now: the moment the lease ends, another referee may take the uid and
            # make its bot's home at this very path (seat-UID), which a later rmtree
            # here would delete from under it (its socket "never created").
            if self.identity is not None:
                self.identity.release()


_SUN_PATH_MAX = 107  # sizeof(sockaddr_un.sun_path) - 1 on Linux
_NAME_IN_HOME = 24  # a home's folder is named after its bot, cut to this many characters
#: What a home adds below the arena's folder: /NAME-XXXXXXXX/sock/bot.sock at the longest.
_HOME_ROOM = len(f"/{'n' * _NAME_IN_HOME}-xxxxxxxx/sock/bot.sock")


def arena_folder() -> Path:
    """``/tmp/rummy-arena-EUID``: the arena's own folder for what bots run from (their
    homes, a Python they can reach, bots unpacked from archives), created 0711, never a
    link, never someone else's, so nobody can plant a folder or a link there; bots of
    other uids may pass through it but not list it."""
    base = Path(tempfile.gettempdir()) / f"rummy-arena-{os.geteuid()}"
    if len(os.fsencode(base)) + _HOME_ROOM > _SUN_PATH_MAX:
        # A bot's socket lies below this folder, and a unix socket's path holds at most
        # 107 bytes: a deep TMPDIR would leave none for it (gRPC: "target uri is not valid").
        base = Path("/tmp") / base.name
    with contextlib.suppress(FileExistsError):
        base.mkdir(mode=0o711)
    info = base.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise HostingError(f"{base} is not a folder of this user's: remove it and try again")
    os.chmod(base, 0o711)
    return base


def _write_passwd(root: Path, uid: int, gid: int) -> None:
    """The sandbox's /etc/passwd and /etc/group: root and the bot's own user only."""
    (root / "passwd").write_text(
        f"root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
        f"bot:x:{uid}:{gid}:arena bot:{root / 'work'}:/usr/sbin/nologin\n"
    )
    (root / "group").write_text(f"root:x:0:\nbot:x:{gid}:\n")
    for name in ("passwd", "group"):
        os.chmod(root / name, 0o644)


class _Cleanup:
    """Kills a bot's processes, ends its uid lease, removes its home and closes its
    logs, once.  Holds no reference to the BotProcess, so a weakref finalizer can own it."""

    def __init__(self, tree: ProcessTree | TemplateSeat, home: _Home, logs: LogPump) -> None:
        self._tree = tree
        self._home = home
        self._logs = logs
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
                try:
                    self._home.remove()
                finally:
                    self._logs.close()


def _command_line(
    command: BotCommand,
    level: SandboxLevel,
    cwd: Path,
    search_path: str,
    home: _Home,
    seccomp: int | None,
) -> list[str]:
    identity = home.identity
    user = (identity.uid, identity.gid) if identity is not None else None
    if level is SandboxLevel.NONE:
        if user is None:
            return list(command.argv)
        return rlimit_command(command.argv, None, processes=0, die_with_parent=True, user=user)
    if level is SandboxLevel.LIMITS:
        return rlimit_command(
            command.argv,
            command.limits,
            processes=limits_processes(command.limits.processes, user),
            die_with_parent=True,
            user=user,
            jail=_jail(command, cwd, search_path, home, runtime=[]),
            seccomp=True,
        )
    inner = rlimit_command(
        command.argv,
        command.limits,
        processes=command.limits.processes,  # a uid or a user namespace of its own
        die_with_parent=False,
        user=user,
    )
    wrapper = os.path.realpath(sys.executable)
    jail = _jail(command, cwd, search_path, home, runtime=runtime_paths(wrapper, cwd, search_path))
    return parent_bound_command(
        bwrap_command(
            inner,
            read_only=jail.read_only,
            writable=jail.writable,
            chdir=cwd,
            files=home.etc_files(),
            seccomp_fd=seccomp,
        )
    )


def _seat_plan(command: BotCommand, cwd: Path, env: dict[str, str], home: _Home) -> SeatPlan:
    """What a seat forked from a template needs to be the cold seat ``_command_line``
    would start under bwrap: the same binds, environment, uid and limits."""
    identity = home.identity
    return SeatPlan(
        command=command,
        jail=_jail(command, cwd, env["PATH"], home, runtime=[]),
        cwd=cwd,
        env=env,
        user=(identity.uid, identity.gid) if identity is not None else None,
        files=home.etc_files(),
        homes=arena_folder(),
    )


def _jail(
    command: BotCommand, cwd: Path, search_path: str, home: _Home, runtime: list[Path]
) -> Jail:
    """The bot's allow-list: ``runtime`` (what runs before the bot: bwrap's wrapper),
    its program's runtime, its extra read-only paths and its folder; its work dir and
    socket dir writable, and at ``limits`` its private tmp folder."""
    read_only = [
        *runtime,
        *runtime_paths(command.argv[0], cwd, search_path),
        *command.read_only_paths,
        *([cwd] if cwd != home.work else []),
    ]
    return Jail(tuple(dict.fromkeys(read_only)), (home.work, home.socket.parent), home.tmp)


def reachable_copy(command: BotCommand, level: SandboxLevel) -> tuple[BotCommand, Path | None]:
    """A bot whose folder its own uid cannot reach at ``limits`` (a root referee; the
    folder under a root-only one, as a ladder's data folder or a test's often is) runs
    from a copy in the arena's folder, which its uid can pass through: the command with
    its folder (and paths inside it) moved there, and the copy (``None``: no copy made;
    the caller removes it with the bot).  bwrap needs none (it binds the folder as root);
    a level that is not ``limits``, or a folder its uid reaches, runs where it is."""
    cwd = command.cwd
    if level is not SandboxLevel.LIMITS or os.geteuid() != 0 or cwd is None:
        return command, None
    seat, _ = configured_uid_range()  # any seat uid: none owns the folder or its group
    if path_problem(cwd, seat, seat) is None:
        return command, None
    copy = Path(tempfile.mkdtemp(prefix="bot-copy-", dir=arena_folder()))
    os.chmod(copy, 0o711)
    target = copy / "bot"
    try:
        shutil.copytree(cwd, target, symlinks=True)
    except BaseException:
        shutil.rmtree(copy, ignore_errors=True)
        raise
    os.chmod(target, 0o755)

    def moved(path: Path) -> Path:
        return target / path.relative_to(cwd) if path.is_relative_to(cwd) else path

    argv = tuple(
        str(moved(Path(arg))) if arg.startswith(f"{cwd}/") else arg for arg in command.argv
    )
    moved_command = dataclasses.replace(
        command,
        argv=argv,
        cwd=target,
        read_only_paths=tuple(moved(path) for path in command.read_only_paths),
    )
    return moved_command, copy


def _on_reachable_python(command: BotCommand, identity: SeatIdentity) -> BotCommand:
    """A bot run on the arena's own interpreter, which its uid cannot reach outside bwrap
    (a Python under root's home), runs on a copy it can: same version, same packages."""
    program = shutil.which(command.argv[0]) or command.argv[0]
    if os.path.realpath(program) != os.path.realpath(sys.executable):
        return command
    if path_problem(Path(program), identity.uid, identity.gid) is None:
        return command
    python = unprivileged_python(arena_folder())
    return dataclasses.replace(command, argv=(python, *command.argv[1:]))


def _check_reachable(
    command: BotCommand, level: SandboxLevel, cwd: Path, path: str, identity: SeatIdentity
) -> None:
    """Outside bwrap a bot of its own uid sees the host's files with that uid's rights:
    say which path closes the way, rather than let the exec fail with EACCES."""
    needed = [*runtime_paths(command.argv[0], cwd, path), cwd]
    for target in needed:
        problem = path_problem(target, identity.uid, identity.gid)
        if problem is not None:
            raise BotStartError(
                f"bot {command.name!r} ({command.source}) runs as uid {identity.uid} at the "
                f"{level.value!r} level, and {problem}: install what it needs where other "
                f"users can read it, or use the bwrap level"
            )


def _tail(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as file:
            file.seek(0, os.SEEK_END)
            file.seek(max(0, file.tell() - 64 * 1024))
            data = file.read()
    except OSError:
        return ""
    return "\n".join(data.decode(errors="replace").splitlines()[-lines:]) if lines > 0 else ""
