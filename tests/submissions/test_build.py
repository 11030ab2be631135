"""The sandboxed build: it writes only its own folder, ends at its time limit, and a
Go program builds offline with the toolchain in /usr."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.hosting.limits import Limits
from arena.submissions.build import BuildSettings, run_build
from tests.submissions.conftest import needs_bwrap


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    tree = tmp_path / "stage" / "bot"
    tree.mkdir(parents=True, mode=0o755)
    scratch = tmp_path / "stage" / "build"
    scratch.mkdir(mode=0o700)
    return tree, scratch


def test_a_build_writes_only_its_own_folder(tmp_path: Path) -> None:
    needs_bwrap()
    tree, scratch = _tree(tmp_path)
    (tmp_path / "secret").write_text("host file")
    result = run_build(
        "echo made > out.txt; echo x > ../escape; echo x > /usr/escape; "
        f"cat {tmp_path}/secret; id -u",
        tree,
        scratch,
    )
    assert result.ok, result.output  # the last command's status: the attempts just failed
    assert (tree / "out.txt").read_text() == "made\n"
    assert not (tree.parent / "escape").exists() and not Path("/usr/escape").exists()
    assert "host file" not in result.output  # the rest of the host is not there
    if os.geteuid() == 0:
        assert int(result.output.split()[-1]) >= 60000  # not root inside
        assert (tree / "out.txt").stat().st_uid == 0  # handed back to the server


def test_a_build_is_killed_at_its_time_limit(tmp_path: Path) -> None:
    needs_bwrap()
    tree, scratch = _tree(tmp_path)
    settings = BuildSettings(wall_seconds=2.0, limits=Limits(cpu_seconds=60))
    result = run_build("echo started; sleep 600 & sleep 600", tree, scratch, settings)
    assert result.status is None
    assert "killed: still running after 2 s" in result.output
    assert [pid for pid in os.listdir("/proc") if b"sleep\x00600" in _cmdline(pid)] == []


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes() if pid.isdigit() else b""
    except OSError:  # it ended meanwhile
        return b""


def test_a_go_program_builds_offline(tmp_path: Path) -> None:
    needs_bwrap()
    if shutil.which("go") is None:
        pytest.skip("no Go toolchain on this machine")
    tree, scratch = _tree(tmp_path)
    (tree / "go.mod").write_text("module example.com/bot\n\ngo 1.19\n")
    (tree / "main.go").write_text(
        'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello from go") }\n'
    )
    result = run_build("go build -o bot . && ./bot", tree, scratch)
    assert result.ok, result.output
    assert "hello from go" in result.output
    assert os.access(tree / "bot", os.X_OK)
