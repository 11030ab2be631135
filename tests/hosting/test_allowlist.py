"""What each level lets a bot reach, pinned: exact lists, only paths that exist, nothing
above the bot's own folder.  The hostile suites show the walls hold; these show the
allow-list they are built from is the one documented, so a change that widens it
fails here even where no attack happens to look."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena.hosting.allowlist import (
    DEVICES,
    ETC_FILES,
    SYSTEM_DIRS,
    Jail,
    landlock_paths,
    python_import_roots,
    runtime_paths,
    system_binds,
)
from arena.hosting.sandbox import bwrap_command, rlimit_command
from arena.hosting.seccomp import filter_program

# Debian 12 (this project's machines and CI): /usr merged, the other tops links into it.
MERGED_USR_LINKS = {
    "/bin": "usr/bin",
    "/sbin": "usr/sbin",
    "/lib": "usr/lib",
    "/lib64": "usr/lib64",
}


def jail_in(tmp_path: Path) -> Jail:
    bot = tmp_path / "bots" / "mine"
    work, sock, tmp = (
        tmp_path / "home" / "work",
        tmp_path / "home" / "sock",
        tmp_path / "home" / "tmp",
    )
    for folder in (bot, work, sock, tmp):
        folder.mkdir(parents=True)
    return Jail(read_only=(bot,), writable=(work, sock), tmp=tmp)


def test_the_documented_lists() -> None:
    assert SYSTEM_DIRS == ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
    assert ETC_FILES == (
        "ssl/openssl.cnf", "ssl/certs", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
        "nsswitch.conf", "localtime", "hosts", "alternatives",
    )  # fmt: skip
    assert DEVICES == ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


def test_landlock_allows_exactly_the_jail(tmp_path: Path) -> None:
    jail = jail_in(tmp_path)
    rules = landlock_paths(jail)
    system = [("ro", "/usr")]  # the links beside it point into it: no rule of their own
    etc = [("ro", f"/etc/{name}") for name in ETC_FILES if Path("/etc", name).exists()]
    devices = [("dev", device) for device in DEVICES]
    own = [
        ("ro", "/proc/self"),
        ("ro", str(jail.read_only[0])),
        ("rw", str(jail.writable[0])),
        ("rw", str(jail.writable[1])),
        ("rw", str(jail.tmp)),
    ]
    assert rules == system + etc + devices + own
    assert ("ro", "/etc/ld.so.cache") in rules and ("ro", "/etc/hosts") in rules
    for kind, path in rules:
        assert kind in ("ro", "rw", "dev")
        assert Path(path).exists(), path
        assert path not in ("/", "/tmp", "/var/tmp", "/etc", "/home", "/root", "/proc", "/dev")
        assert not (tmp_path / "bots").is_relative_to(path), f"{path} holds other bots' folders"
    for kind, path in rules:
        writable = path.startswith(str(tmp_path / "home"))
        assert kind == ("rw" if writable else "dev" if path.startswith("/dev/") else "ro"), path


def test_landlock_leaves_out_what_does_not_exist(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    jail = Jail(read_only=(gone, tmp_path), writable=(gone / "w",), tmp=gone / "t")
    rules = landlock_paths(jail)
    assert not [path for _, path in rules if path.startswith(str(gone))]
    assert ("ro", str(tmp_path)) in rules


def test_landlock_lists_a_path_once(tmp_path: Path) -> None:
    jail = Jail(read_only=(tmp_path, tmp_path), writable=())
    assert [path for _, path in landlock_paths(jail)].count(str(tmp_path)) == 1


def test_a_jail_takes_absolute_paths_only() -> None:
    with pytest.raises(ValueError, match="absolute, not 'bot'"):
        Jail(read_only=(Path("bot"),), writable=())
    with pytest.raises(ValueError, match="absolute, not 'work'"):
        Jail(read_only=(), writable=(Path("work"),))


def test_bwrap_binds_the_system_runtime_and_nothing_else() -> None:
    args = system_binds()
    assert args[:3] == ["--ro-bind", "/usr", "/usr"]
    links = {args[i + 2]: args[i + 1] for i, arg in enumerate(args) if arg == "--symlink"}
    assert links == {top: target for top, target in MERGED_USR_LINKS.items() if Path(top).exists()}
    binds = [args[i + 1] for i, arg in enumerate(args) if arg == "--ro-bind"]
    assert all(args[i + 2] == args[i + 1] for i, arg in enumerate(args) if arg == "--ro-bind")
    assert binds == ["/usr", *(f"/etc/{n}" for n in ETC_FILES if Path("/etc", n).exists())]
    made = [args[i + 3] for i, arg in enumerate(args) if arg == "--perms"]
    assert made[0] == "/etc" and set(made) <= {"/etc", "/etc/ssl"}
    perms = [args[i : i + 4] for i, arg in enumerate(args) if arg == "--perms"]
    assert perms[0] == ["--perms", "0755", "--dir", "/etc"]
    assert all(made[:3] == ["--perms", "0755", "--dir"] for made in perms)


def test_bwrap_command_builds_the_sandbox_from_the_jail(tmp_path: Path) -> None:
    jail = jail_in(tmp_path)
    argv = bwrap_command(
        ["bot"],
        read_only=jail.read_only,
        writable=jail.writable,
        chdir=jail.read_only[0],
        seccomp_fd=9,
    )
    for flag in (
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--die-with-parent",
        "--new-session",
    ):
        assert flag in argv, flag
    pairs = {(argv[i], argv[i + 1]) for i in range(len(argv) - 1)}
    assert ("--ro-bind", str(jail.read_only[0])) in pairs
    assert {("--bind", str(path)) for path in jail.writable} <= pairs
    bound = [argv[i + 1] for i, arg in enumerate(argv) if arg in ("--bind", "--ro-bind")]
    assert str(tmp_path) not in bound and str(tmp_path / "bots") not in bound
    assert argv[argv.index("--remount-ro") + 1] == "/"
    assert argv[argv.index("--seccomp") + 1] == "9"
    assert argv[argv.index("--tmpfs") - 3 : argv.index("--tmpfs") + 2] == [
        "1777", "--size", str(256 * 2**20), "--tmpfs", "/tmp"
    ]  # fmt: skip
    assert argv[-3:] == [str(jail.read_only[0]), "--", "bot"][-3:] or argv[-2:] == ["--", "bot"]
    if os.geteuid() == 0:
        assert argv[1:5] == ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        assert argv[1:6] == ["--unshare-user", "--uid", "65534", "--gid", "65534"]


def test_the_limits_launcher_carries_the_jail_and_the_filter(tmp_path: Path) -> None:
    from arena.hosting.confine import landlock_abi

    jail = jail_in(tmp_path)
    argv = rlimit_command(
        ["bot"], None, processes=8, die_with_parent=False, jail=jail, seccomp=True
    )
    specs = argv[argv.index("-c") + 2 : argv.index("--")]
    if landlock_abi():
        assert f"landlock={landlock_abi()}" in specs
        assert [spec for spec in specs if spec.startswith(("ro=", "rw=", "dev="))] == [
            f"{kind}={path}" for kind, path in landlock_paths(jail)
        ]
    program = filter_program(unix_only=True)
    if program is None:  # no filter table for this machine: no filter passed
        assert not [spec for spec in specs if spec.startswith("seccomp=")]
    else:
        assert f"seccomp={program.hex()}" in specs
    assert specs[-1 if program is None else -2] != "" and "nnp" in specs
    plain = rlimit_command(["bot"], None, processes=8, die_with_parent=False)
    assert not [spec for spec in plain if spec.startswith(("landlock=", "ro=", "seccomp="))]


def test_runtime_of_a_script_in_the_bots_folder_is_the_script_alone(tmp_path: Path) -> None:
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert runtime_paths("./bot.sh", tmp_path, "/usr/bin") == [script]
    (tmp_path / "bin").mkdir()
    found = tmp_path / "bin" / "tool"
    found.write_text("#!/bin/sh\n")
    found.chmod(0o755)
    assert runtime_paths("tool", tmp_path, str(tmp_path / "bin")) == [found]


def test_runtime_of_what_is_missing_or_in_the_system_is_nothing(tmp_path: Path) -> None:
    assert runtime_paths("no-such-program-anywhere", tmp_path, "/usr/bin") == []
    assert runtime_paths("./missing.sh", tmp_path, "/usr/bin") == []
    assert runtime_paths("true", tmp_path, "/usr/bin:/bin") == []
    assert runtime_paths("/usr/bin/env", tmp_path, "") == []


def test_runtime_of_an_interpreter_is_its_prefix(tmp_path: Path) -> None:
    python = tmp_path / "opt" / "py" / "bin" / "python3"
    python.parent.mkdir(parents=True)
    python.write_text("")
    python.chmod(0o755)
    assert runtime_paths(str(python), tmp_path, "") == [tmp_path / "opt" / "py"]


def test_runtime_of_a_venv_is_it_its_base_and_its_sources_only(tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "bin").mkdir(parents=True)
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / "bin" / "python").write_text("")
    (venv / "bin" / "python").chmod(0o755)
    (venv / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\nversion = 3.11\n")
    checkout, pth_dir, extra_site = tmp_path / "co" / "pkg", tmp_path / "pth", tmp_path / "site2"
    for folder in (checkout, pth_dir, extra_site, tmp_path / "co2" / "other"):
        folder.mkdir(parents=True)
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    (site / "a.pth").write_bytes(
        f"{pth_dir}\n# a comment\nrelative/path\n{tmp_path / 'nowhere'}\n".encode() + b"\xff\n"
    )
    (site / "__editable___pkg_finder.py").write_bytes(
        f"MAPPING = {{'pkg': '{checkout}'}}\n# \xff\n".encode("latin-1")
    )
    (site / "b.pth").write_text(
        f"import site; site.addsitedir({str(extra_site)!r})\n"
        f"import os; here = {str(decoy)!r}\n"  # a path quoted, but not a site folder
        f"# site.addsitedir({str(decoy)!r})\n"  # not an import line: pth skips it
    )
    (extra_site / "c.pth").write_text(f"{tmp_path / 'co2' / 'other'}\n")
    found = runtime_paths(str(venv / "bin" / "python"), tmp_path, "")
    assert found == [venv, checkout, tmp_path / "co2" / "other", pth_dir, extra_site, base]
    assert tmp_path / "co" not in found and tmp_path not in found and decoy not in found


def test_the_arena_runtime_is_its_environment_and_checkout_packages() -> None:
    found = runtime_paths(sys.executable, Path("/"), "")
    assert Path(sys.prefix) in found
    arena_package = Path(__file__).resolve().parents[2] / "arena"
    roots = python_import_roots()
    assert arena_package in roots
    assert arena_package.parent not in roots  # the package, not the checkout around it
    assert Path(os.path.realpath(sys.base_prefix)) in roots
    assert Path(os.path.realpath(sys.prefix)) in roots


def test_etc_entries_that_do_not_exist_are_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.hosting import allowlist

    monkeypatch.setattr(allowlist, "ETC_FILES", ("hosts", "no-such-entry/x", "ld.so.cache"))
    args = system_binds()
    binds = [args[i + 1] for i, arg in enumerate(args) if arg == "--ro-bind"]
    assert binds == ["/usr", "/etc/hosts", "/etc/ld.so.cache"]
    assert "/etc/no-such-entry" not in args


def test_a_linked_program_needs_both_ends(tmp_path: Path) -> None:
    real = tmp_path / "real" / "tool"
    real.parent.mkdir()
    real.write_text("#!/bin/sh\n")
    real.chmod(0o755)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "tool").symlink_to(real)
    assert runtime_paths("tool", tmp_path, str(tmp_path / "bin")) == [
        tmp_path / "bin" / "tool",
        real,
    ]


def test_a_venv_whose_base_is_a_link_needs_both_prefixes(tmp_path: Path) -> None:
    real_base = tmp_path / "pythons" / "3.11"
    (real_base / "bin").mkdir(parents=True)
    (tmp_path / "current").symlink_to(real_base)
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    (venv / "bin" / "python").chmod(0o755)
    (venv / "pyvenv.cfg").write_text(f"home = {tmp_path / 'current' / 'bin'}\n")
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (site / "loop.pth").write_text(f"import site; site.addsitedir({str(site)!r})\n")  # a cycle
    found = runtime_paths(str(venv / "bin" / "python"), tmp_path, "")
    assert found == [venv, site, tmp_path / "current", real_base]
