"""The launcher's Landlock arithmetic, pinned to the kernel's ABI (linux/landlock.h),
and the launcher run for real: what it applies, in which order, and that it fails
closed."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.hosting import confine
from arena.hosting.confine import (
    allowed_for,
    handled_fs,
    handled_net,
    landlock_abi,
    path_rule,
    ruleset_attr,
    scopes,
)
from arena.hosting.sandbox import _wrapped


def test_rights_grow_with_the_abi() -> None:
    assert [handled_fs(abi) for abi in range(1, 8)] == [
        0x1FFF, 0x3FFF, 0x7FFF, 0x7FFF, 0xFFFF, 0xFFFF, 0xFFFF
    ]  # fmt: skip
    assert [handled_net(abi) for abi in range(1, 8)] == [0, 0, 0, 3, 3, 3, 3]
    assert [scopes(abi) for abi in range(1, 8)] == [0, 0, 0, 0, 0, 3, 3]


def test_the_ruleset_attribute_is_as_long_as_the_abi_knows() -> None:
    assert ruleset_attr(1) == struct.pack("=Q", 0x1FFF)
    assert ruleset_attr(3) == struct.pack("=Q", 0x7FFF)
    assert ruleset_attr(4) == struct.pack("=QQ", 0x7FFF, 3)
    assert ruleset_attr(5) == struct.pack("=QQ", 0xFFFF, 3)
    assert ruleset_attr(6) == struct.pack("=QQQ", 0xFFFF, 3, 3)
    assert ruleset_attr(7) == struct.pack("=QQQ", 0xFFFF, 3, 3)
    assert path_rule(5, 3) == struct.pack("=Qi", 5, 3) and len(path_rule(5, 3)) == 12


def test_what_each_kind_of_path_grants() -> None:
    assert allowed_for("ro", 7, is_dir=True) == 0b1101  # execute, read file, read dir
    assert allowed_for("ro", 7, is_dir=False) == 0b0101  # a file has no listing
    assert allowed_for("rw", 7, is_dir=True) == 0xFFFF
    assert allowed_for("rw", 7, is_dir=False) == 0b1100000000000111  # ioctl, truncate, x, w, r
    assert allowed_for("rw", 1, is_dir=True) == 0x1FFF  # no more than the ABI handles
    assert allowed_for("rw", 2, is_dir=False) == 0b111
    assert allowed_for("dev", 7, is_dir=False) == 0b0110  # read and write, no execute
    assert confine.FILE_RIGHTS == 0xC007


def run_launcher(specs: list[str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_wrapped(specs, list(argv)), capture_output=True, text=True, timeout=30)


@pytest.mark.slow
def test_the_launcher_confines_what_it_execs(tmp_path: Path) -> None:
    if landlock_abi() == 0:
        pytest.skip("[landlock] this kernel offers no Landlock")
    allowed, closed = tmp_path / "allowed", tmp_path / "closed"
    allowed.mkdir()
    closed.mkdir()
    (closed / "secret").write_text("secret")
    specs = ["nnp", f"landlock={landlock_abi()}", "ro=/usr", f"rw={allowed}"]
    script = f"echo hi > {allowed}/out; cat {closed}/secret; ls {tmp_path}; echo done"
    done = run_launcher(specs, "/bin/sh", "-c", script)
    assert (allowed / "out").read_text() == "hi\n"
    assert "secret" not in done.stdout and "Permission denied" in done.stderr
    assert done.stdout.strip().endswith("done")
    unconfined = run_launcher(["nnp"], "/bin/sh", "-c", f"cat {closed}/secret")
    assert unconfined.stdout == "secret"  # the same without the ruleset: it is what denies


@pytest.mark.slow
def test_limits_are_applied_before_the_exec() -> None:
    done = run_launcher(
        ["RLIMIT_NOFILE=17:17", "nnp"],
        "/bin/sh",
        "-c",
        "ulimit -n; grep NoNewPrivs /proc/self/status",
    )
    assert done.stdout.split() == ["17", "NoNewPrivs:", "1"], done.stderr


@pytest.mark.slow
def test_nocaps_leaves_no_capability() -> None:
    """A template's seat without a uid to drop to keeps its namespace's capabilities
    unless ``nocaps`` clears them, the ambient and inheritable ones too."""
    show = "grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status"
    cleared = run_launcher(["nocaps", "nnp"], "/bin/sh", "-c", show)
    assert [line.split()[1] for line in cleared.stdout.splitlines()] == ["0" * 16] * 4
    if os.geteuid() == 0:  # the test can fail: root has them without the spec
        kept = run_launcher(["nnp"], "/bin/sh", "-c", show)
        assert "CapEff:\t" + "0" * 16 not in kept.stdout


@pytest.mark.slow
def test_the_parent_death_signal_outlives_the_uid_change() -> None:
    """Set after ``user=`` (a uid change clears it): the bot still dies with its parent."""
    user = ["user=65534:65534"] if os.geteuid() == 0 else []  # only root changes uid
    read = "import ctypes, os; v = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(v))"
    show = read + "; print(os.getuid(), v.value)"
    done = run_launcher([*user, f"pdeathsig={os.getpid()}", "nnp"], "/usr/bin/python3", "-c", show)
    uid = 65534 if user else os.geteuid()
    assert done.stdout.split() == [str(uid), str(int(signal.SIGKILL))], done.stderr
    gone = run_launcher(["pdeathsig=1", "nnp"], "/bin/sh", "-c", "echo ran")
    assert (gone.returncode, gone.stdout) == (137, "")  # not its parent: it never runs


@pytest.mark.slow
def test_the_uid_change_takes_the_gid_and_the_groups_too() -> None:
    if os.geteuid() != 0:
        pytest.skip("only root changes uid")
    argv = _wrapped(["user=65534:65533", "nnp"], ["/bin/sh", "-c", "id -u; id -g; id -G"])
    # Started with a supplementary group, which the launcher must not pass on.
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, extra_groups=[4242])
    assert done.stdout.split() == ["65534", "65533", "65533"], done.stderr


@pytest.mark.slow
def test_the_bot_inherits_no_descriptor_of_the_launchers(tmp_path: Path) -> None:
    """The Landlock ruleset's fd is closed before the exec (the bot could add to it)."""
    if landlock_abi() == 0:
        pytest.skip("[landlock] this kernel offers no Landlock")
    specs = ["nnp", f"landlock={landlock_abi()}", "ro=/usr", "ro=/proc"]
    done = run_launcher(specs, "/bin/sh", "-c", "ls /proc/self/fd")
    assert done.stdout.split() == ["0", "1", "2", "3"], done.stderr  # 3: ls's own


def test_drop_capabilities_raises_what_capset_says() -> None:
    class Refusing:
        def capset(self, header: bytes, data: bytes) -> int:
            ctypes.set_errno(errno.EPERM)
            return -1

    with pytest.raises(OSError, match=r"capset: Operation not permitted") as raised:
        confine.drop_capabilities(Refusing())  # type: ignore[arg-type]
    assert raised.value.errno == errno.EPERM


@pytest.mark.parametrize(
    ("spec", "patch", "reason"),
    [
        (
            "nocaps",
            "def refuse(libc): raise OSError(1, 'capset: Operation not permitted')\n"
            "confine.drop_capabilities = refuse",
            "capset: Operation not permitted",
        ),
        (
            "nnp",
            "class Libc:\n    def prctl(self, *args): return -1\nconfine._libc = Libc",
            "prctl(PR_SET_NO_NEW_PRIVS) failed",
        ),
    ],
)
def test_a_step_that_fails_ends_the_process_naming_it(spec: str, patch: str, reason: str) -> None:
    code = f"from arena.hosting import confine\n{patch}\nconfine.apply([{spec!r}])\nprint('ran')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout) == (126, "")
    assert done.stderr == f"arena: cannot confine the bot: {reason}\n"


@pytest.mark.slow
def test_a_program_outside_the_jail_is_named(tmp_path: Path) -> None:
    if landlock_abi() == 0:
        pytest.skip("[landlock] this kernel offers no Landlock")
    program = tmp_path / "tool"
    program.write_text("#!/bin/sh\necho ran\n")
    program.chmod(0o755)
    done = run_launcher(["nnp", f"landlock={landlock_abi()}", "ro=/usr"], str(program))
    assert done.returncode == 127 and "ran" not in done.stdout
    assert f"arena: cannot run '{program}'" in done.stderr
    assert "outside the jail's allow-list" in done.stderr


def test_no_landlock_is_abi_0(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object) -> int:
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(confine, "_syscall", refused)
    assert confine.landlock_abi.__wrapped__() == 0
    monkeypatch.undo()
    monkeypatch.setattr(confine.sys, "platform", "darwin")
    assert confine.landlock_abi.__wrapped__() == 0


def test_the_abi_1_rights_are_the_thirteen_first_bits() -> None:
    named = [
        confine.FS_EXECUTE, confine.FS_WRITE_FILE, confine.FS_READ_FILE, confine.FS_READ_DIR,
        confine.FS_REMOVE_DIR, confine.FS_REMOVE_FILE, confine.FS_MAKE_CHAR, confine.FS_MAKE_DIR,
        confine.FS_MAKE_REG, confine.FS_MAKE_SOCK, confine.FS_MAKE_FIFO, confine.FS_MAKE_BLOCK,
        confine.FS_MAKE_SYM, confine.FS_REFER, confine.FS_TRUNCATE, confine.FS_IOCTL_DEV,
    ]  # fmt: skip
    assert named == [1 << bit for bit in range(16)]
    assert (confine.SYS_LANDLOCK_CREATE_RULESET, confine.SYS_LANDLOCK_ADD_RULE) == (444, 445)
    assert confine.SYS_LANDLOCK_RESTRICT_SELF == 446


def test_a_failed_call_raises_with_its_errno() -> None:
    libc = confine._libc()
    with pytest.raises(OSError) as bad_fd:
        confine._syscall(libc, confine.SYS_LANDLOCK_RESTRICT_SELF, -1, 0)
    assert bad_fd.value.errno in (9, 38)  # EBADF, or ENOSYS without Landlock
    assert confine._syscall(libc, 39) == os.getpid()  # getpid: a result passes through


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="switching to another user needs root")
def test_a_jail_the_kernel_refuses_to_enforce_never_runs_the_bot(tmp_path: Path) -> None:
    """Without no_new_privs an unprivileged process may not enforce a ruleset: the
    launcher, run as uid 65534, must stop there rather than exec the bot unconfined."""
    if landlock_abi() == 0:
        pytest.skip("[landlock] this kernel offers no Landlock")
    from arena.hosting.process import arena_folder
    from arena.hosting.shared_python import unprivileged_python

    folder = Path(tempfile.mkdtemp(prefix="arena-test-witness-"))  # pytest's are root-only
    folder.chmod(0o777)
    witness = folder / "ran"
    argv = _wrapped([f"landlock={landlock_abi()}", "ro=/usr"], ["/bin/touch", str(witness)])
    argv[0] = unprivileged_python(arena_folder())  # one uid 65534 can run
    setpriv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    done = subprocess.run([*setpriv, *argv], capture_output=True, text=True, timeout=30)
    assert done.returncode == 126, done
    assert (
        done.stderr
        == "arena: cannot confine the bot: landlock_restrict_self: Operation not permitted\n"
    )
    assert not witness.exists()
    enforced = subprocess.run([*setpriv, *argv[:-3], "nnp", *argv[-3:]], timeout=30)
    assert enforced.returncode == 1 and not witness.exists()  # with nnp: the jail holds
    shutil.rmtree(folder)
