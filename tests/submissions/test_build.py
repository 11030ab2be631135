"""The sandboxed build, at each level strangers get (bwrap; Landlock limits where bwrap
does not run): it writes only its own folder, reaches no listener, ends at its time
limit, and a Go program builds offline with the toolchain in /usr."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest

from arena.hosting.confine import landlock_abi
from arena.hosting.limits import Limits
from arena.hosting.process import arena_folder
from arena.submissions.build import BuildSettings, run_build
from tests.submissions.conftest import needs_bwrap

pytestmark = pytest.mark.slow  # every test here starts processes or servers


@pytest.fixture(params=["bwrap", "limits"])
def level(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The level the build runs at: bwrap where it runs; Landlock limits on a host
    where it does not (``ARENA_BWRAP`` pointing nowhere, as on a host without it)."""
    if request.param == "bwrap":
        needs_bwrap()
    else:
        if landlock_abi() == 0:
            pytest.skip("[landlock] this kernel offers no Landlock")
        monkeypatch.setenv("ARENA_BWRAP", "/nonexistent/bwrap")
    return str(request.param)


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    tree = tmp_path / "stage" / "bot"
    tree.mkdir(parents=True, mode=0o755)
    scratch = tmp_path / "stage" / "build"
    scratch.mkdir(mode=0o700)
    return tree, scratch


def test_a_build_writes_only_its_own_folder(level: str, tmp_path: Path) -> None:
    tree, scratch = _tree(tmp_path)
    (tmp_path / "secret").write_text("host file")
    (tmp_path / "secret").chmod(0o644)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.2)
        port = listener.getsockname()[1]
        dial = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)"
        result = run_build(
            "echo made > out.txt; echo x > ../escape; echo x > /usr/escape; "
            f'cat {tmp_path}/secret; python3 -c "{dial}" 2>/dev/null || echo no-network; '
            "echo $HOME > home.txt; id -u",
            tree,
            scratch,
        )
        with pytest.raises(TimeoutError):
            listener.accept()
    assert result.ok, result.output  # the last command's status: the attempts just failed
    assert (tree / "out.txt").read_text() == "made\n"
    assert not (tree.parent / "escape").exists() and not Path("/usr/escape").exists()
    assert "host file" not in result.output  # the rest of the host is not there
    assert "no-network" in result.output
    home = Path((tree / "home.txt").read_text().strip())
    if level == "bwrap":
        assert home == scratch / "home"
    else:  # where the build's uid can pass, and gone with the build
        assert home.parent.parent == arena_folder() and not home.parent.exists()
    if os.geteuid() == 0:
        assert int(result.output.split()[-1]) >= 60000  # not root inside
        assert (tree / "out.txt").stat().st_uid == 0  # handed back to the server


def test_a_build_is_killed_at_its_time_limit(level: str, tmp_path: Path) -> None:
    tree, scratch = _tree(tmp_path)
    settings = BuildSettings(wall_seconds=2.0, limits=Limits(cpu_seconds=60))
    escape = "setsid sh -c 'sleep 600 & sleep 600' &"  # leaves the session, then forks
    result = run_build(f"echo started; {escape} sleep 600 & sleep 600", tree, scratch, settings)
    assert result.status is None
    assert "killed: still running after 2 s" in result.output
    assert [pid for pid in os.listdir("/proc") if b"sleep\x00600" in _cmdline(pid)] == []


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes() if pid.isdigit() else b""
    except OSError:  # it ended meanwhile
        return b""


def test_a_go_program_builds_offline(level: str, tmp_path: Path) -> None:
    if shutil.which("go") is None:
        pytest.skip("[go] no Go toolchain on this machine")
    tree, scratch = _tree(tmp_path)
    (tree / "go.mod").write_text("module example.com/bot\n\ngo 1.19\n")
    (tree / "main.go").write_text(
        'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello from go") }\n'
    )
    result = run_build("go build -o bot . && ./bot", tree, scratch)
    assert result.ok, result.output
    assert "hello from go" in result.output
    assert os.access(tree / "bot", os.X_OK)
