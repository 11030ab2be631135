"""How tightly a bot process is confined, and the command lines that do it.

``none``    own process group and session, scrubbed environment, temporary working
            directory; no limits.
``limits``  the same plus rlimits (CPU, address space, file size, open files,
            processes, no core files), applied by a tiny Python wrapper that then
            ``exec``s the bot, and the bot is killed if the thread that started it dies.
``bwrap``   the same inside bubblewrap: no network, read-only filesystem except its
            own working directory, socket directory and a private /tmp, its own pid
            namespace, running as uid/gid 65534 in a user namespace, killed with its parent.

The rlimit wrapper runs the referee's own interpreter with ``-I -S``, so it needs
nothing but the standard library and works for bots in any language.

Run the referee as an ordinary user. bwrap maps the sandbox's uid 65534 to the
uid that started it, so under a root referee a bot is root outside the sandbox:
it can read root-only files (though not write: the filesystem is read-only) and
RLIMIT_NPROC is not enforced.
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

from arena.hosting._proctree import ProcessTree, ensure_child_subreaper
from arena.hosting.errors import HostingError
from arena.hosting.limits import Limits

__all__ = [
    "SANDBOX_GID",
    "SANDBOX_UID",
    "SandboxLevel",
    "bwrap_command",
    "bwrap_problem",
    "parent_bound_command",
    "resolve_level",
    "rlimit_command",
]

#: The uid and gid a bot runs as under bwrap (the conventional "nobody").
SANDBOX_UID = 65534
SANDBOX_GID = 65534

_PROBE_TIMEOUT = 10.0
_PROBE_ENV = "ARENA_BWRAP_PROBE"  # marks the probe's processes, to find them all again
_MB = 1024 * 1024


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
    if isinstance(requested, SandboxLevel):
        requested = requested.value
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


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot be used here, or ``None`` if it works.

    Probed once per process by running ``true`` with the same flags bots get:
    bwrap may be installed yet unusable (no unprivileged user namespaces, a
    container without the needed privileges, an AppArmor restriction).
    """
    if shutil.which("bwrap") is None:
        return "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    argv = bwrap_command(["true"], writable=(), read_only=(), hidden=(), chdir=Path("/"))
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
    writable: Sequence[Path],
    read_only: Sequence[Path],
    hidden: Sequence[Path],
    chdir: Path,
    visible_in_tmp: Sequence[Path] = (),
) -> list[str]:
    """The bubblewrap command line that runs ``argv`` confined.

    Every path stays at the same place inside the sandbox, so the socket address
    and working directory mean the same thing to the bot and to the referee.
    The bot gets a private, empty ``/tmp``; ``visible_in_tmp`` folders under it stay
    readable (a clone or virtualenv that lives in /tmp).  ``hidden`` directories are
    then covered with an empty tmpfs (the run directory, so a bot cannot read its
    opponents' logs); ``read_only`` and then ``writable`` directories are bound on
    top, in that order.
    """
    bwrap = shutil.which("bwrap") or "bwrap"
    command = [
        bwrap,
        "--unshare-all",  # user, pid, network, ipc, uts, cgroup namespaces
        "--unshare-user",  # ...and fail rather than continue without a user namespace
        "--unshare-pid",
        "--uid", str(SANDBOX_UID),
        "--gid", str(SANDBOX_GID),
        "--die-with-parent",
        "--ro-bind", "/", "/",
        "--proc", "/proc",
        "--dev", "/dev",
        "--tmpfs", "/tmp",
    ]  # fmt: skip
    for path in visible_in_tmp:
        command += ["--ro-bind", str(path), str(path)]
    for path in hidden:
        command += ["--tmpfs", str(path)]
    for path in read_only:
        command += ["--ro-bind", str(path), str(path)]
    for path in writable:
        command += ["--bind", str(path), str(path)]
    command += ["--chdir", str(chdir), "--", *argv]
    return command


# Runs as `python -I -S -c _WRAPPER <settings...> -- <bot argv...>`: sets the limits on
# itself, optionally arranges to die with its parent, and execs the bot in its place.
_WRAPPER = """\
import os, resource, sys
sep = sys.argv.index("--")
for spec in sys.argv[1:sep]:
    what, _, value = spec.partition("=")
    if what == "pdeathsig":
        import ctypes, signal
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != int(value):
            os._exit(137)  # the parent died before prctl took effect
    else:
        soft, hard = value.split(":")
        resource.setrlimit(getattr(resource, what), (int(soft), int(hard)))
argv = sys.argv[sep + 1:]
try:
    os.execvp(argv[0], argv)
except OSError as exc:
    sys.stderr.write("arena: cannot run %r: %s\\n" % (argv[0], exc.strerror or exc))
    sys.exit(127)
"""


def rlimit_command(
    argv: Sequence[str], limits: Limits, *, processes: int, die_with_parent: bool
) -> list[str]:
    """A command line that runs ``argv`` with ``limits`` applied.

    ``processes`` is the RLIMIT_NPROC value to use, which the caller computes
    because its meaning depends on the user namespace (see :class:`Limits`).
    """
    settings = {
        "RLIMIT_CPU": (limits.cpu_seconds, limits.cpu_seconds + 1),  # SIGXCPU, then SIGKILL
        "RLIMIT_AS": (limits.memory_mb * _MB,) * 2,
        "RLIMIT_FSIZE": (limits.file_size_mb * _MB,) * 2,
        "RLIMIT_NOFILE": (limits.open_files,) * 2,
        "RLIMIT_NPROC": (processes,) * 2,
        "RLIMIT_CORE": (0, 0),
    }
    specs = _death_with_parent() if die_with_parent else []
    for name, (soft, hard) in settings.items():
        # An unprivileged process cannot raise a hard limit: never ask for more than we have.
        current = resource.getrlimit(getattr(resource, name))[1]
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        specs.append(f"{name}={soft}:{hard}")
    return _wrapped(specs, argv)


def parent_bound_command(argv: Sequence[str]) -> list[str]:
    """A command line that runs ``argv`` killed when this process dies, with no window
    in which it could outlive us: ``bwrap --die-with-parent`` asks for the signal
    only once it runs, and a referee killed before then would leave it behind.
    (The setting survives the exec unless the program is set-user-ID.)"""
    return _wrapped(_death_with_parent(), argv)


def _death_with_parent() -> list[str]:
    return [f"pdeathsig={os.getpid()}"] if sys.platform.startswith("linux") else []


def _wrapped(specs: Sequence[str], argv: Sequence[str]) -> list[str]:
    python = os.path.realpath(sys.executable)  # the base interpreter: no venv needed
    return [python, "-I", "-S", "-c", _WRAPPER, *specs, "--", *argv]
