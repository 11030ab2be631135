"""Running a submission's ``build`` command in the sandbox.

The build sees what a bot sees under bwrap (the system runtime, no network, its own
pid, IPC and UTS namespaces, the seccomp filter) and runs as a uid of its own under a
root server, with rlimits and a wall-clock limit.  Unlike a bot, it may write into its
own folder (that is what a build is for), and into a private HOME; once it has ended
and every process of its uid is dead, the folder goes back to the server's user and is
checked again (:func:`arena.submissions.unpack.check_tree`): links out, hard links and
special files a build made are refused like those of an archive.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena.hosting.allowlist import runtime_paths
from arena.hosting.identity import SeatIdentity, lease_identity
from arena.hosting.limits import Limits
from arena.hosting.sandbox import (
    SandboxLevel,
    bwrap_command,
    parent_bound_command,
    resolve_level,
    rlimit_command,
)
from arena.hosting.seccomp import filter_program
from arena.submissions.cleanup import walk_folders

__all__ = ["BuildResult", "BuildSettings", "run_build", "strangers_level"]

_OUTPUT_KEPT = 32 * 1024  # of the build's output, the report keeps its last bytes
_SEARCH_PATH = "/usr/local/bin:/usr/bin:/bin"


def strangers_level() -> SandboxLevel:
    """The sandbox level a stranger's build and check run at: chosen here, and only here
    (HostingError with the reason when it cannot be used on this host)."""
    return resolve_level(SandboxLevel.BWRAP)


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
    """Run ``sh -c command`` in ``tree`` under bwrap; ``scratch`` (an empty folder of the
    server's) holds its HOME, its passwd file and its output log."""
    settings = settings or BuildSettings()
    strangers_level()  # HostingError with the reason when it cannot be used
    identity = lease_identity()
    home = scratch / "home"
    home.mkdir(mode=0o700)
    log = scratch / "build.log"
    started = time.monotonic()
    status: int | None = None
    try:
        user = None
        files: list[tuple[Path, str]] = []
        if identity is not None:
            user = (identity.uid, identity.gid)
            _chown_tree(tree, identity.uid, identity.gid)
            os.chown(home, identity.uid, identity.gid)
            files = _passwd_files(scratch, identity, home)
        inner = rlimit_command(
            ["/bin/sh", "-c", command],
            settings.limits,
            processes=settings.limits.processes,
            die_with_parent=False,
            user=user,
        )
        wrapper = os.path.realpath(sys.executable)
        program = filter_program()
        seccomp = None
        if program is not None:
            seccomp = os.memfd_create("arena-build-seccomp", 0)
            os.write(seccomp, program)
            os.lseek(seccomp, 0, os.SEEK_SET)
        try:
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
            env = {
                "PATH": _SEARCH_PATH,
                "HOME": str(home),
                "LANG": "C.UTF-8",
                "GOPROXY": "off",  # builds have no network: say so at once
                "GOTOOLCHAIN": "local",
                "GOFLAGS": "-buildvcs=false",
                "npm_config_offline": "true",
            }
            with open(log, "wb") as output:
                popen = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    stderr=subprocess.STDOUT,
                    cwd=home,
                    env=env,
                    start_new_session=True,
                    close_fds=True,
                    pass_fds=() if seccomp is None else (seccomp,),
                )
        finally:
            if seccomp is not None:
                os.close(seccomp)
        try:
            status = popen.wait(timeout=settings.wall_seconds)
        except subprocess.TimeoutExpired:
            status = None
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(popen.pid, signal.SIGKILL)  # bwrap and its pid namespace
            popen.wait()
    finally:
        if identity is not None:
            identity.release()  # kills whatever still runs as its uid
            _chown_tree(tree, os.getuid(), os.getgid())
    seconds = time.monotonic() - started
    text = _tail(log)
    if status is None:
        text += f"\n(killed: still running after {settings.wall_seconds:g} s)"
    return BuildResult(command, status, seconds, text)


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
