"""Helpers for referee tests: real bot processes, and the process table after them."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.bots import BUILTIN_BOTS
from arena.hosting.launcher import HostedBot, LaunchSettings, start_bot
from arena.plugins.serve_bot import command_for
from arena.referee.match import Seat
from arena.testing.processes import processes_with
from arena.testing.processes import zombie_children as unreaped

ARENA = Path(sys.executable).parent / "arena"
BROKEN_MODULE = "arena.testing.broken_bots"
# Every broken bot started in this test session carries this word, so a leftover of
# ours is found even when other arenas run on the machine at the same time.
SESSION = f"referee-tests-{uuid.uuid4().hex[:12]}"


def host(reference: str, settings: LaunchSettings) -> HostedBot:
    """``start_bot`` with the built-in bots (the one place that knows its signature)."""
    return start_bot(reference, settings, BUILTIN_BOTS, lambda name: command_for(name, [], False))


def seats_of(bots: Sequence[HostedBot]) -> list[Seat]:
    return [
        Seat(bot.connection, bot.name, bot.sandbox, bot.stderr_path, bot.start_fault)
        for bot in bots
    ]


def arena(
    *args: str, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``arena`` command."""
    return subprocess.run(
        [str(ARENA), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        cwd=cwd,
    )


_zombies_before: set[int] = set()


@pytest.fixture(autouse=True)
def _zombie_baseline() -> None:
    """Other tests may leave orphans to this process (a child subreaper): not ours."""
    global _zombies_before
    _zombies_before = set(unreaped())


def zombie_children() -> list[int]:
    """Our own unreaped children that appeared during this test."""
    return sorted(set(unreaped()) - _zombies_before)


def assert_nothing_left(marker: str) -> None:
    """No process of this bot, nor any broken bot of this session, nor a zombie of ours."""
    assert processes_with(marker) == []
    assert processes_with(BROKEN_MODULE, SESSION) == []
    assert zombie_children() == []


def session_members(session: int) -> list[int]:
    """Live processes in this session (a bot leads its own: its pid is the session id)."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[3]) == session and fields[0] != "Z":
                members.append(int(entry))
    return members


def signal_mask(pid: int, field: str) -> int:
    """``SigBlk``/``SigIgn``/... of a process's main thread, as a bit mask (0 if gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1], 16)
    return 0


@pytest.fixture
def marker() -> str:
    """A word unique to the test, for the broken bot's command line (``--marker``)."""
    return f"{SESSION}-{uuid.uuid4().hex[:12]}"
