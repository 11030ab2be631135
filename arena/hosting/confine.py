"""What runs in a bot's process between fork and exec: limits, uid, Landlock, seccomp.

The launcher runs this module's source as ``python -I -S -c SOURCE SPEC... -- ARGV``
with the referee's own interpreter, so it imports nothing but the standard library
and works for bots in any language.  It applies every SPEC to itself (:func:`apply`),
always in the same order whatever order they come in, then ``exec``s the bot in its
place.  A seat forked from a template (:mod:`arena.hosting.template_main`) calls
:func:`apply` with the same specs before it runs the bot's script.

1. ``RLIMIT_*=SOFT:HARD``: resource limits;
2. ``ro=PATH``, ``rw=PATH``, ``dev=PATH`` with ``landlock=ABI``: a Landlock ruleset
   allowing only those paths (read and execute; everything; read and write a device
   file), no TCP bind or connect (ABI 4+), signals and abstract unix sockets scoped
   to the bot's own domain (ABI 6+).  Its paths are opened before the uid drops;
3. ``user=UID:GID``: drop to the bot's own uid (root referees);
4. ``pdeathsig=PID``: die with the parent, PID as this process sees it (checked, for
   the race where it died first).  After the uid change, which clears the setting;
5. ``nocaps``: clear every capability, the ambient and inheritable ones too (a seat
   without a uid to drop to keeps its namespace's otherwise);
6. ``nnp``: ``no_new_privs``, which Landlock and seccomp also need;
7. the Landlock ruleset is enforced (``landlock_restrict_self``);
8. ``seccomp=HEX``: a classic BPF program (:mod:`arena.hosting.seccomp`) installed.

Each step fails closed: a jail that cannot be built ends the process with status
126 and one line on stderr naming what failed, and the bot never runs unconfined.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import resource
import signal
import stat
import struct
import sys
import warnings  # noqa: F401  # os.execvp imports it: load it before the jail closes

# Syscall numbers shared by every architecture (include/uapi/asm-generic/unistd.h).
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1

# Filesystem rights (include/uapi/linux/landlock.h), with the ABI that brought each.
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

#: The rights that apply to a file (not a folder): a rule on a file may grant only these.
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ_ONLY = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
DEVICE = FS_READ_FILE | FS_WRITE_FILE

_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_CAPABILITY_VERSION_3 = 0x20080522
_SECCOMP_MODE_FILTER = 2
_JAIL_FAILED = 126


#: The rights of Landlock ABI 1.
FS_ABI_1 = (
    FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_READ_DIR | FS_REMOVE_DIR | FS_REMOVE_FILE
    | FS_MAKE_CHAR | FS_MAKE_DIR | FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK
    | FS_MAKE_SYM
)  # fmt: skip


def handled_fs(abi: int) -> int:
    """Every filesystem right the kernel of Landlock ``abi`` knows: all are denied
    unless a rule allows them (a right left unhandled would stay open)."""
    rights = FS_ABI_1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def handled_net(abi: int) -> int:
    """The network rights handled (so denied, with no rule allowing any port)."""
    return NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0


def scopes(abi: int) -> int:
    """What the domain is scoped against: signals and abstract unix sockets of others."""
    return SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0


def ruleset_attr(abi: int) -> bytes:
    """``struct landlock_ruleset_attr`` as long as ``abi``'s kernel expects it."""
    packed = struct.pack("=QQQ", handled_fs(abi), handled_net(abi), scopes(abi))
    return packed[: 8 if abi < 4 else 16 if abi < 6 else 24]


def path_rule(allowed: int, fd: int) -> bytes:
    """``struct landlock_path_beneath_attr`` (packed: a u64 and an s32)."""
    return struct.pack("=Qi", allowed, fd)


def allowed_for(kind: str, abi: int, is_dir: bool) -> int:
    """The rights a ``ro``, ``rw`` or ``dev`` path grants under ``abi``."""
    everything = handled_fs(abi)
    rights = {"ro": READ_ONLY, "rw": everything, "dev": DEVICE}[kind] & everything
    return rights if is_dir else rights & FILE_RIGHTS


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _syscall(libc: ctypes.CDLL, number: int, *args: object) -> int:
    result: int = libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


@functools.cache
def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers this process; 0 where it has none
    (too old, not built in, or disabled at boot)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        return _syscall(_libc(), SYS_LANDLOCK_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    except OSError:
        return 0


def build_ruleset(abi: int, paths: list[tuple[str, str]]) -> int:
    """A Landlock ruleset's fd allowing each ``(kind, path)``; missing paths are left out
    (nothing there to allow).  Raises OSError naming the path a rule failed on."""
    libc = _libc()
    attr = ctypes.create_string_buffer(ruleset_attr(abi))
    ruleset = _syscall(libc, SYS_LANDLOCK_CREATE_RULESET, attr, len(attr.raw), 0)
    for kind, path in paths:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise OSError(exc.errno, f"{path}: {exc.strerror}") from None
        try:
            is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
            rule = ctypes.create_string_buffer(path_rule(allowed_for(kind, abi, is_dir), fd))
            try:
                _syscall(libc, SYS_LANDLOCK_ADD_RULE, ruleset, RULE_PATH_BENEATH, rule, 0)
            except OSError as exc:
                raise OSError(exc.errno, f"landlock_add_rule({path}): {exc.strerror}") from None
        finally:
            os.close(fd)
    return ruleset


def install_seccomp(program: bytes) -> None:
    """Install a classic BPF seccomp filter on this process (``no_new_privs`` set)."""

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(program)
    fprog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = _libc()
    # Only the arguments the kernel reads (NO_NEW_PRIVS alone insists on zeros after).
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"seccomp filter: {os.strerror(code)}")


def drop_capabilities(libc: ctypes.CDLL) -> None:
    """Clear every capability of this process: effective, permitted and inheritable,
    and so the ambient ones (the kernel keeps none that is not permitted and
    inheritable): an ``exec`` gains none back."""
    header = struct.pack("Ii", _CAPABILITY_VERSION_3, 0)  # this process
    if libc.capset(header, bytes(24)) != 0:  # two empty __user_cap_data_struct
        code = ctypes.get_errno()
        raise OSError(code, f"capset: {os.strerror(code)}")


def _fail(what: str) -> None:
    sys.stderr.write(f"arena: cannot confine the bot: {what}\n")
    sys.stderr.flush()
    os._exit(_JAIL_FAILED)


def apply(specs: list[str]) -> bool:
    """Apply ``specs`` to this process in the module docstring's order; whether a
    Landlock ruleset now confines it.  A step that fails ends the process (status 126,
    or 137 if the parent is already gone)."""
    values: dict[str, str] = {}
    paths: list[tuple[str, str]] = []
    for what, _, value in (spec.partition("=") for spec in specs):
        if what in ("ro", "rw", "dev"):
            paths.append((what, value))
        else:
            values[what] = value
    libc = _libc()
    for what, value in values.items():
        if what.startswith("RLIMIT_"):
            soft, hard = value.split(":")
            resource.setrlimit(getattr(resource, what), (int(soft), int(hard)))
    ruleset = None
    if "landlock" in values:
        try:  # opened while the referee's rights still hold: a runtime under root's home
            ruleset = build_ruleset(int(values["landlock"]), paths)
        except OSError as exc:
            _fail(f"landlock: {exc.strerror}")
    if "user" in values:
        uid, gid = (int(part) for part in values["user"].split(":"))
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    if "pdeathsig" in values:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != int(values["pdeathsig"]):
            os._exit(137)  # the parent died before prctl took effect
    if "nocaps" in values:
        try:
            drop_capabilities(libc)
        except OSError as exc:
            _fail(exc.strerror or str(exc))
    if "nnp" in values and libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail("prctl(PR_SET_NO_NEW_PRIVS) failed")
    if ruleset is not None:
        try:
            _syscall(libc, SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0)
        except OSError as exc:
            _fail(f"landlock_restrict_self: {exc.strerror}")
        os.close(ruleset)
    if "seccomp" in values:
        try:
            install_seccomp(bytes.fromhex(values["seccomp"]))
        except OSError as exc:
            _fail(exc.strerror or str(exc))
    return ruleset is not None


def main(args: list[str]) -> None:
    """Apply the specs in ``args`` (up to ``--``) to this process and exec the rest."""
    sep = args.index("--")
    argv = args[sep + 1 :]
    landlocked = apply(args[:sep])
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        why = exc.strerror or str(exc)
        if landlocked and exc.errno == errno.EACCES:
            why += " (outside the jail's allow-list, or not executable by this uid)"
        sys.stderr.write(f"arena: cannot run {argv[0]!r} as uid {os.getuid()}: {why}\n")
        sys.exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
