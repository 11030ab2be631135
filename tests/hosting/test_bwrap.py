"""The bwrap level: no network, read-only filesystem, uid 65534, and it still serves."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.hosting import BotProcess, Limits, SandboxLevel, load_manifest, resolve_level
from arena.hosting.identity import DEFAULT_SEAT_UIDS
from arena.hosting.sandbox import NOBODY, bwrap_problem
from arena.testing.processes import zombie_children

from .conftest import BOTS, bot_command, marker_pids, python_command, wait_for, wait_stdout

PROBLEM = bwrap_problem()
pytestmark = pytest.mark.skipif(
    PROBLEM is not None, reason=f"[bwrap] bwrap is not usable here: {PROBLEM}"
)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP port listening on the host's loopback."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.2)
        yield server


@pytest.fixture
def bot_dir(tmp_path: Path) -> Path:
    """A bot folder with a manifest, as a bot author would ship it."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    shutil.copy(BOTS / "report.py", folder / "report.py")  # only its own folder is visible
    (folder / "bot.toml").write_text(
        f"""
name = "probe"
command = ["{sys.executable}", "report.py"]
working_directory = "."
[limits]
processes = 32
"""
    )
    return folder


def run_report(bot_dir: Path, run_dir: Path, *probes: str) -> dict[str, Any]:
    command = load_manifest(bot_dir / "bot.toml")
    command = dataclasses.replace(command, argv=(*command.argv, *probes))
    with BotProcess.start(command, SandboxLevel.BWRAP, run_dir) as bot:
        wait_for(lambda: bot.returncode() is not None, what="the report bot to exit")
        assert bot.returncode() == 0, bot.stderr_tail()
        assert bot.wait_output(5), "the bot's output pipes stayed open after it exited"
        report: dict[str, Any] = json.loads(bot.stdout_path.read_text())
        report["workdir"] = str(bot.workdir)
    return report


def test_auto_picks_bwrap() -> None:
    assert resolve_level("auto") is SandboxLevel.BWRAP
    assert resolve_level("bwrap") is SandboxLevel.BWRAP


@pytest.mark.slow
def test_healthy_bot_serves_through_the_unix_socket(run_dir: Path) -> None:
    with BotProcess.start(bot_command("healthy.py"), SandboxLevel.BWRAP, run_dir) as bot:
        bot.wait_ready(timeout=10)
        assert bot.level is SandboxLevel.BWRAP


@pytest.mark.slow
def test_identity_and_namespaces(bot_dir: Path, run_dir: Path) -> None:
    report = run_report(bot_dir, run_dir)
    if os.geteuid() == 0:  # a uid of its own, from the arena's range, outside as inside
        low, high = DEFAULT_SEAT_UIDS
        assert low <= report["uid"] <= high
        assert report["gid"] == report["uid"] and report["groups"] == []
    else:  # nobody in a user namespace of its own
        assert (report["uid"], report["gid"]) == (NOBODY, NOBODY)
    assert report["pid"] < 10, "own pid namespace"
    assert report["interfaces"] == ["lo"], "own network namespace"
    assert report["cwd"] == str(bot_dir.resolve())
    assert report["env"]["HOME"] == report["workdir"]


@pytest.mark.slow
def test_no_network(bot_dir: Path, run_dir: Path, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    probe = f"connect={port}"
    report = run_report(bot_dir, run_dir, probe)
    assert report[probe].startswith(("ConnectionRefusedError", "OSError")), report[probe]
    with pytest.raises(TimeoutError):
        listener.accept()


@pytest.mark.slow
def test_filesystem_is_read_only_outside_its_own_dirs(
    bot_dir: Path, run_dir: Path, tmp_path: Path
) -> None:
    manifest_dir = f"write={bot_dir / 'dropped.txt'}"
    etc = "write=/etc/arena-test"
    # The bot's own folder lives under pytest's /tmp folder: only that folder is bound,
    # read-only; the rest of /tmp is the sandbox's own, empty and private.
    host_tmp = f"write={tmp_path / 'outside.txt'}"
    private_name = f"arena-private-{os.getpid()}.txt"
    private_tmp = f"write=/tmp/{private_name}"
    run_dir_listing = f"listdir={run_dir.resolve()}"
    report = run_report(bot_dir, run_dir, manifest_dir, etc, host_tmp, private_tmp, run_dir_listing)
    assert "Read-only file system" in report[manifest_dir]
    assert not (bot_dir / "dropped.txt").exists()
    assert report[etc].startswith(("OSError", "PermissionError")), report[etc]
    assert not Path("/etc/arena-test").exists()
    # pytest's folder around the bot's own is an empty stand-in in the private /tmp,
    # made to reach it (root's, or the bot's own under an ordinary user's bwrap).
    assert report[host_tmp].startswith("PermissionError") or report[host_tmp] == "written"
    assert not (tmp_path / "outside.txt").exists()
    assert report[private_tmp] == "written"  # in the sandbox's private /tmp...
    assert not Path("/tmp", private_name).exists()  # ...never on the host
    # The run directory (where the logs are) is not in the sandbox either.
    assert report[run_dir_listing].startswith("FileNotFoundError"), report[run_dir_listing]


@pytest.mark.slow
def test_work_dir_is_writable(run_dir: Path) -> None:
    code = "import os; open(os.path.join(os.environ['HOME'], 'notes'), 'w').write('x')"
    with BotProcess.start(python_command(code), SandboxLevel.BWRAP, run_dir) as bot:
        wait_for(lambda: bot.returncode() is not None)
        assert bot.returncode() == 0, bot.stderr_tail()
        assert (bot.workdir / "notes").read_text() == "x"


@pytest.mark.slow
def test_rlimits_inside_the_sandbox(bot_dir: Path, run_dir: Path) -> None:
    report = run_report(bot_dir, run_dir)
    limits = {
        line[:26].strip(): line[26:].split()[:2] for line in report["limits"].splitlines()[1:]
    }
    assert limits["Max processes"] == ["32", "32"]  # per sandbox: its own user namespace
    assert limits["Max address space"] == [str(Limits().memory_mb * 2**20)] * 2


@pytest.mark.skipif(os.getuid() == 0, reason="Linux does not enforce RLIMIT_NPROC for root")
def test_process_limit_is_enforced_per_sandbox(bot_dir: Path, run_dir: Path) -> None:
    report = run_report(bot_dir, run_dir, "spawn=40")  # the manifest allows 32
    assert report["spawn=40"].startswith("RuntimeError: can't start new thread")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fork3", "setsid-child", "daemon", "daemon-noenv"])
def test_kill_leaves_nothing(mode: str, marker: str, run_dir: Path) -> None:
    zombies_before = set(zombie_children())  # other tests' leftovers are not ours
    bot = BotProcess.start(bot_command("tree.py", mode, marker), SandboxLevel.BWRAP, run_dir)
    try:
        wait_stdout(bot, "ready")
        assert marker_pids(marker)
    finally:
        bot.kill(grace=0.2)
    assert marker_pids(marker) == []
    assert set(zombie_children()) <= zombies_before


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="an ordinary user's bwrap writes no passwd file")
def test_the_sandbox_names_only_root_and_the_bot(run_dir: Path) -> None:
    command = bot_command("hostile.py", "read=/etc/passwd", "read=/etc/group", name="reader")
    with BotProcess.start(command, SandboxLevel.BWRAP, run_dir) as bot:
        report = json.loads(wait_stdout(bot, "}").strip().splitlines()[-1])
    passwd = f"root:x:0:0:root:/nonexistent:/usr/sbin/nologin\nbot:x:{bot.uid}:{bot.uid}:"
    assert report["read=/etc/passwd"] == "read " + repr(passwd.encode()[:64]), report
    assert report["read=/etc/group"] == "read " + repr(f"root:x:0:\nbot:x:{bot.uid}:\n".encode())
