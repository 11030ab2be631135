"""What this host's sandbox levels guarantee, probed, and the level strangers' bots get.

A level is *fit for strangers* when, on this host, it confines a bot's view of the
filesystem, keeps it off the network, away from the other seats and the referee, and
leaves none of its processes behind (:data:`FIT_FOR_STRANGERS`).  Which levels are
depends on what the host gives, probed once per process (:func:`probe_host`): does
bwrap run, the kernel's Landlock ABI, a seccomp filter for this architecture, root.

* ``bwrap`` is fit wherever bwrap runs (namespaces, an allow-listed root).
* ``limits`` is fit where Landlock confines the filesystem (ABI 1+), the seccomp filter
  refuses every socket but unix ones, and the seats are kept apart: by uids of their
  own under a root referee, else by Landlock's scoping of signals and abstract unix
  sockets (ABI 6+; ptrace across domains is refused by Landlock since ABI 1).
* ``none`` never is.

:func:`strangers_level` picks the best fit level (bwrap, else ``limits``), and says in
one line what is missing where neither is fit.  ``arena doctor`` shows it all.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from arena.hosting.confine import landlock_abi
from arena.hosting.errors import HostingError
from arena.hosting.sandbox import SandboxLevel, bwrap_problem
from arena.hosting.seccomp import filter_program

__all__ = [
    "FIT_FOR_STRANGERS",
    "Guarantee",
    "Held",
    "HostSandbox",
    "kernel_has_seccomp",
    "probe_host",
    "strangers_level",
]


class Guarantee(Enum):
    """What a sandbox level may guarantee about a bot, a row of ``arena doctor``."""

    FILESYSTEM = "filesystem"
    NETWORK = "network"
    OTHER_SEATS = "other seats"
    PROCESSES = "processes"
    MEMORY = "memory"
    UID = "uid"


#: What a level must hold to run strangers' bots.
FIT_FOR_STRANGERS = (
    Guarantee.FILESYSTEM,
    Guarantee.NETWORK,
    Guarantee.OTHER_SEATS,
    Guarantee.PROCESSES,
)


@dataclass(frozen=True)
class Held:
    """Whether a guarantee holds at a level on this host, and how (or why not)."""

    held: bool
    how: str


@dataclass(frozen=True)
class HostSandbox:
    """What this host offers for confining bots (see :func:`probe_host`)."""

    root: bool
    bwrap_problem: str | None  # None: bwrap runs here
    landlock_abi: int  # 0: no Landlock
    seccomp: bool  # a filter for this architecture, and a kernel that takes filters
    cgroups: str  # what the cgroup hierarchy offers, for the operator (not used yet)

    def guarantees(self, level: SandboxLevel) -> dict[Guarantee, Held]:
        """Each guarantee at ``level`` on this host."""
        if level is SandboxLevel.BWRAP:
            return self._bwrap()
        if level is SandboxLevel.LIMITS:
            return self._limits()
        return self._none()

    def missing(self, level: SandboxLevel) -> list[str]:
        """Why ``level`` is not fit for strangers here (empty when it is)."""
        if level is SandboxLevel.BWRAP and self.bwrap_problem is not None:
            return [self.bwrap_problem]
        rows = self.guarantees(level)
        return [f"{g.value}: {rows[g].how}" for g in FIT_FOR_STRANGERS if not rows[g].held]

    def fit(self, level: SandboxLevel) -> bool:
        return not self.missing(level)

    def strangers_level(self) -> SandboxLevel:
        """The best level fit for strangers here; :class:`HostingError` naming what is
        missing where none is."""
        for level in (SandboxLevel.BWRAP, SandboxLevel.LIMITS):
            if self.fit(level):
                return level
        raise HostingError(
            "no sandbox level here is fit for strangers' bots: bwrap: "
            + "; ".join(self.missing(SandboxLevel.BWRAP))
            + "; limits: "
            + "; ".join(self.missing(SandboxLevel.LIMITS))
        )

    def summary(self, level: SandboxLevel) -> str:
        """One line for a match table: what ``level`` holds here, and what not."""
        rows = self.guarantees(level)
        held = [g.value for g in Guarantee if rows[g].held]
        open_ = [g.value for g in Guarantee if not rows[g].held]
        fit = "fit for strangers" if self.fit(level) else "not fit for strangers"
        text = f"sandbox {level.value} here: {fit}; holds {', '.join(held) or 'nothing'}"
        return text + (f"; not {', '.join(open_)}" if open_ else "")

    def warning(self, level: str) -> str | None:
        """What to tell an operator whose bots run at ``level`` (the name, as a
        match's seats record it) without the filesystem or other seats' guarantees
        (an ordinary user's bots at ``none``, or at ``limits`` without Landlock)."""
        try:
            rows = self.guarantees(SandboxLevel(level))
        except ValueError:
            return None  # in-process or an address: nothing of ours was started
        if self.root or (rows[Guarantee.FILESYSTEM].held and rows[Guarantee.OTHER_SEATS].held):
            return None
        return (
            f"bots run as your own user at sandbox level {level!r}: they can read your "
            f"files and signal each other; see `arena doctor` for what this host lacks"
        )

    def advice(self) -> list[str]:
        """What to install or change to get more, one line each."""
        lines = []
        if self.bwrap_problem is not None:
            lines.append(
                f"bwrap: {self.bwrap_problem}; install bubblewrap (Debian/Ubuntu: apt-get "
                "install bubblewrap), allow unprivileged user namespaces, or name a working "
                "binary with ARENA_BWRAP=PATH"
            )
        if self.landlock_abi == 0:
            lines.append(
                "Landlock: not offered by this kernel; use Linux 5.13 or later with "
                "CONFIG_SECURITY_LANDLOCK=y and 'landlock' in the lsm= boot parameter"
            )
        elif self.landlock_abi < 6:
            lines.append(
                f"Landlock: ABI {self.landlock_abi}; ABI 6 (Linux 6.12) also scopes signals "
                "and abstract unix sockets, which keeps an ordinary user's seats apart"
            )
        if not self.seccomp:
            lines.append("seccomp: no filter for this machine's architecture (x86-64 only)")
        if not self.root:
            lines.append(
                "run as root to give every bot a uid of its own (exact process limits, "
                "no shared identity at any level)"
            )
        return lines

    def _none(self) -> dict[Guarantee, Held]:
        own = "a uid of its own: the other seat's files, signals and ptrace are refused"
        return {
            Guarantee.FILESYSTEM: Held(False, "the host's files, with its uid's rights"),
            Guarantee.NETWORK: Held(False, "the host's network"),
            Guarantee.OTHER_SEATS: Held(self.root, own if self.root else "shares your uid"),
            Guarantee.PROCESSES: Held(False, "killed with it, but no process limit"),
            Guarantee.MEMORY: Held(False, "no limit"),
            Guarantee.UID: Held(self.root, self._uid_text()),
        }

    def _limits(self) -> dict[Guarantee, Held]:
        abi = self.landlock_abi
        if abi:
            files = Held(True, f"Landlock ABI {abi}: only the allow-list, nothing else")
        else:
            files = Held(False, "no Landlock here: the host's files, with its uid's rights")
        if self.seccomp:
            tcp = ", and Landlock refuses TCP bind and connect" if abi >= 4 else ""
            network = Held(
                True, f"seccomp refuses every socket but unix ones and every connect{tcp}"
            )
        else:
            network = Held(False, "no seccomp filter for this architecture")
        if self.root:
            seats = Held(
                True,
                "a uid of its own, and a Landlock domain of its own"
                if abi
                else "a uid of its own: the other seat's files, signals and ptrace are refused",
            )
        elif abi >= 6:
            seats = Held(
                True,
                "a Landlock domain of its own: signals, ptrace and abstract "
                "sockets of others refused",
            )
        else:
            seats = Held(False, f"shares your uid and Landlock ABI {abi} < 6 scopes no signals")
        processes = Held(
            True,
            "process limit on its own uid; all killed with it"
            if self.root
            else "process limit over your uid's count; all killed with it",
        )
        return {
            Guarantee.FILESYSTEM: files,
            Guarantee.NETWORK: network,
            Guarantee.OTHER_SEATS: seats,
            Guarantee.PROCESSES: processes,
            Guarantee.MEMORY: Held(True, "address-space rlimit"),
            Guarantee.UID: Held(self.root, self._uid_text()),
        }

    def _bwrap(self) -> dict[Guarantee, Held]:
        if self.bwrap_problem is not None:
            return {g: Held(False, f"bwrap does not run: {self.bwrap_problem}") for g in Guarantee}
        uid = (
            "a uid of its own"
            if self.root
            else "uid 65534 in a user namespace of its own (your uid outside)"
        )
        return {
            Guarantee.FILESYSTEM: Held(True, "a new root built from the allow-list"),
            Guarantee.NETWORK: Held(True, "an empty network namespace, and seccomp"),
            Guarantee.OTHER_SEATS: Held(True, f"own pid and IPC namespaces, {uid}"),
            Guarantee.PROCESSES: Held(True, "pid namespace and process limit; all killed"),
            Guarantee.MEMORY: Held(True, "address-space rlimit"),
            Guarantee.UID: Held(True, uid),
        }

    def _uid_text(self) -> str:
        if self.root:
            return "a uid of its own from the arena's range"
        return f"your own uid ({os.geteuid()})"


def strangers_level(requested: str = "auto") -> SandboxLevel:
    """The level to run strangers' bots at: the best fit level for ``auto``, else the
    one asked for if it is fit; :class:`HostingError` naming what is missing."""
    host = probe_host()
    if requested == "auto":
        return host.strangers_level()
    try:
        level = SandboxLevel(requested)
    except ValueError:
        raise HostingError(
            f"unknown sandbox level {requested!r} (expected auto, none, limits or bwrap)"
        ) from None
    missing = host.missing(level)
    if missing:
        raise HostingError(
            f"sandbox level {requested!r} is not fit for strangers' bots here: "
            + "; ".join(missing)
        )
    return level


def probe_host() -> HostSandbox:
    """What this host offers now (bwrap is probed once per binary)."""
    return HostSandbox(
        root=os.geteuid() == 0,
        bwrap_problem=bwrap_problem(),
        landlock_abi=landlock_abi(),
        seccomp=_seccomp_works(),
        cgroups=_cgroups(),
    )


@functools.cache
def _seccomp_works() -> bool:
    if filter_program() is None:
        return False
    try:
        return kernel_has_seccomp(Path("/proc/self/status").read_text())
    except OSError:
        return False


def kernel_has_seccomp(status: str) -> bool:
    """Whether a ``/proc/PID/status`` text shows a kernel built with seccomp."""
    return "\nSeccomp:" in status


def _cgroups(root: Path = Path("/sys/fs/cgroup")) -> str:
    """What the cgroup v2 hierarchy under ``root`` offers (unified, or hybrid's
    ``unified/``), in words."""
    for controllers in (root / "cgroup.controllers", root / "unified" / "cgroup.controllers"):
        if controllers.exists():
            try:
                offered = controllers.read_text().split()
            except OSError:
                offered = []
            where = controllers.parent
            return (
                f"cgroup v2 at {where}: controllers {', '.join(offered)}"
                if offered
                else f"cgroup v2 at {where}: no controllers delegated"
            )
    return "no cgroup v2 hierarchy"
