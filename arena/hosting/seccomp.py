"""A seccomp filter for sandboxed bots (``limits`` and ``bwrap``): the system calls no
card-game bot needs.

Defence in depth under the other walls (unprivileged uid, namespaces, an allow-listed
filesystem): calls that reach deep into the kernel or across processes fail with EPERM
instead of being checked only by permissions.  Denied: ``ptrace``, reading or writing
another process's memory, mounts and namespaces (``mount``, ``unshare``, ``setns``,
``clone`` with a ``CLONE_NEW*`` flag), the kernel keyring, BPF, perf events,
userfaultfd, module loading, kexec, reboot, swap, accounting, raw I/O ports and
handle-based opens, io_uring (which opens sockets and files without the calls
filtered here).  At ``limits`` also every socket but unix ones and every ``connect``
(see :func:`filter_program`): on a host without Landlock's network rules this is what
keeps a bot off the network.  ``clone3`` answers ENOSYS, so C libraries fall back to ``clone``,
whose flags a filter can read.  32-bit and x32 system calls are refused outright: a
filter written for one table must not be walked around through another.

The program is classic BPF as ``bwrap --seccomp FD`` and ``prctl(PR_SET_SECCOMP)``
(:mod:`arena.hosting.confine`) read it: an array of ``struct sock_filter``.  Only x86-64 has a table here; elsewhere :func:`filter_program`
returns ``None`` and bots run without the filter (docs/SANDBOX.md says so).
"""

from __future__ import annotations

import errno
import platform
import struct

__all__ = ["DENIED_AT_LIMITS", "DENIED_CALLS", "filter_program"]

# x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
_X86_64 = {
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
_CLONE = 56
_SOCKET = 41
_CONNECT = 42
_AF_UNIX = 1
_CLONE3 = 435
_CLONE_NEW_FLAGS = 0x7E020000  # NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000

#: The calls the filter refuses (by name), for documentation and tests.
DENIED_CALLS = tuple(sorted([*_X86_64, "clone with CLONE_NEW* flags", "clone3"]))
#: What ``unix_only`` adds.
DENIED_AT_LIMITS = ("connect", "socket but AF_UNIX")

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_ERRNO = 0x00050000
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (arg 0's low word)


def filter_program(*, unix_only: bool = False) -> bytes | None:
    """The compiled filter for this machine, or ``None`` where there is no table.

    ``unix_only`` (the ``limits`` level, where no namespace stands behind the filter):
    ``socket`` for any family but ``AF_UNIX`` answers EAFNOSUPPORT, and ``connect``
    EACCES: a bot serves on its own socket and never dials one, and the other seat's
    socket is the one thing of the same user's a dial could reach at ``limits``
    (Landlock only governs connecting to unix sockets from ABI 8)."""
    if platform.machine() != "x86_64":
        return None
    deny = _RET, 0, 0, _ERRNO | errno.EPERM
    program: list[tuple[int, int, int, int]] = [
        (_LD_ABS, 0, 0, _ARCH),
        (_JEQ, 1, 0, _AUDIT_ARCH_X86_64),
        (_RET, 0, 0, _KILL_PROCESS),  # an i386 call from a 64-bit process
        (_LD_ABS, 0, 0, _NR),
        (_JGE, 0, 1, _X32_BIT),
        (_RET, 0, 0, _KILL_PROCESS),  # the x32 table
        (_JEQ, 0, 1, _CLONE3),
        (_RET, 0, 0, _ERRNO | errno.ENOSYS),
        (_JEQ, 0, 4, _CLONE),
        (_LD_ABS, 0, 0, _ARG0),
        (_JSET, 0, 1, _CLONE_NEW_FLAGS),
        deny,
        (_RET, 0, 0, _ALLOW),
    ]
    if unix_only:
        program += [
            (_JEQ, 0, 1, _CONNECT),
            (_RET, 0, 0, _ERRNO | errno.EACCES),
            (_JEQ, 0, 4, _SOCKET),
            (_LD_ABS, 0, 0, _ARG0),  # the address family
            (_JEQ, 1, 0, _AF_UNIX),
            (_RET, 0, 0, _ERRNO | errno.EAFNOSUPPORT),
            (_RET, 0, 0, _ALLOW),
        ]
    for number in sorted(_X86_64.values()):
        program += [(_JEQ, 0, 1, number), deny]
    program.append((_RET, 0, 0, _ALLOW))
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
