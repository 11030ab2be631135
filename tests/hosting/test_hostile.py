"""Hostile bots against the sandbox: one test per attack, at every level it applies to.

The attacker (bots/hostile.py) is given what it could at worst find out: the paths of
the referee's files and of its opponent's socket and logs, and host pids.  Each test
asserts the verdict and what must not happen.  Levels below bwrap only keep bots apart
when the referee is root (each bot then has a uid of its own); an ordinary user's bots
share its identity there, which docs/SANDBOX.md says, and those cases skip saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.hosting import BotCommand, BotProcess, Limits, SandboxLevel
from arena.hosting.host import probe_host
from arena.hosting.sandbox import bwrap_problem
from arena.testing.processes import processes_with

from .conftest import (
    BOT_PYTHON,
    BOTS,
    COLD_BWRAP,
    bot_command,
    expect_template,
    stopped,
    wait_for,
    wait_stdout,
)

ROOT = os.geteuid() == 0
BWRAP_PROBLEM = bwrap_problem()
ALL_LEVELS = [
    pytest.param(SandboxLevel.NONE, id="none"),
    pytest.param(SandboxLevel.LIMITS, id="limits"),
    *(
        pytest.param(
            SandboxLevel.BWRAP,
            id=kind,  # Python bots forked from their template, and started cold
            marks=pytest.mark.skipif(
                BWRAP_PROBLEM is not None, reason=f"[bwrap] no bwrap: {BWRAP_PROBLEM}"
            ),
        )
        for kind in ("bwrap", COLD_BWRAP)
    ),
]


def isolated(level: SandboxLevel) -> None:
    """Skip where this level promises nothing against the attack: an ordinary user's
    bots at ``none``, and at ``limits`` where there is no Landlock (docs/SANDBOX.md).  Where the
    kernel has Landlock, ``limits`` holds for an ordinary user too."""
    if ROOT or level is SandboxLevel.BWRAP:
        return
    if level is SandboxLevel.LIMITS:
        if probe_host().fit(level):
            return
        pytest.skip(
            "[landlock] at 'limits' without Landlock an ordinary user's bots share its identity"
        )
    pytest.skip(f"at {level.value!r} an ordinary user's bots share its identity (docs/SANDBOX.md)")


def attacker(*attacks: str, limits: Limits | None = None) -> BotCommand:
    command = bot_command("hostile.py", *attacks, name="attacker", limits=limits)
    return command


def report_of(bot: BotProcess) -> dict[str, Any]:
    expect_template(bot)
    text = wait_stdout(bot, "}")
    result: dict[str, Any] = json.loads(text.strip().splitlines()[-1])
    return result


@pytest.fixture
def referee_files() -> Iterator[dict[str, Path]]:
    """Files a referee keeps: an owner-only ladder database and a readable config in a
    folder anyone may pass through, as `arena ladder create` would leave them."""
    folder = Path(tempfile.mkdtemp(prefix="arena-test-ladder-"))
    folder.chmod(0o755)
    database = folder / "ladder.sqlite"
    database.write_text("units.seed = 4242")
    database.chmod(0o600)
    config = folder / "ladder.toml"
    config.write_text("seed = 4242")
    config.chmod(0o644)
    yield {"folder": folder, "database": database, "config": config}
    shutil.rmtree(folder, ignore_errors=True)


def uid_processes(uid: int) -> list[int]:
    """Processes whose real uid is ``uid``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            status = (entry / "status").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Uid:") and int(line.split()[1]) == uid:
                found.append(int(entry.name))
    return found


def refused(outcome: object) -> bool:
    return isinstance(outcome, str) and outcome.startswith(
        ("PermissionError", "FileNotFoundError", "OSError", "ProcessLookupError")
    )


@pytest.mark.slow
@pytest.mark.parametrize("level", ALL_LEVELS)
def test_reads_nothing_of_the_referee_or_the_host(
    level: SandboxLevel, run_dir: Path, referee_files: dict[str, Path]
) -> None:
    isolated(level)
    me = os.getpid()
    attacks = [
        f"read={referee_files['database']}",
        "read=/etc/shadow",
        f"read=/proc/{me}/environ",
        f"read=/proc/{me}/mem",
        "listdir=/root",
    ]
    with BotProcess.start(attacker(*attacks), level, run_dir) as bot:
        report = report_of(bot)
    home = report.pop("listdir=/root")
    for attack in attacks[:-1]:
        assert refused(report[attack]), (attack, report[attack])
    # Root's home is closed, or under bwrap a stand-in holding only the way to the
    # Python runtime the bot needs (this machine's Python lives there).
    runtime = Path(sys.base_prefix).resolve()
    way = {runtime.parts[2]} if runtime.is_relative_to("/root") else set()
    assert refused(home) or set(home.split(",")) <= way, home
    if level is SandboxLevel.BWRAP:
        # Not even world-readable files outside the allow-list are there.
        with BotProcess.start(attacker(f"read={referee_files['config']}"), level, run_dir) as bot:
            outcome = report_of(bot)[f"read={referee_files['config']}"]
        assert outcome.startswith("FileNotFoundError"), outcome


@pytest.mark.slow
@pytest.mark.parametrize("level", ALL_LEVELS)
def test_writes_nothing_outside_its_own_folders(
    level: SandboxLevel, run_dir: Path, referee_files: dict[str, Path]
) -> None:
    isolated(level)
    targets = [referee_files["folder"] / "planted", Path("/etc/arena-planted"), run_dir / "x"]
    run_dir.mkdir(parents=True, exist_ok=True)
    attacks = [f"write={target}" for target in targets]
    with BotProcess.start(attacker(*attacks), level, run_dir) as bot:
        report = report_of(bot)
    for attack, target in zip(attacks, targets, strict=True):
        assert refused(report[attack]), (attack, report[attack])
        assert not target.exists()


# At limits and bwrap: test_jail.py's test_cannot_touch_the_other_seat_or_the_referee.
@pytest.mark.slow
@pytest.mark.parametrize("level", [p for p in ALL_LEVELS if p.values[0] is SandboxLevel.NONE])
def test_cannot_touch_its_opponent(level: SandboxLevel, run_dir: Path) -> None:
    isolated(level)
    with BotProcess.start(bot_command("healthy.py", name="victim"), level, run_dir) as victim:
        victim.wait_ready(timeout=10)
        socket_path = victim.address.removeprefix("unix:")
        attacks = [
            f"connect={socket_path}",
            f"signal={victim.pid}",
            f"ptrace={victim.pid}",
            f"read={victim.stderr_path}",
            f"listdir={victim.workdir}",
        ]
        with BotProcess.start(attacker(*attacks), level, run_dir) as bot:
            report = report_of(bot)
        for attack in attacks:
            assert refused(report[attack]), (attack, report[attack])
        assert not stopped(victim.pid), "the victim was stopped"
        victim.wait_ready(timeout=5)  # still serving


@pytest.mark.slow
@pytest.mark.parametrize("level", [p for p in ALL_LEVELS if p.values[0] is not SandboxLevel.NONE])
def test_fork_bomb_stops_at_the_process_limit(level: SandboxLevel, run_dir: Path) -> None:
    isolated(level)
    limits = Limits(processes=16)
    with BotProcess.start(attacker("fork=200", limits=limits), level, run_dir) as bot:
        got = report_of(bot)["fork=200"]
        assert got < 16, got
        if ROOT:  # every process of the bot's own uid, counted from outside
            assert len(uid_processes(bot.uid)) <= 16
    if ROOT:
        assert uid_processes(bot.uid) == []


@pytest.mark.slow
@pytest.mark.parametrize("level", [p for p in ALL_LEVELS if p.values[0] is SandboxLevel.BWRAP])
def test_a_fork_bomb_leaves_the_other_seat_its_processes(
    level: SandboxLevel, run_dir: Path
) -> None:
    """Two seats of one bot (forked from one template, or cold): the process limit is
    each seat's own, so a bomb that holds all of its own leaves the other its share."""
    limits = Limits(processes=16)
    with BotProcess.start(attacker("fork=200", limits=limits), level, run_dir) as bomb:
        assert report_of(bomb)["fork=200"] >= 10  # holding them
        with BotProcess.start(attacker("fork=8", limits=limits), level, run_dir) as other:
            assert report_of(other)["fork=8"] == 8


@pytest.mark.slow
@pytest.mark.parametrize("level", ALL_LEVELS)
def test_escape_with_an_empty_environment_does_not_outlive_the_bot(
    level: SandboxLevel, run_dir: Path, marker: str
) -> None:
    bot = BotProcess.start(attacker(f"escape={marker}"), level, run_dir)
    try:
        assert report_of(bot)[f"escape={marker}"] == "escaped"
        wait_for(lambda: processes_with("escaped-sleep", marker), what="the escaped process to run")
    finally:
        bot.kill(grace=0.1)
    wait_for(
        lambda: not processes_with("escaped-sleep", marker), timeout=5, what="the escapee to die"
    )


@pytest.mark.slow
@pytest.mark.parametrize("level", ALL_LEVELS)
def test_output_floods_are_capped(level: SandboxLevel, run_dir: Path) -> None:
    cap = 256 * 1024
    flood = 8 * 1024 * 1024
    bot = BotProcess.start(
        bot_command("hostile.py", f"flood={flood}", name="flooder"), level, run_dir, log_cap=cap
    )
    note = b"bytes dropped: the log is capped at 262144 bytes"
    try:
        # Wait for both streams to fill (stderr's filling first said nothing of stdout's,
        # which may lag behind under load); the bot floods on, so what its pipes still
        # hold is dropped, and the note says so when the pumps end.
        wait_for(
            lambda: all(path.stat().st_size >= cap for path in (bot.stdout_path, bot.stderr_path)),
            what="both logs to fill",
        )
    finally:
        bot.kill(grace=0.1)
    for path in (bot.stdout_path, bot.stderr_path):
        text = path.read_bytes()
        assert len(text) < cap + 200
        assert note in text
        assert path.stat().st_mode & 0o077 == 0, "logs are owner-only"


@pytest.mark.skipif(not ROOT, reason="only a root referee gives bots uids of their own")
def test_runtime_out_of_the_bots_reach_is_a_one_line_start_error(run_dir: Path) -> None:
    private = Path(tempfile.mkdtemp(prefix="arena-test-private-"))  # mode 700, root's
    try:
        shutil.copy(BOTS / "hostile.py", private / "hostile.py")
        command = BotCommand("locked", (BOT_PYTHON, "hostile.py"), cwd=private)
        with pytest.raises(
            Exception,
            match=r"runs as uid \d+ at the 'limits' level, and .* is not (searchable|readable)",
        ):
            BotProcess.start(command, SandboxLevel.LIMITS, run_dir)
    finally:
        shutil.rmtree(private)


@pytest.mark.skipif(not ROOT, reason="only a root referee gives bots uids of their own")
@pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=f"[bwrap] no bwrap: {BWRAP_PROBLEM}")
def test_a_folder_closed_to_the_bots_uid_is_a_one_line_start_error(run_dir: Path) -> None:
    private = Path(tempfile.mkdtemp(prefix="arena-test-private-"))  # mode 700, root's
    try:
        shutil.copy(BOTS / "hostile.py", private / "hostile.py")
        command = BotCommand("locked", (BOT_PYTHON, "hostile.py"), cwd=private)
        with pytest.raises(Exception, match=r"runs as uid \d+, and its folder .* is not readable"):
            BotProcess.start(command, SandboxLevel.BWRAP, run_dir)
    finally:
        shutil.rmtree(private)
