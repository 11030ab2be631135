"""The host's sandbox is probed when a check runs, not once when the server starts: a
submission server started where its bwrap (``ARENA_BWRAP``) is missing checks at the
level it has then, and once bwrap appears the next check runs under it, without a
restart. The bot tells the levels apart: under bwrap it is in a pid namespace of its
own (a pid below 10), and it refuses to start anywhere else."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.hosting.host import probe_host, strangers_level
from arena.hosting.sandbox import SandboxLevel, bwrap_problem
from tests.submissions.conftest import add_author, needs_bwrap, serve, tar_gz

BOT = """
import os
import sys

from arena.sdk import Bot, serve


class OnlyUnderBwrap(Bot):
    name = "only-bwrap"

    def decide(self, decision):
        return 0


if __name__ == "__main__":
    if os.getpid() >= 10:
        sys.exit(f"pid {os.getpid()}: not in bwrap's pid namespace")
    serve(OnlyUnderBwrap())
"""

pytestmark = pytest.mark.slow  # bwrap probed, a server and sandboxed checks

FILES = {"bot.toml": 'name = "only-bwrap"\ncommand = ["{python}", "bot.py"]\n', "bot.py": BOT}


def _real_bwrap() -> str:
    needs_bwrap()
    found = shutil.which("bwrap")
    if found is None:
        pytest.skip("[bwrap] bwrap is not on PATH (ARENA_BWRAP names another)")
    return found


def test_bwrap_problem_follows_the_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In one process: missing, then there (probed and remembered), then gone again."""
    real = _real_bwrap()
    link = tmp_path / "bwrap"
    monkeypatch.setenv("ARENA_BWRAP", str(link))
    problem = bwrap_problem()
    assert problem is not None and "not an executable file" in problem
    assert probe_host().bwrap_problem == problem
    link.symlink_to(real)
    assert bwrap_problem() is None
    assert strangers_level() is SandboxLevel.BWRAP
    link.unlink()
    assert bwrap_problem() is not None
    if probe_host().landlock_abi:
        assert strangers_level() is SandboxLevel.LIMITS


def test_a_running_server_sees_bwrap_once_it_is_there(
    ladder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    real = _real_bwrap()
    if probe_host().landlock_abi == 0:
        pytest.skip("[landlock] without Landlock no check runs before bwrap is there")
    link = tmp_path / "bwrap"
    monkeypatch.setenv("ARENA_BWRAP", str(link))  # the server inherits it
    token = add_author(ladder, "alice", capsys)
    with serve(ladder) as server:
        status, reply = server.upload(token, tar_gz(FILES))
        assert status == 202, reply
        first = server.wait(token, reply["id"])
        assert first["status"] == "rejected", first  # checked at limits: the bot refused
        link.symlink_to(real)  # bwrap installed while the server runs
        status, reply = server.upload(token, tar_gz(FILES))
        assert status == 202, reply
        second = server.wait(token, reply["id"])
    assert second["status"] == "accepted", second
