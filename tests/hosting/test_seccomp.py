"""The seccomp filter, read instruction by instruction: a small classic-BPF machine runs
the compiled program on a system call, as the kernel would, and gives the verdict.
So every rule is checked for every level, whichever attack the hostile suite tries."""

from __future__ import annotations

import errno
import struct

import pytest

from arena.hosting.seccomp import DENIED_AT_LIMITS, DENIED_CALLS, filter_program

ALLOW = "allow"
KILL = "kill"
X86_64, I386 = 0xC000003E, 0x40000003
NUMBERS = {
    "read": 0, "write": 1, "open": 2, "mmap": 9, "socket": 41, "connect": 42, "accept": 43,
    "bind": 49, "listen": 50, "clone": 56, "fork": 57, "execve": 59, "kill": 62,
    "ptrace": 101, "mount": 165, "unshare": 272, "setns": 308, "keyctl": 250, "bpf": 321,
    "perf_event_open": 298, "userfaultfd": 323, "init_module": 175, "finit_module": 313,
    "kexec_load": 246, "reboot": 169, "process_vm_readv": 310, "process_vm_writev": 311,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "clone3": 435,
    "open_by_handle_at": 304, "pivot_root": 155, "swapon": 167, "iopl": 172,
}  # fmt: skip
# Every call the filter refuses with EPERM, by its x86-64 number (syscall_64.tbl).
REFUSED = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "mount": 165, "umount2": 166, "pivot_root": 155, "unshare": 272, "setns": 308,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321,
    "perf_event_open": 298, "userfaultfd": 323, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320, "reboot": 169,
    "swapon": 167, "swapoff": 168, "acct": 163, "iopl": 172, "ioperm": 173,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "sethostname": 170,
    "setdomainname": 171, "lookup_dcookie": 212, "quotactl": 179,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
}  # fmt: skip
CLONE_NEWUSER, CLONE_NEWNET, CLONE_THREAD = 0x10000000, 0x40000000, 0x00010000
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16


def verdict(program: bytes, nr: int, args: tuple[int, ...] = (), arch: int = X86_64) -> str:
    """Run a classic BPF seccomp program on ``struct seccomp_data``."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, *(list(args) + [0] * 6)[:6])
    code = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op in (0x20, 0x06):  # jump offsets mean nothing here: a well-formed program has 0
            assert (jt, jf) == (0, 0), f"instruction {pc}: {code[pc]}"
        if op == 0x20:  # LD W ABS
            acc = struct.unpack_from("=I", data, k)[0]
        elif op == 0x15:  # JEQ K
            pc += jt if acc == k else jf
        elif op == 0x35:  # JGE K
            pc += jt if acc >= k else jf
        elif op == 0x45:  # JSET K
            pc += jt if acc & k else jf
        elif op == 0x06:  # RET K
            if k == 0x7FFF0000:
                return ALLOW
            if k == 0x80000000:
                return KILL
            assert k & 0xFFFF0000 == 0x00050000, hex(k)
            return errno.errorcode[k & 0xFFFF]
        else:
            raise AssertionError(f"unknown instruction {op:#x}")
        pc += 1


@pytest.fixture(params=[False, True], ids=["bwrap", "limits"])
def program(request: pytest.FixtureRequest) -> bytes:
    compiled = filter_program(unix_only=request.param)
    assert compiled is not None, "this machine is x86-64: there is a filter"
    return compiled


def test_what_no_bot_needs_is_refused_at_every_level(program: bytes) -> None:
    for name in (
        "ptrace", "mount", "unshare", "setns", "keyctl", "bpf", "perf_event_open",
        "userfaultfd", "init_module", "finit_module", "kexec_load", "reboot",
        "process_vm_readv", "process_vm_writev", "io_uring_setup", "io_uring_enter",
        "io_uring_register", "open_by_handle_at", "pivot_root", "swapon", "iopl",
    ):  # fmt: skip
        assert verdict(program, NUMBERS[name]) == "EPERM", name
    assert verdict(program, NUMBERS["clone3"]) == "ENOSYS"  # libc falls back to clone
    assert verdict(program, NUMBERS["clone"], (CLONE_NEWUSER,)) == "EPERM"
    assert verdict(program, NUMBERS["clone"], (CLONE_NEWNET | CLONE_THREAD,)) == "EPERM"


def test_what_every_bot_needs_is_allowed(program: bytes) -> None:
    for name in (
        "read",
        "write",
        "open",
        "mmap",
        "fork",
        "execve",
        "kill",
        "accept",
        "bind",
        "listen",
    ):
        assert verdict(program, NUMBERS[name]) == ALLOW, name
    assert verdict(program, NUMBERS["clone"], (CLONE_THREAD | 0x3D0F00,)) == ALLOW
    for flags in (17, 41, 42, 101, 165):  # SIGCHLD, and flags that read like call numbers
        assert verdict(program, NUMBERS["clone"], (flags,)) == ALLOW, flags
    assert verdict(program, NUMBERS["socket"], (AF_UNIX,)) == ALLOW


def test_every_call_has_the_verdict_of_its_number(program: bytes) -> None:
    special = {NUMBERS["clone"], NUMBERS["clone3"], NUMBERS["socket"], NUMBERS["connect"]}
    for number in range(0, 512):
        if number in special:
            continue
        expected = "EPERM" if number in REFUSED.values() else ALLOW
        assert verdict(program, number, (CLONE_NEWUSER,)) == expected, number
    assert set(DENIED_CALLS) == {*REFUSED, "clone with CLONE_NEW* flags", "clone3"}


def test_other_tables_are_refused_outright(program: bytes) -> None:
    assert verdict(program, 0, arch=I386) == KILL
    assert verdict(program, 0x40000000 | 1) == KILL  # the x32 table
    assert verdict(program, 0x40000000 | NUMBERS["ptrace"]) == KILL


def test_limits_refuses_every_socket_but_unix_ones_and_every_connect() -> None:
    limits, bwrap = filter_program(unix_only=True), filter_program()
    assert limits is not None and bwrap is not None
    for family in (AF_INET, AF_INET6, AF_NETLINK, 17, 40):
        assert verdict(limits, NUMBERS["socket"], (family,)) == "EAFNOSUPPORT", family
        assert verdict(bwrap, NUMBERS["socket"], (family,)) == ALLOW  # an empty netns there
    assert verdict(limits, NUMBERS["connect"]) == "EACCES"
    assert verdict(bwrap, NUMBERS["connect"]) == ALLOW
    assert verdict(limits, NUMBERS["socket"], (AF_UNIX | 1 << 32,)) == ALLOW  # low word


def test_the_documented_names() -> None:
    assert "ptrace" in DENIED_CALLS and "io_uring_setup" in DENIED_CALLS
    assert "clone with CLONE_NEW* flags" in DENIED_CALLS and "clone3" in DENIED_CALLS
    assert DENIED_AT_LIMITS == ("connect", "socket but AF_UNIX")
