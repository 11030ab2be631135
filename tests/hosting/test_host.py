"""Which levels are fit for strangers on which host: every probe outcome that matters
(root or not, bwrap or not, the Landlock ABI, seccomp), and what the arena says."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.hosting.errors import HostingError
from arena.hosting.host import (
    FIT_FOR_STRANGERS,
    Guarantee,
    HostSandbox,
    kernel_has_seccomp,
    probe_host,
)
from arena.hosting.host import strangers_level as choose
from arena.hosting.sandbox import SandboxLevel

NONE, LIMITS, BWRAP = SandboxLevel.NONE, SandboxLevel.LIMITS, SandboxLevel.BWRAP
NO_BWRAP = "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"


def host(
    root: bool = False, bwrap: str | None = None, abi: int = 7, seccomp: bool = True
) -> HostSandbox:
    return HostSandbox(
        root=root, bwrap_problem=bwrap, landlock_abi=abi, seccomp=seccomp, cgroups="-"
    )


def held(machine: HostSandbox, level: SandboxLevel) -> set[str]:
    return {g.value for g, row in machine.guarantees(level).items() if row.held}


def test_what_a_level_must_hold_for_strangers() -> None:
    assert FIT_FOR_STRANGERS == (
        Guarantee.FILESYSTEM, Guarantee.NETWORK, Guarantee.OTHER_SEATS, Guarantee.PROCESSES
    )  # fmt: skip
    assert [g.value for g in Guarantee] == [
        "filesystem", "network", "other seats", "processes", "memory", "uid"
    ]  # fmt: skip


@pytest.mark.parametrize("root", [True, False], ids=["root", "user"])
def test_bwrap_holds_everything_where_it_runs(root: bool) -> None:
    assert held(host(root=root), BWRAP) == {g.value for g in Guarantee}
    assert host(root=root).fit(BWRAP)
    assert host(root=root).strangers_level() is BWRAP
    broken = host(root=root, bwrap="no user namespaces")
    assert held(broken, BWRAP) == set()
    assert broken.missing(BWRAP) == ["no user namespaces"]
    assert broken.strangers_level() is LIMITS


def test_landlock_limits_as_root_and_as_a_user() -> None:
    assert held(host(root=True), LIMITS) == {g.value for g in Guarantee}
    assert held(host(root=False), LIMITS) == {g.value for g in Guarantee} - {"uid"}
    assert host(root=False).fit(LIMITS) and host(root=True).fit(LIMITS)


def test_limits_as_a_user_needs_landlock_6_to_keep_seats_apart() -> None:
    old = host(root=False, abi=5)
    assert old.missing(LIMITS) == [
        "other seats: shares your uid and Landlock ABI 5 < 6 scopes no signals"
    ]
    assert host(root=True, abi=5).fit(LIMITS)  # its own uid keeps seats apart
    assert host(root=False, abi=6).fit(LIMITS)
    assert "Landlock: ABI 5; ABI 6 (Linux 6.12)" in " ".join(old.advice())


def test_limits_without_landlock_or_seccomp_is_not_fit() -> None:
    bare = host(root=True, abi=0)
    assert bare.missing(LIMITS) == [
        "filesystem: no Landlock here: the host's files, with its uid's rights"
    ]
    assert host(root=True, seccomp=False).missing(LIMITS) == [
        "network: no seccomp filter for this architecture"
    ]
    assert host(root=False, abi=0).missing(LIMITS) == [
        "filesystem: no Landlock here: the host's files, with its uid's rights",
        "other seats: shares your uid and Landlock ABI 0 < 6 scopes no signals",
    ]
    network = host(abi=3).guarantees(LIMITS)[Guarantee.NETWORK]
    assert network.held and "Landlock refuses TCP" not in network.how
    assert "Landlock refuses TCP" in host(abi=4).guarantees(LIMITS)[Guarantee.NETWORK].how


def test_none_is_never_fit() -> None:
    for root in (True, False):
        machine = host(root=root)
        assert not machine.fit(NONE)
        assert held(machine, NONE) == ({"other seats", "uid"} if root else set())
        assert machine.missing(NONE)[:2] == [
            "filesystem: the host's files, with its uid's rights",
            "network: the host's network",
        ]


def test_where_nothing_is_fit_the_refusal_names_what_is_missing() -> None:
    with pytest.raises(HostingError) as refused:
        host(root=True, bwrap=NO_BWRAP, abi=0).strangers_level()
    assert str(refused.value) == (
        f"no sandbox level here is fit for strangers' bots: bwrap: {NO_BWRAP}; limits: "
        "filesystem: no Landlock here: the host's files, with its uid's rights"
    )


def test_the_level_asked_for_is_kept_only_if_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.hosting.host.probe_host", lambda: host(bwrap=NO_BWRAP))
    assert choose("auto") is LIMITS
    assert choose("limits") is LIMITS
    with pytest.raises(
        HostingError,
        match="sandbox level 'bwrap' is not fit for strangers' bots here: bwrap is not",
    ):
        choose("bwrap")
    with pytest.raises(HostingError) as refused:
        choose("none")
    assert str(refused.value) == (
        "sandbox level 'none' is not fit for strangers' bots here: filesystem: the host's "
        "files, with its uid's rights; network: the host's network; other seats: shares "
        "your uid; processes: killed with it, but no process limit"
    )
    with pytest.raises(HostingError, match="unknown sandbox level 'jail'"):
        choose("jail")


def test_the_warning_goes_where_landlock_keeps_a_users_bots_apart() -> None:
    user = host(root=False)
    assert user.warning("limits") is None
    assert user.warning("bwrap") is None
    assert user.warning("in-process") is None
    assert user.warning("none") == (
        "bots run as your own user at sandbox level 'none': they can read your files and "
        "signal each other; see `arena doctor` for what this host lacks"
    )
    assert host(root=False, abi=0).warning("limits") is not None
    assert host(root=True).warning("none") is None


def test_the_summary_line() -> None:
    assert host(root=False).summary(LIMITS) == (
        "sandbox limits here: fit for strangers; holds filesystem, network, other seats, "
        "processes, memory; not uid"
    )
    assert host(root=True).summary(BWRAP) == (
        "sandbox bwrap here: fit for strangers; holds filesystem, network, other seats, "
        "processes, memory, uid"
    )


def test_advice_says_what_to_install_or_change() -> None:
    assert host(root=True).advice() == []
    advice = host(root=False, bwrap=NO_BWRAP, abi=0, seccomp=False).advice()
    assert [line.split(":")[0] for line in advice] == [
        "bwrap",
        "Landlock",
        "seccomp",
        "run as root to give every bot a uid of its own (exact process limits, no shared identity at any level)",
    ]
    assert "ARENA_BWRAP=PATH" in advice[0]


def test_the_probe_reads_this_host() -> None:
    probed = probe_host()
    assert probed.root == (os.geteuid() == 0)
    assert probed.seccomp  # x86-64 with a seccomp-enabled kernel: this project's machines
    if Path("/sys/fs/cgroup/unified/cgroup.controllers").exists():  # this kind of machine
        assert probed.cgroups.startswith("cgroup v2 at /sys/fs/cgroup/unified: ")


ROOT_TABLE = {
    NONE: {
        "filesystem": (False, "the host's files, with its uid's rights"),
        "network": (False, "the host's network"),
        "other seats": (True, "a uid of its own: the other seat's files, signals and ptrace are refused"),
        "processes": (False, "killed with it, but no process limit"),
        "memory": (False, "no limit"),
        "uid": (True, "a uid of its own from the arena's range"),
    },
    LIMITS: {
        "filesystem": (True, "Landlock ABI 7: only the allow-list, nothing else"),
        "network": (True, "seccomp refuses every socket but unix ones and every connect, and Landlock refuses TCP bind and connect"),
        "other seats": (True, "a uid of its own, and a Landlock domain of its own"),
        "processes": (True, "process limit on its own uid; all killed with it"),
        "memory": (True, "address-space rlimit"),
        "uid": (True, "a uid of its own from the arena's range"),
    },
    BWRAP: {
        "filesystem": (True, "a new root built from the allow-list"),
        "network": (True, "an empty network namespace, and seccomp"),
        "other seats": (True, "own pid and IPC namespaces, a uid of its own"),
        "processes": (True, "pid namespace and process limit; all killed"),
        "memory": (True, "address-space rlimit"),
        "uid": (True, "a uid of its own"),
    },
}  # fmt: skip


def test_the_table_doctor_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    machine = host(root=True)
    for level, rows in ROOT_TABLE.items():
        got = {g.value: (row.held, row.how) for g, row in machine.guarantees(level).items()}
        assert got == rows, level
    monkeypatch.setattr("arena.hosting.host.os.geteuid", lambda: 1234)
    user = {g.value: (r.held, r.how) for g, r in host(root=False).guarantees(LIMITS).items()}
    assert user["other seats"] == (
        True, "a Landlock domain of its own: signals, ptrace and abstract sockets of others refused"
    )  # fmt: skip
    assert user["processes"] == (True, "process limit over your uid's count; all killed with it")
    assert user["uid"] == (False, "your own uid (1234)")
    rooted = host(root=True, abi=0).guarantees(LIMITS)[Guarantee.OTHER_SEATS]
    assert rooted.how == "a uid of its own: the other seat's files, signals and ptrace are refused"
    assert host(root=False).guarantees(NONE)[Guarantee.OTHER_SEATS].how == "shares your uid"


def test_strangers_level_is_auto_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.hosting.host.probe_host", lambda: host())
    assert choose() is BWRAP


def test_seccomp_is_read_from_the_kernels_status(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.hosting import host as host_module

    assert kernel_has_seccomp("Name:\tpython\nSeccomp:\t0\nSeccomp_filters:\t0\n")
    assert not kernel_has_seccomp("Name:\tpython\nNoNewPrivs:\t0\n")

    # The concrete class Path() makes here (PosixPath), a base only known at run time.
    class Unreadable(type(Path())):  # type: ignore[misc]
        def read_text(self, *args: object, **kwargs: object) -> str:
            raise OSError(13, "Permission denied")

    monkeypatch.setattr(host_module, "Path", Unreadable)
    assert host_module._seccomp_works.__wrapped__() is False
    monkeypatch.undo()
    assert host_module._seccomp_works.__wrapped__() is True
    monkeypatch.setattr(host_module, "filter_program", lambda **_: None)
    assert host_module._seccomp_works.__wrapped__() is False


def test_what_the_cgroup_hierarchy_offers(tmp_path: Path) -> None:
    from arena.hosting.host import _cgroups

    assert _cgroups(tmp_path) == "no cgroup v2 hierarchy"
    (tmp_path / "unified").mkdir()
    (tmp_path / "unified" / "cgroup.controllers").write_text("\n")
    assert _cgroups(tmp_path) == f"cgroup v2 at {tmp_path / 'unified'}: no controllers delegated"
    (tmp_path / "cgroup.controllers").write_text("cpu memory pids\n")
    assert _cgroups(tmp_path) == f"cgroup v2 at {tmp_path}: controllers cpu, memory, pids"
