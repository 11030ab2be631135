"""How tightly a bot process is confined, and the command lines that do it.

``none``    own process group and session, scrubbed environment, its own working
            directory, stdout and stderr capped; no limits.
``limits``  the same plus rlimits (CPU, address space, file size, open files,
            processes, no core files), killed when the referee dies,
            ``no_new_privs``, and where the kernel has Landlock a jail: only the
            allow-list of the filesystem (:mod:`arena.hosting.allowlist`), no TCP,
            signals and abstract sockets scoped to the bot; a seccomp filter that
            also refuses every socket but unix ones and every ``connect``.  All
            applied by the launcher (:mod:`arena.hosting.confine`) before the ``exec``.
``bwrap``   the same inside bubblewrap: a filesystem built from an allow-list
            (:mod:`arena.hosting.allowlist`), no network, its own pid, IPC and UTS
            namespaces, a seccomp filter (:mod:`arena.hosting.seccomp`).

Who the bot runs as (:mod:`arena.hosting.identity`): under a root referee, at every
level, a uid of its own from the arena's range, set by the wrapper just before the
``exec`` (under bwrap, inside the sandbox: bwrap runs as root to bind what the bot
needs, then the bot drops to its uid).  Under an ordinary user, bwrap gives the bot
uid 65534 in a user namespace of its own (the user's uid outside), and the ``none``
and ``limits`` levels run bots as the user: at ``limits`` Landlock keeps them apart
(:mod:`arena.hosting.host` says which levels hold what on this host).

The launcher runs the referee's own interpreter with ``-I -S``, so it needs nothing
but the standard library and works for bots in any language.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from enum import Enum
from pathlib import Path

from arena.hosting import confine
from arena.hosting._proctree import ProcessTree, count_user_tasks, ensure_child_subreaper
from arena.hosting.allowlist import Jail, landlock_paths, system_binds
from arena.hosting.confine import landlock_abi
from arena.hosting.errors import HostingError
from arena.hosting.limits import Limits
from arena.hosting.seccomp import filter_program

__all__ = [
    "BWRAP_ENV",
    "NOBODY",
    "SandboxLevel",
    "bwrap_binary",
    "bwrap_command",
    "bwrap_filesystem",
    "bwrap_namespaces",
    "bwrap_problem",
    "confine_specs",
    "limits_processes",
    "parent_bound_command",
    "resolve_level",
    "rlimit_command",
    "seccomp_memfd",
]

#: The uid and gid a bot has inside bwrap's user namespace when the referee is not root.
NOBODY = 65534

#: Names the bwrap binary to use instead of the one on PATH.
BWRAP_ENV = "ARENA_BWRAP"
_PROBE_TIMEOUT = 10.0
_PROBE_ENV = "ARENA_BWRAP_PROBE"  # marks the probe's processes, to find them all again
_MB = 1024 * 1024
_TMP_BYTES = 256 * _MB  # the private /tmp under bwrap (a tmpfs, so memory)


class SandboxLevel(Enum):
    """How a bot process is confined; see the module docstring."""

    NONE = "none"
    LIMITS = "limits"
    BWRAP = "bwrap"


def resolve_level(requested: str | SandboxLevel) -> SandboxLevel:
    """Turn a configured level ("auto", "none", "limits", "bwrap") into a usable one.

    "auto" is ``BWRAP`` when bubblewrap is installed and works here, else ``LIMITS``.
    An explicit "bwrap" that does not work raises :class:`HostingError` with the reason.
    """
    if requested == "auto":
        return SandboxLevel.LIMITS if bwrap_problem() else SandboxLevel.BWRAP
    try:
        level = SandboxLevel(requested)
    except ValueError:
        choices = ", ".join(["auto", *(level.value for level in SandboxLevel)])
        raise HostingError(
            f"unknown sandbox level {requested!r} (expected one of {choices})"
        ) from None
    if level is SandboxLevel.BWRAP:
        problem = bwrap_problem()
        if problem:
            raise HostingError(f"sandbox level 'bwrap' is not usable here: {problem}")
    return level


def bwrap_binary() -> str | None:
    """The bwrap to run: ``ARENA_BWRAP`` (e.g. one a Python package ships) if set, else
    the one on ``PATH``; ``None`` if there is none."""
    return os.environ.get(BWRAP_ENV) or shutil.which("bwrap")


def bwrap_problem() -> str | None:
    """Why bubblewrap cannot be used here, or ``None`` if it works.

    Probed by running ``true`` with the same flags bots get: bwrap may be installed
    yet unusable (no unprivileged user namespaces, a container without the needed
    privileges, an AppArmor restriction).  A binary named by ``ARENA_BWRAP`` that is
    missing or broken counts as no bwrap here.  Only a binary that worked is
    remembered (by its path and the file's identity): a problem is probed again at
    every call, so that a long-running server sees bwrap once it is installed or
    fixed, and a binary replaced since is probed anew.  A missing binary costs a
    ``PATH`` lookup, a broken one a failed start (milliseconds).
    """
    binary = bwrap_binary()
    identity = _file_identity(binary)
    if identity is not None and identity in _WORKING_BWRAP:
        return None
    problem = _probe_bwrap(binary)
    if problem is None and identity is not None:
        _WORKING_BWRAP.add(identity)
    return problem


# The bwrap binaries that ran ``true`` here: (path, device, inode, mtime, size).
_WORKING_BWRAP: set[tuple[str, int, int, int, int]] = set()


def _file_identity(binary: str | None) -> tuple[str, int, int, int, int] | None:
    if binary is None:
        return None
    try:
        found = os.stat(binary)
    except OSError:
        return None
    return (binary, found.st_dev, found.st_ino, found.st_mtime_ns, found.st_size)


def _probe_bwrap(binary: str | None) -> str | None:
    if binary is None:
        return "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        return f"{BWRAP_ENV}={binary} is not an executable file"
    argv = bwrap_command(["true"], read_only=(), writable=(), chdir=Path("/"))
    # bwrap can exit a moment before the sandbox's init does; that orphan goes to the
    # nearest child subreaper, so become one (as for every bot) and reap it like a bot.
    ensure_child_subreaper()
    token = f"{os.getpid()}-{time.monotonic_ns()}"
    try:
        popen = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={"PATH": "/usr/bin:/bin", _PROBE_ENV: token},
            start_new_session=True,
        )
    except OSError as exc:
        return f"running {' '.join(argv)!r} failed: {exc}"
    with popen:
        try:
            _, stderr = popen.communicate(timeout=_PROBE_TIMEOUT)
        except subprocess.TimeoutExpired:
            return f"running {' '.join(argv)!r} failed: no exit within {_PROBE_TIMEOUT:g} s"
        finally:
            ProcessTree(popen, f"{_PROBE_ENV}={token}".encode()).kill(grace=0.0)
    if popen.returncode != 0:
        detail = stderr.decode(errors="replace").strip() or "no message"
        return f"{' '.join(argv)!r} exited with status {popen.returncode}: {detail}"
    return None


def bwrap_command(
    argv: Sequence[str],
    *,
    read_only: Sequence[Path],
    writable: Sequence[Path],
    chdir: Path,
    files: Sequence[tuple[Path, str]] = (),
    seccomp_fd: int | None = None,
) -> list[str]:
    """The bubblewrap command line that runs ``argv`` confined: its namespaces
    (:func:`bwrap_namespaces`) and its filesystem (:func:`bwrap_filesystem`).
    Under a root referee bwrap creates the namespaces as root and keeps only the
    capabilities the wrapper inside needs to drop to the bot's own uid; otherwise the
    bot is uid 65534 in a user namespace of its own.
    """
    command = [bwrap_binary() or "bwrap", *bwrap_namespaces()]
    command += bwrap_filesystem(read_only=read_only, writable=writable, files=files)
    if seccomp_fd is not None:
        command += ["--seccomp", str(seccomp_fd)]
    command += ["--chdir", str(chdir), "--", *argv]
    return command


def bwrap_namespaces(extra_capabilities: Sequence[str] = ()) -> list[str]:
    """bwrap's options for a bot's namespaces and identity: under a root referee root
    keeping CAP_SETUID and CAP_SETGID (the wrapper inside drops to the seat's uid), else
    uid 65534 in a user namespace; either way with ``extra_capabilities`` too."""
    if os.geteuid() == 0:
        options = ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        options = ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    options += [word for capability in extra_capabilities for word in ("--cap-add", capability)]
    return [
        *options,
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",  # no controlling terminal to push input into
    ]


def bwrap_filesystem(
    *, read_only: Sequence[Path], writable: Sequence[Path], files: Sequence[tuple[Path, str]] = ()
) -> list[str]:
    """bwrap's options that build a bot's filesystem, in order: a root that holds only
    the system runtime (:func:`system_binds`), a private ``/proc``, ``/dev`` and ``/tmp``,
    then ``read_only`` and ``writable`` paths at their own places (so the socket address
    and working directory mean the same to the bot and to the referee), and ``files``:
    ``(source, destination)`` pairs bound read-only (the sandbox's /etc/passwd); the
    root read-only.  A template's seat builds the same from this list
    (:mod:`arena.hosting.template_main`)."""
    options = [
        *system_binds(),
        "--proc", "/proc",
        "--dev", "/dev",
        # Private, writable whoever the bot is, and in memory: so capped.
        "--perms", "1777", "--size", str(_TMP_BYTES), "--tmpfs", "/tmp",
    ]  # fmt: skip
    read_only = list(dict.fromkeys(Path(path) for path in read_only))
    writable = list(dict.fromkeys(Path(path) for path in writable))
    for folder in _folders_above([*read_only, *writable]):
        options += ["--perms", "0755", "--dir", str(folder)]
    for source, destination in files:
        options += ["--ro-bind", str(source), destination]
    for path in read_only:
        options += ["--ro-bind", str(path), str(path)]
    for path in writable:
        options += ["--bind", str(path), str(path)]
    options += ["--remount-ro", "/"]  # the sandbox's own root: nothing to write there
    return options


def _folders_above(paths: Sequence[Path]) -> list[Path]:
    """The folders bwrap must create above ``paths``, parents first.  Made explicitly
    so that they are searchable: bwrap would copy a root-only home's mode 700, and a
    bot that has dropped to its own uid could not pass through to its runtime."""
    covered = [Path(top) for top in ("/usr", "/proc", "/dev")] + list(paths)
    needed: set[Path] = set()
    for path in paths:
        for folder in path.parents:
            if folder == Path("/") or folder == Path("/tmp"):
                continue
            if not any(folder == c or folder.is_relative_to(c) for c in covered):
                needed.add(folder)
    return sorted(needed, key=lambda folder: len(folder.parts))


@functools.cache
def _confine_source() -> str:
    """The source :func:`_wrapped` runs: :mod:`arena.hosting.confine`, stdlib only, as
    its loader has it (the module as imported, which a mutation run replaces)."""
    get_source = getattr(confine.__loader__, "get_source", None)
    source = get_source(confine.__name__) if get_source is not None else None
    return source if isinstance(source, str) else Path(confine.__file__).read_text()


def rlimit_command(
    argv: Sequence[str],
    limits: Limits | None,
    *,
    processes: int,
    die_with_parent: bool,
    user: tuple[int, int] | None = None,
    jail: Jail | None = None,
    seccomp: bool = False,
) -> list[str]:
    """A command line that runs ``argv`` with ``limits`` applied (none: no limits), as
    ``user`` (uid, gid; none: as this process), with ``no_new_privs`` set; confined by
    Landlock to ``jail`` where the kernel has Landlock (:func:`landlock_abi`), and behind
    the seccomp filter if ``seccomp`` (where there is one for this machine).

    ``processes`` is the RLIMIT_NPROC value to use, which the caller computes
    because its meaning depends on who the bot runs as (see :class:`Limits`).
    """
    specs = confine_specs(
        limits,
        processes=processes,
        user=user,
        jail=jail,
        seccomp=filter_program(unix_only=True) if seccomp else None,
    )
    return _wrapped([*_death_with_parent(), *specs] if die_with_parent else specs, argv)


def confine_specs(
    limits: Limits | None,
    *,
    processes: int,
    user: tuple[int, int] | None,
    jail: Jail | None = None,
    seccomp: bytes | None = None,
    drop_capabilities: bool = False,
) -> list[str]:
    """The specs :mod:`arena.hosting.confine` applies for these walls (no parent death
    signal: the caller knows the parent): what the launcher of :func:`rlimit_command`
    and a template's seat both apply."""
    specs = []
    if limits is not None:
        for name, (soft, hard) in _rlimit_values(limits, processes).items():
            specs.append(f"{name}={soft}:{hard}")
    if user is not None:
        specs.append(f"user={user[0]}:{user[1]}")
    if drop_capabilities:
        specs.append("nocaps")
    specs.append("nnp")
    abi = landlock_abi()
    if jail is not None and abi > 0:
        specs.append(f"landlock={abi}")
        specs += [f"{kind}={path}" for kind, path in landlock_paths(jail)]
    if seccomp is not None:
        specs.append(f"seccomp={seccomp.hex()}")
    return specs


def _rlimit_values(limits: Limits, processes: int) -> dict[str, tuple[int, int]]:
    """The rlimits (soft, hard) by name that ``limits`` sets, ``processes`` as
    RLIMIT_NPROC, never above what this process has (it could not raise a hard limit)."""
    settings = {
        "RLIMIT_CPU": (limits.cpu_seconds, limits.cpu_seconds + 1),  # SIGXCPU, then SIGKILL
        "RLIMIT_AS": (limits.memory_mb * _MB,) * 2,
        "RLIMIT_FSIZE": (limits.file_size_mb * _MB,) * 2,
        "RLIMIT_NOFILE": (limits.open_files,) * 2,
        "RLIMIT_NPROC": (processes,) * 2,
        "RLIMIT_CORE": (0, 0),
    }
    values = {}
    for name, (soft, hard) in settings.items():
        current = resource.getrlimit(getattr(resource, name))[1]
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        values[name] = (soft, hard)
    return values


def limits_processes(processes: int, user: tuple[int, int] | None) -> int:
    """RLIMIT_NPROC at ``limits``, where it counts every task of the real uid: a seat's
    own uid runs nothing else, the referee's uid (``user`` None) already runs some, so
    ``processes`` more than those."""
    return processes if user is not None else processes + count_user_tasks(os.getuid())


def seccomp_memfd() -> int | None:
    """A sealed in-memory file holding the seccomp filter, for ``bwrap --seccomp FD``
    (pass it with ``pass_fds`` and close it once started); ``None`` where there is none."""
    program = filter_program()
    if program is None:
        return None
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    return fd


def parent_bound_command(argv: Sequence[str]) -> list[str]:
    """A command line that runs ``argv`` killed when this process dies, with no window
    in which it could outlive us: ``bwrap --die-with-parent`` asks for the signal
    only once it runs, and a referee killed before then would leave it behind.
    (The setting survives the exec unless the program is set-user-ID.)"""
    return _wrapped(_death_with_parent(), argv)


def _death_with_parent() -> list[str]:
    return [f"pdeathsig={os.getpid()}"]


def _wrapped(specs: Sequence[str], argv: Sequence[str]) -> list[str]:
    python = os.path.realpath(sys.executable)  # the base interpreter: no venv needed
    return [python, "-I", "-S", "-c", _confine_source(), *specs, "--", *argv]
