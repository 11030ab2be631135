"""Running a submission's ``build`` command in the sandbox.

The build runs at the level strangers' bots get on this host
(:func:`arena.hosting.host.strangers_level`: bwrap, else Landlock ``limits``) and sees
what a bot sees there (the system runtime, no network, the seccomp filter; under bwrap
its own pid, IPC and UTS namespaces), as a uid of its own under a root server, with
rlimits and a wall-clock limit.  Unlike a bot, it may write into its
own folder (that is what a build is for), and into a private HOME; once it has ended
and every process of its uid is dead, the folder goes back to the server's user and is
checked again (:func:`arena.archives.check_tree`): links out, hard links and
special files a build made are refused like those of an archive.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena.archives import ArchiveError, UnpackLimits, check_tree
from arena.hosting._proctree import ProcessTree, ensure_child_subreaper
from arena.hosting.allowlist import Jail, runtime_paths
from arena.hosting.host import strangers_level
from arena.hosting.identity import SeatIdentity, lease_identity, path_problem
from arena.hosting.limits import Limits
from arena.hosting.process import arena_folder
from arena.hosting.sandbox import (
    SandboxLevel,
    bwrap_command,
    limits_processes,
    parent_bound_command,
    rlimit_command,
    seccomp_memfd,
)
from arena.submissions.cleanup import remove_tree, walk_folders

__all__ = ["BuildResult", "BuildSettings", "run_build"]

_OUTPUT_KEPT = 32 * 1024  # of the build's output, the report keeps its last bytes
_SEARCH_PATH = "/usr/local/bin:/usr/bin:/bin"
_MARKER_ENV = "ARENA_BUILD"


@dataclass(frozen=True)
class BuildSettings:
    wall_seconds: float = 300.0
    limits: Limits = field(
        default_factory=lambda: Limits(
            cpu_seconds=300, memory_mb=4096, file_size_mb=256, open_files=1024, processes=128
        )
    )


@dataclass(frozen=True)
class BuildResult:
    command: str
    status: int | None  # exit status; None: killed at the wall-clock limit
    seconds: float
    output: str  # its last bytes of stdout and stderr

    @property
    def ok(self) -> bool:
        return self.status == 0

    def to_json(self) -> dict[str, object]:
        return {
            "command": self.command,
            "status": self.status,
            "seconds": round(self.seconds, 2),
            "output": self.output,
        }


def run_build(
    command: str, tree: Path, scratch: Path, settings: BuildSettings | None = None
) -> BuildResult:
    """Run ``sh -c command`` in ``tree`` at the level strangers get here; ``scratch`` (an
    empty folder of the server's) holds its HOME, its tmp folder, its passwd file and
    its output log.  :class:`HostingError` naming what is missing where no level is fit."""
    settings = settings or BuildSettings()
    level = strangers_level()
    identity = lease_identity()
    user = (identity.uid, identity.gid) if identity is not None else None
    log = scratch / "build.log"
    started = time.monotonic()
    status: int | None = None
    token = f"{os.getpid()}-{time.monotonic_ns()}"
    seccomp = None
    work: Path | None = None
    tmp: Path | None = None
    build_tree = tree
    refusal = ""
    try:  # the work folder goes whatever happens
        try:
            if level is SandboxLevel.LIMITS:
                # No new root to mount the tree, HOME and tmp into: they must be where the
                # build's uid can pass (the arena's folder; Landlock allows only them).
                work = Path(tempfile.mkdtemp(prefix="build-", dir=arena_folder()))
                os.chmod(work, 0o711)
                build_tree, home, tmp = _limits_folders(tree, work, identity)
                argv = rlimit_command(
                    ["/bin/sh", "-c", command],
                    settings.limits,
                    processes=limits_processes(settings.limits.processes, user),
                    die_with_parent=True,
                    user=user,
                    jail=Jail(read_only=(), writable=(build_tree, home), tmp=tmp),
                    seccomp=True,
                )
            else:
                home = scratch / "home"
                home.mkdir(mode=0o700)
                files: list[tuple[Path, str]] = []
                if identity is not None:
                    _chown_tree(tree, identity.uid, identity.gid)
                    os.chown(home, identity.uid, identity.gid)
                    files = _passwd_files(scratch, identity, home)
                argv, seccomp = _bwrap_argv(command, tree, home, files, user, settings)
            env = {
                "PATH": _SEARCH_PATH,
                "HOME": str(home),
                "LANG": "C.UTF-8",
                "GOPROXY": "off",  # builds have no network: say so at once
                "GOTOOLCHAIN": "local",
                "GOFLAGS": "-buildvcs=false",
                "npm_config_offline": "true",
                _MARKER_ENV: token,  # how what it left is found again at limits
                **({"TMPDIR": str(tmp)} if tmp is not None else {}),
            }
            cwd = build_tree if level is SandboxLevel.LIMITS else home
            status = _run(argv, env, cwd, seccomp, log, settings.wall_seconds, token)
        finally:
            if identity is not None:
                identity.release()  # kills whatever still runs as its uid
                _chown_tree(build_tree, os.getuid(), os.getgid())
        if build_tree != tree:
            try:
                _copy_back(build_tree, tree)
            except ArchiveError as error:
                status, refusal = 1, str(error)
    finally:
        if work is not None:
            remove_tree(work)
    seconds = time.monotonic() - started
    text = _tail(log) + (f"\n{refusal}" if refusal else "")
    if status is None:
        text += f"\n(killed: still running after {settings.wall_seconds:g} s)"
    return BuildResult(command, status, seconds, text)


def _run(
    argv: list[str],
    env: dict[str, str],
    cwd: Path,
    seccomp: int | None,
    log: Path,
    wall_seconds: float,
    token: str,
) -> int | None:
    """Run the build with its output in ``log``; its exit status, or ``None`` when it was
    killed at ``wall_seconds``.  Nothing it started is left running."""
    ensure_child_subreaper()  # its orphans come to us, to be found and reaped
    try:
        with open(log, "wb") as output:
            popen = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                cwd=cwd,
                env=env,
                start_new_session=True,
                close_fds=True,
                pass_fds=() if seccomp is None else (seccomp,),
            )
    finally:
        if seccomp is not None:
            os.close(seccomp)
    try:
        return popen.wait(timeout=wall_seconds)
    except subprocess.TimeoutExpired:
        return None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(popen.pid, signal.SIGKILL)  # bwrap and its pid namespace
        # At limits, with no namespace around it: whatever left its session too.
        ProcessTree(popen, f"{_MARKER_ENV}={token}".encode()).kill(grace=0.0)
        popen.wait()


def _limits_folders(
    tree: Path, work: Path, identity: SeatIdentity | None
) -> tuple[Path, Path, Path]:
    """The tree to build in, HOME and TMPDIR at ``limits``, below ``work``: the tree
    itself where the build's uid reaches it, else a copy (copied back afterwards)."""
    home, tmp = work / "home", work / "tmp"
    build_tree = tree
    if identity is not None:
        if path_problem(tree, identity.uid, identity.gid) is not None:
            build_tree = work / "bot"
            shutil.copytree(tree, build_tree, symlinks=True)
        _chown_tree(build_tree, identity.uid, identity.gid)
    for folder in (home, tmp):
        folder.mkdir(mode=0o700)
        if identity is not None:
            os.chown(folder, identity.uid, identity.gid)
    return build_tree, home, tmp


def _copy_back(built: Path, tree: Path) -> None:
    """Put what the build made in a copy back in place of ``tree``, once it is known to
    hold only what an archive could (a fifo would hang the copy, a link could lead out)."""
    check_tree(built, UnpackLimits())
    remove_tree(tree)
    shutil.copytree(built, tree, symlinks=True)


def _bwrap_argv(
    command: str,
    tree: Path,
    home: Path,
    files: list[tuple[Path, str]],
    user: tuple[int, int] | None,
    settings: BuildSettings,
) -> tuple[list[str], int | None]:
    """bwrap's command line for the build, and the seccomp filter's memfd (or None)."""
    inner = rlimit_command(
        ["/bin/sh", "-c", command],
        settings.limits,
        processes=settings.limits.processes,
        die_with_parent=False,
        user=user,
    )
    wrapper = os.path.realpath(sys.executable)
    seccomp = seccomp_memfd()
    argv = parent_bound_command(
        bwrap_command(
            inner,
            read_only=runtime_paths(wrapper, tree, _SEARCH_PATH),
            writable=[tree, home],
            chdir=tree,
            files=files,
            seccomp_fd=seccomp,
        )
    )
    return argv, seccomp


def _chown_tree(tree: Path, uid: int, gid: int) -> None:
    """Hand the tree over (links themselves, never what they point to).  Iterative, and
    relative to each open folder: a build may leave a tree too deep for a recursive
    walk or for whole paths (check_tree refuses it afterwards; this must not fail)."""
    os.lchown(tree, uid, gid)
    walk_folders(tree, lambda fd, name: os.chown(name, uid, gid, dir_fd=fd, follow_symlinks=False))


def _passwd_files(scratch: Path, identity: SeatIdentity, home: Path) -> list[tuple[Path, str]]:
    uid, gid = identity.uid, identity.gid
    passwd = scratch / "passwd"
    group = scratch / "group"
    passwd.write_text(
        f"root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
        f"build:x:{uid}:{gid}:arena build:{home}:/usr/sbin/nologin\n"
    )
    group.write_text(f"root:x:0:\nbuild:x:{gid}:\n")
    for path in (passwd, group):
        os.chmod(path, 0o644)
    return [(passwd, "/etc/passwd"), (group, "/etc/group")]


def _tail(path: Path) -> str:
    with open(path, "rb") as file:
        file.seek(0, os.SEEK_END)
        size = file.tell()
        file.seek(max(0, size - _OUTPUT_KEPT))
        data = file.read()
    prefix = f"(the first {size - len(data)} bytes are not shown)\n" if size > len(data) else ""
    return prefix + data.decode(errors="replace")
