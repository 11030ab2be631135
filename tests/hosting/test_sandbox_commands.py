"""The sandbox's command lines and probes in their corners: which bwrap runs, why one
that does not is no bwrap, an ordinary user's bwrap flags, the folders bwrap makes,
limits capped at what the referee has, a Landlock ABI of 1, the launcher's source."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from arena.hosting import confine
from arena.hosting import sandbox as sandbox_module
from arena.hosting.allowlist import Jail
from arena.hosting.limits import Limits
from arena.hosting.sandbox import (
    BWRAP_ENV,
    SandboxLevel,
    _confine_source,
    _folders_above,
    bwrap_binary,
    bwrap_command,
    bwrap_problem,
    resolve_level,
    rlimit_command,
)


def test_arena_bwrap_names_the_binary(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert BWRAP_ENV == "ARENA_BWRAP"
    monkeypatch.setenv("ARENA_BWRAP", str(tmp_path / "bwrap"))
    assert bwrap_binary() == str(tmp_path / "bwrap")
    assert bwrap_problem() == f"ARENA_BWRAP={tmp_path / 'bwrap'} is not an executable file"
    assert bwrap_command(["x"], read_only=(), writable=(), chdir=Path("/"))[0] == str(
        tmp_path / "bwrap"
    )
    assert resolve_level("auto") is SandboxLevel.LIMITS
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("ARENA_BWRAP")
    assert bwrap_binary() is None
    assert bwrap_problem() == "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"


@pytest.mark.slow
def test_a_broken_bwrap_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("ARENA_BWRAP", str(fake))
    problem = bwrap_problem()
    assert problem is not None
    assert problem.startswith(f"'{fake} ")
    assert problem.endswith("exited with status 1: setting up uid map: Permission denied")
    silent = tmp_path / "silent-bwrap"
    silent.write_text("#!/bin/sh\nexit 3\n")
    silent.chmod(0o755)
    monkeypatch.setenv("ARENA_BWRAP", str(silent))
    assert str(bwrap_problem()).endswith("exited with status 3: no message")
    with pytest.raises(Exception, match=r"sandbox level 'bwrap' is not usable here: .*status 3"):
        resolve_level("bwrap")


def test_bwrap_maps_a_users_bot_to_nobody(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_module.os, "geteuid", lambda: 1000)
    argv = bwrap_command(["bot"], read_only=(), writable=(), chdir=Path("/"))
    assert argv[1:6] == ["--unshare-user", "--uid", "65534", "--gid", "65534"]
    assert "--cap-add" not in argv
    monkeypatch.setattr(sandbox_module.os, "geteuid", lambda: 0)
    argv = bwrap_command(["bot"], read_only=(), writable=(), chdir=Path("/"))
    assert argv[1:5] == ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    assert "--unshare-user" not in argv


def test_the_folders_bwrap_makes_above_the_bound_paths() -> None:
    assert _folders_above([Path("/srv/bots/mine")]) == [Path("/srv"), Path("/srv/bots")]
    assert _folders_above([Path("/usr/lib/x"), Path("/tmp/a/b")]) == [Path("/tmp/a")]
    assert _folders_above([Path("/srv/a"), Path("/srv/a/b")]) == [Path("/srv")]
    assert _folders_above([]) == []
    assert _folders_above([Path("/proc/1/x"), Path("/dev/shm/y")]) == []  # bwrap's own


def test_limits_never_ask_for_more_than_the_referee_has(monkeypatch: pytest.MonkeyPatch) -> None:
    real = resource.getrlimit

    def capped(which: int) -> tuple[int, int]:
        return (50, 50) if which == resource.RLIMIT_NOFILE else real(which)

    monkeypatch.setattr(sandbox_module.resource, "getrlimit", capped)
    argv = rlimit_command(["bot"], Limits(open_files=256), processes=8, die_with_parent=False)
    assert "RLIMIT_NOFILE=50:50" in argv
    assert "RLIMIT_NPROC=8:8" in argv


def test_a_landlock_abi_of_1_still_builds_the_jail(monkeypatch: pytest.MonkeyPatch) -> None:
    jail = Jail(read_only=(Path("/usr"),), writable=())
    monkeypatch.setattr(sandbox_module, "landlock_abi", lambda: 1)
    assert "landlock=1" in rlimit_command(
        ["b"], None, processes=1, die_with_parent=False, jail=jail
    )
    monkeypatch.setattr(sandbox_module, "landlock_abi", lambda: 0)
    argv = rlimit_command(["b"], None, processes=1, die_with_parent=False, jail=jail)
    assert not [arg for arg in argv if arg.startswith(("landlock=", "ro="))]


def test_the_launcher_runs_the_confine_module_as_its_loader_has_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Loader:
        def get_source(self, name: str) -> str:
            return f"# the source of {name}"

    monkeypatch.setattr(confine, "__loader__", Loader())
    assert _confine_source.__wrapped__() == "# the source of arena.hosting.confine"
    monkeypatch.setattr(confine, "__loader__", None)
    assert _confine_source.__wrapped__() == Path(confine.__file__).read_text()
