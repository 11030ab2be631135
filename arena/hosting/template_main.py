"""The template of Python bots: warm, pristine, forked once per seat (runs in bwrap).

A cold Python bot spends most of its start importing grpc and the SDK.  A template
is started once per interpreter and environment, under bwrap with the host's files
read-only (and the seats' homes writable), imports that trusted code and **no code
of any bot**, and then forks a seat per request.  Each seat builds its own walls
before the bot's script runs:

1. the forked child (the seat's *keeper*, trusted code only) makes new mount, pid,
   network, IPC, UTS and cgroup namespaces (and a user namespace where the seat has
   no uid of its own), as bwrap makes for a cold seat, tells the host its pid
   (``SCM_CREDENTIALS``, which the kernel translates into the host's pid namespace)
   and forks the bot's process, pid 1 of the new pid namespace;
2. the bot's process builds its filesystem from the bwrap options a cold seat of its
   bot gets (:func:`_build_root`: every bind cloned from the template's view, a new
   ``/proc``, ``/dev`` and ``/tmp``, then ``pivot_root``), takes its stdout and
   stderr, applies the cold seat's :mod:`arena.hosting.confine` specs with what bwrap
   adds to them (the rlimits, its seat's uid under a root referee, death with the
   keeper, no capability left, ``no_new_privs``, the seccomp filter), and only then
   runs the bot's script as ``python SCRIPT ARGS`` would.

So what a seat can carry from one match to the next is nothing: its files live in a
home made for the match, its memory starts as the template's, which never ran a
bot's code nor saw a match.  The keeper reports the bot's exit status and dies with
the template; the template dies with the referee (bwrap ``--die-with-parent``).

Requests come on the fd its argument names, a ``SOCK_SEQPACKET`` socket: one
:class:`SeatRequest` with three fds (stdout, stderr, the seat's channel to the host).
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import ctypes
import importlib
import importlib.machinery
import json
import os
import resource
import signal
import socket
import struct
import sys
import traceback
import types
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from arena.hosting import confine

__all__ = ["PRELOADED", "SeatRequest", "main"]

#: What a template imports: the SDK's serving path and the codecs (never a bot's code).
PRELOADED = (
    "grpc",
    "grpc.aio",
    "grpc_health.v1.health",
    "arena.sdk",
    "arena.sdk.server",
    "arena.protocol.gin",
    "arena.protocol.rummy",
)

_CLONE_NEWNS = 0x00020000
_CLONE_NEWCGROUP = 0x02000000
_CLONE_NEWUTS = 0x04000000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_NAMESPACES = (
    _CLONE_NEWNS | _CLONE_NEWCGROUP | _CLONE_NEWUTS | _CLONE_NEWIPC | _CLONE_NEWPID | _CLONE_NEWNET
)
_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18
_SYS_OPEN_TREE = 428
_SYS_MOVE_MOUNT = 429
_SYS_PIVOT_ROOT = 155
_MNT_DETACH = 2
_OPEN_TREE_CLONE = 1
_OPEN_TREE_CLOEXEC = os.O_CLOEXEC
_AT_RECURSIVE = 0x8000
_AT_FDCWD = -100
_MOVE_MOUNT_F_EMPTY_PATH = 0x4
_SETUP_FAILED = 126


@dataclass(frozen=True)
class SeatRequest:
    """What the host asks of a template for one seat (one JSON message)."""

    command: tuple[str, ...]  # the bot's whole command: its interpreter, script, arguments
    cwd: str
    env: dict[str, str]
    user: tuple[int, int] | None  # a root referee's seat uid and gid; None: keep ours
    filesystem: tuple[str, ...]  # bwrap's options for a cold seat's filesystem
    confinement: tuple[str, ...]  # arena.hosting.confine's specs: limits, uid, seccomp...

    def to_json(self) -> bytes:
        return json.dumps(asdict(self)).encode()

    @classmethod
    def from_json(cls, data: bytes) -> SeatRequest:
        raw = json.loads(data)
        return cls(
            command=tuple(raw["command"]),
            cwd=raw["cwd"],
            env=dict(raw["env"]),
            user=tuple(raw["user"]) if raw["user"] is not None else None,
            filesystem=tuple(raw["filesystem"]),
            confinement=tuple(raw["confinement"]),
        )


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    for name in PRELOADED:
        importlib.import_module(name)
    # Seats' keepers are reaped by the kernel: nothing to wait for here.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    # Ready: the top-level modules it holds (a bot's folder must not shadow them).
    control.send(json.dumps(sorted({name.partition(".")[0] for name in sys.modules})).encode())
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 1 << 16, 4)
        except OSError:
            os._exit(0)
        if not message:  # the host is gone or done with us
            os._exit(0)
        if os.fork() == 0:
            try:
                control.close()
                _keeper(SeatRequest.from_json(message), fds)
            except BaseException:
                traceback.print_exc()
            os._exit(_SETUP_FAILED)
        for fd in fds:
            os.close(fd)


def _keeper(request: SeatRequest, fds: list[int]) -> None:
    """The seat's keeper: new namespaces, the bot's process, its exit status."""
    libc = ctypes.CDLL(None, use_errno=True)
    out, err, channel_fd = fds
    channel = socket.socket(fileno=channel_fd)
    confine.apply([f"pdeathsig={os.getppid()}"])  # dies with the template
    if request.user is None:
        _own_user_namespace(libc)
    _check(libc.unshare(_NAMESPACES), "unshare")
    _announce(channel)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    pid = os.fork()
    if pid == 0:
        try:
            _bot(request, out, err, channel, libc)
        except BaseException as error:
            os.write(err, f"arena: cannot start the bot from its template: {error}\n".encode())
        os._exit(_SETUP_FAILED)
    os.close(out)
    os.close(err)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)  # the host signals the bot itself
    _, status = os.waitpid(pid, 0)  # retried on EINTR by Python itself (PEP 475)
    channel.send(struct.pack("i", os.waitstatus_to_exitcode(status)))
    os._exit(0)


def _bot(
    request: SeatRequest, out: int, err: int, channel: socket.socket, libc: ctypes.CDLL
) -> None:
    """The bot's process: its walls, then its script."""
    _build_root(request.filesystem, libc)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    _announce(channel)
    channel.close()  # as an object: else it would close its fd number, reused, one day
    os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    os.chdir(request.cwd)
    # The cold seat's specs; its parent (our keeper) is outside the seat's pid namespace,
    # where this process sees it as pid 0.
    confine.apply([*request.confinement, f"pdeathsig={os.getppid()}"])
    _run_script(request)


def _build_root(options: Sequence[str], libc: ctypes.CDLL) -> None:
    """Build the seat's filesystem from bwrap's own options for a cold seat of this bot
    (:func:`arena.hosting.sandbox.bwrap_filesystem`), as bwrap builds it, and make it
    the root: every bind's source is cloned from the template's view (the host's,
    read-only, with the seat homes writable) before a new tmpfs root covers /tmp."""
    ops = _parse(options)
    _mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE)
    clones = {}
    for op, source, _, _, _ in ops:
        if op in ("--ro-bind", "--bind") and source not in clones:
            clones[source] = (_open_tree(libc, source), os.path.isdir(source))
    dev = _open_tree(libc, "/dev")  # the template's own, made by bwrap: a minimal /dev
    root = "/tmp"  # anything of the template's view there is cloned by now
    _mount(libc, "tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755")
    remount_ro = []
    for op, source, dest, perms, size in ops:
        path = root + dest
        if op == "--symlink":
            _parents(path)
            os.symlink(source, path)
        elif op == "--dir":
            _parents(path)
            os.makedirs(path, exist_ok=True)
            os.chmod(path, perms if perms is not None else 0o755)
        elif op in ("--ro-bind", "--bind"):
            fd, is_dir = clones[source]
            _parents(path)
            if not os.path.lexists(path):
                os.mkdir(path, 0o755) if is_dir else open(path, "x").close()
            _move_mount(libc, fd, path)
            flags = _MS_BIND | _MS_REMOUNT | _MS_NOSUID | _MS_NODEV
            _mount(libc, None, path, None, flags | (_MS_RDONLY if op == "--ro-bind" else 0))
        elif op == "--proc":
            os.makedirs(path, exist_ok=True)
            _mount(libc, "proc", path, "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
            for name in _PROC_COVERED:  # as bwrap: what this process could write there, read-only
                covered = f"{path}/{name}"
                if os.access(covered, os.W_OK):
                    _mount(libc, covered, covered, None, _MS_BIND | _MS_REC)
                    flags = _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
                    _mount(libc, None, covered, None, flags)
        elif op == "--dev":
            os.makedirs(path, exist_ok=True)
            _move_mount(libc, dev, path)
        elif op == "--tmpfs":
            os.makedirs(path, exist_ok=True)
            mode = perms if perms is not None else 0o755
            data = f"mode={mode:o}" + (f",size={size}" if size is not None else "")
            _mount(libc, "tmpfs", path, "tmpfs", _MS_NOSUID | _MS_NODEV, data)
        elif op == "--remount-ro":
            remount_ro.append(dest)
    for fd, _ in clones.values():
        os.close(fd)
    os.close(dev)
    old = root + "/.old-root"
    os.mkdir(old, 0o700)
    _check(libc.syscall(_SYS_PIVOT_ROOT, os.fsencode(root), os.fsencode(old)), "pivot_root")
    os.chdir("/")
    _check(libc.umount2(b"/.old-root", _MNT_DETACH), "umount the template's view")
    os.rmdir("/.old-root")
    for dest in remount_ro:
        _mount(libc, None, dest, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)


#: The parts of /proc that bwrap's --proc makes read-only.
_PROC_COVERED = ("sys", "sysrq-trigger", "irq", "bus")

#: bwrap's filesystem options this interpreter knows, and how many words each takes.
_OPTION_WORDS = {
    "--symlink": 2, "--ro-bind": 2, "--bind": 2, "--dir": 1, "--proc": 1, "--dev": 1,
    "--tmpfs": 1, "--remount-ro": 1, "--perms": 1, "--size": 1,
}  # fmt: skip


def _parse(options: Sequence[str]) -> list[tuple[str, str, str, int | None, int | None]]:
    """(option, source, destination, perms, size) for each operation; ``--perms`` and
    ``--size`` modify the operation after them, as in bwrap."""
    ops: list[tuple[str, str, str, int | None, int | None]] = []
    perms = size = None
    at = 0
    while at < len(options):
        option = options[at]
        count = _OPTION_WORDS.get(option)
        if count is None:
            raise ValueError(f"not a filesystem option this template knows: {option!r}")
        words = list(options[at + 1 : at + 1 + count])
        at += 1 + count
        if option == "--perms":
            perms = int(words[0], 8)
        elif option == "--size":
            size = int(words[0])
        else:
            source, dest = (words[0], words[1]) if count == 2 else ("", words[0])
            ops.append((option, source, dest, perms, size))
            perms = size = None
    return ops


def _parents(path: str) -> None:
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)


def _open_tree(libc: ctypes.CDLL, path: str) -> int:
    flags = _OPEN_TREE_CLONE | _OPEN_TREE_CLOEXEC | _AT_RECURSIVE
    return _check(
        libc.syscall(_SYS_OPEN_TREE, _AT_FDCWD, os.fsencode(path), flags), f"clone {path}"
    )


def _move_mount(libc: ctypes.CDLL, fd: int, path: str) -> None:
    target = os.fsencode(path)
    _check(
        libc.syscall(_SYS_MOVE_MOUNT, fd, b"", _AT_FDCWD, target, _MOVE_MOUNT_F_EMPTY_PATH),
        f"mount at {path}",
    )


def _mount(
    libc: ctypes.CDLL,
    source: str | None,
    target: str,
    kind: str | None,
    flags: int,
    data: str | None = None,
) -> None:
    encoded = [
        None if value is None else os.fsencode(value) for value in (source, target, kind, data)
    ]
    _check(libc.mount(encoded[0], encoded[1], encoded[2], flags, encoded[3]), f"mount {target}")


def _run_script(request: SeatRequest) -> None:
    """Run the bot's script as ``python SCRIPT ARGS`` would, then exit as it would."""
    os.environ.clear()
    os.environ.update(request.env)
    os.environ["PWD"] = request.cwd  # as bwrap's --chdir sets it
    _show_command(request.command)
    sys.stdout = open(1, "w", buffering=1, closefd=False, encoding="utf-8")  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False, encoding="utf-8")  # noqa: SIM115
    sys.stdin = open(0, closefd=False, encoding="utf-8")  # noqa: SIM115
    argv = list(request.command[1:])
    script = os.path.abspath(argv[0])
    # The template ran with the bot's PYTHONPATH already: only the script's folder to add.
    sys.path.insert(0, os.path.dirname(script))
    sys.argv = argv
    # As the interpreter runs a script: a fresh __main__, __file__ absolute, argv as given.
    main = types.ModuleType("__main__")
    main.__file__ = script
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main
    code = 0
    try:
        with open(script, "rb") as file:
            source = file.read()
        exec(compile(source, script, "exec"), main.__dict__)
    except SystemExit as leaving:
        code = _exit_code(leaving.code)
    except BaseException:
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _show_command(argv: Sequence[str]) -> None:
    """Make /proc/PID/cmdline (what ``ps`` shows) the bot's command, as a cold start
    shows it, not the template's: written over the template's own argument and
    environment strings, which nothing reads any more (the environment was rebuilt
    above, so the C library's ``environ`` points at new strings).  Cut to fit."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    # arg_start, arg_end, env_start, env_end: fields 48-51 of stat, 46-49 after ")".
    arg_start, arg_end, _, env_end = (int(value) for value in fields[45:49])
    text = "\0".join(argv).encode()
    if len(text) >= arg_end - arg_start:
        # Longer than the template's own arguments: the kernel then reads one string
        # on into the environment's room (setproctitle's convention), words by spaces.
        text = " ".join(argv).encode()[: env_end - arg_start - 1]
    ctypes.memset(arg_start, 0, env_end - arg_start)
    ctypes.memmove(arg_start, text, len(text))


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _announce(channel: socket.socket) -> None:
    """Send this process's pid with its credentials (the host reads it in its own pid
    namespace) and wait for the host's answer: it has pinned the pid with a pidfd."""
    credentials = struct.pack("3i", os.getpid(), os.getuid(), os.getgid())
    channel.sendmsg([b"pid"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, credentials)])
    if channel.recv(16) != b"ok":
        os._exit(_SETUP_FAILED)


def _own_user_namespace(libc: ctypes.CDLL) -> None:
    """A seat without a uid of its own (an ordinary user's referee) gets a user namespace
    of its own, as bwrap gives a cold one: its process count (RLIMIT_NPROC) is its own."""
    uid, gid = os.getuid(), os.getgid()
    _check(libc.unshare(_CLONE_NEWUSER), "unshare user namespace")
    for name, text in (
        ("setgroups", "deny"),
        ("uid_map", f"{uid} {uid} 1"),
        ("gid_map", f"{gid} {gid} 1"),
    ):
        with open(f"/proc/self/{name}", "w") as file:
            file.write(text)


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


if __name__ == "__main__":
    main()
