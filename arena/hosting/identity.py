"""Who a bot runs as: under a root referee, a user id of its own for every seat.

A bot that ran as root could read root-only files, ignore its process limit (Linux
never enforces RLIMIT_NPROC for root), signal or ptrace its opponent and the referee.
So when the referee is root, every bot process runs as an unprivileged uid taken from
a range that belongs to the arena (``60000-60999`` unless ``ARENA_SEAT_UIDS`` or the
caller says otherwise), one uid per running bot on the whole machine:

* a uid is leased with an exclusive ``flock`` on a file in a root-only folder, so two
  referees (two ladder workers) never hand out the same one; the kernel drops the lock
  when its holder dies, however it dies;
* uids that name a user in ``/etc/passwd`` are skipped: they belong to someone else;
* a leased uid runs nothing else, so RLIMIT_NPROC is exactly the bot's budget, a
  signal from one seat to another fails with EPERM, and every process still running
  as that uid when the bot is killed is the bot's, whatever it did to hide (``setsid``,
  double fork, an empty environment): :func:`kill_uid` ends them all.

A referee that is not root cannot change its bots' uid; then the bots share its
identity, kept apart by Landlock where the host has it, and
:meth:`arena.hosting.host.HostSandbox.warning` says what that leaves open.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import signal
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from arena.hosting.errors import HostingError

__all__ = [
    "DEFAULT_SEAT_UIDS",
    "SEAT_UIDS_ENV",
    "SeatIdentity",
    "configured_uid_range",
    "folder_problem",
    "kill_uid",
    "lease_identity",
    "parse_uid_range",
    "path_problem",
]

#: The uids (and gids) the arena gives its bots when it runs as root.
DEFAULT_SEAT_UIDS = (60000, 60999)
#: Overrides the range, as "FIRST-LAST".
SEAT_UIDS_ENV = "ARENA_SEAT_UIDS"
_LEASES = Path("/run/rummy-arena/seat-uids")  # root-only: a bot cannot take a lease
_PROC = Path("/proc")


def parse_uid_range(text: str) -> tuple[int, int]:
    """``"60000-60999"`` as ``(60000, 60999)``; :class:`HostingError` naming what is wrong."""
    first, sep, last = text.partition("-")
    try:
        low, high = int(first), int(last)
    except ValueError:
        raise HostingError(f"seat uid range {text!r} is not FIRST-LAST, e.g. 60000-60999") from None
    if not sep or not 1000 <= low <= high < 2**31:
        raise HostingError(f"seat uid range {text!r} must be FIRST-LAST with 1000 <= FIRST <= LAST")
    return low, high


def configured_uid_range() -> tuple[int, int]:
    text = os.environ.get(SEAT_UIDS_ENV)
    return parse_uid_range(text) if text else DEFAULT_SEAT_UIDS


@dataclass
class SeatIdentity:
    """A uid (and the gid of the same number) leased for one bot; ``release`` ends the lease."""

    uid: int
    _lock: int | None
    _cleared: bool = False  # nothing ran as the uid at the last kill; no one else starts any

    @property
    def gid(self) -> int:
        return self.uid

    def kill_processes(self) -> None:
        """Kill whatever runs as the uid.  Only the leaseholder starts processes as it,
        so once none is left the lease's ``release`` need not look again."""
        self._cleared = not kill_uid(self.uid)

    def release(self) -> None:
        """Kill whatever still runs as the uid, then give the uid back.  Idempotent."""
        if self._lock is None:
            return
        try:
            if not self._cleared:
                kill_uid(self.uid)
        finally:
            os.close(self._lock)
            self._lock = None


def lease_identity(uids: tuple[int, int] | None = None) -> SeatIdentity | None:
    """A uid of its own for a bot, or ``None`` when this process is not root
    (the bot then runs as this process's user).

    Raises :class:`HostingError` when every uid of the range is in use.
    """
    if os.geteuid() != 0:
        return None
    low, high = uids or configured_uid_range()
    _LEASES.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(_LEASES, 0o700)
    for uid in range(low, high + 1):
        if _is_named_user(uid):
            continue
        fd = os.open(_LEASES / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        # Free now, so anything still running as this uid was left by a referee that
        # died: it is ours by construction of the range, and must not share the budget.
        kill_uid(uid)
        return SeatIdentity(uid, fd)
    raise HostingError(
        f"every seat uid in {low}-{high} is in use: too many bots at once for the range "
        f"(set {SEAT_UIDS_ENV}=FIRST-LAST for a larger one)"
    )


def _is_named_user(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def _uid_pids(uid: int) -> list[int]:
    """Every live process with ``uid`` among its uids.  Each scan reads the status of
    every process on the host, once or twice per seat: raw reads, no pathlib (a scan of
    160 processes took 15 ms through Path.read_text, about 1 ms this way)."""
    wanted = str(uid).encode()
    pids = []
    for name in os.listdir(_PROC):
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"{_PROC}/{name}/status", os.O_RDONLY | os.O_CLOEXEC)
            try:
                status = os.read(fd, 8192)
            finally:
                os.close(fd)
        except OSError:
            continue
        at = status.find(b"\nUid:")
        if at < 0 or wanted not in status[at + 5 : status.find(b"\n", at + 5)].split():
            continue
        # A zombie (Z) or a dying task (X) runs nothing and holds nothing; it waits for
        # its parent to reap it, which no signal hastens: waiting for it to go stalled
        # every lease of its uid for the whole timeout.
        at = status.find(b"\nState:")
        if at >= 0 and status[at + 7 : at + 16].split()[:1] in ([b"Z"], [b"X"]):
            continue
        pids.append(int(name))
    return pids


def kill_uid(uid: int, timeout: float = 5.0) -> list[int]:
    """SIGKILL every process whose real, effective or saved uid is ``uid``, until none
    is left; returns those still there after ``timeout`` (normally none).  A killed
    process cannot fork again, so this converges in a round or two."""
    deadline = time.monotonic() + timeout
    while True:
        pids = _uid_pids(uid)
        if not pids or time.monotonic() > deadline:
            return pids
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)


def path_problem(path: Path, uid: int, gid: int) -> str | None:
    """Why user ``uid`` (group ``gid``, no others) cannot reach and read ``path``, or
    ``None``.  Checks the mode bits of the path and of every folder above it, since
    the bot cannot be asked: at the ``none`` and ``limits`` levels it sees the host's
    filesystem, so a runtime under a root-only home (mode 700) cannot start."""
    path = Path(os.path.abspath(path))
    for folder in reversed(path.parents):
        if not _allows(folder, uid, gid, stat.S_IXOTH):
            return f"{folder} is not searchable by uid {uid} (mode {_mode(folder)})"
    if not _allows(path, uid, gid, stat.S_IROTH):
        return f"{path} is not readable by uid {uid} (mode {_mode(path)})"
    if path.is_symlink():
        return path_problem(path.resolve(), uid, gid)
    return None


def folder_problem(folder: Path, uid: int, gid: int) -> str | None:
    """Why user ``uid`` cannot list and enter ``folder`` itself, or ``None``: under bwrap
    the folders above a bound one are searchable stand-ins, but the bound folder keeps
    its own owner and mode."""
    for bit, what in ((stat.S_IROTH, "readable"), (stat.S_IXOTH, "searchable")):
        if not _allows(folder, uid, gid, bit):
            return f"{folder} is not {what} by uid {uid} (mode {_mode(folder)})"
    return None


def _allows(path: Path, uid: int, gid: int, other_bit: int) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return True  # missing: the caller reports that itself, more precisely
    if stat.S_ISLNK(info.st_mode):
        return True  # a link's own mode means nothing; its target is checked
    shift = 6 if info.st_uid == uid else 3 if info.st_gid == gid else 0
    return bool(info.st_mode & (other_bit << shift))


def _mode(path: Path) -> str:
    try:
        return oct(path.lstat().st_mode & 0o7777)[2:]
    except OSError:
        return "?"
