"""Helpers for hosting tests: real processes, found again by a unique marker."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.hosting import BotCommand, BotProcess, Limits, SandboxLevel
from arena.hosting.templates import TEMPLATES_ENV, eligible
from arena.testing.processes import processes_with

BOTS = Path(__file__).parent / "bots"
# The bots' interpreter: the test's own (as root outside bwrap, the arena runs bots on a
# copy their uids can reach: arena.hosting.shared_python).
BOT_PYTHON = sys.executable


def bot_command(
    script: str,
    *args: str,
    name: str = "testbot",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    limits: Limits | None = None,
) -> BotCommand:
    """A command running one of the scripts in bots/ with the test's interpreter."""
    argv = (BOT_PYTHON, str(BOTS / script), *args)
    return BotCommand(
        name,
        argv,
        cwd=cwd,
        env=env or {},
        limits=limits or Limits(),
        read_only_paths=(BOTS, Path(sys.prefix)),
    )


def python_command(
    code: str, *args: str, name: str = "testbot", limits: Limits | None = None
) -> BotCommand:
    return BotCommand(
        name,
        (BOT_PYTHON, "-c", code, *args),
        limits=limits or Limits(),
        read_only_paths=(Path(sys.prefix),),
    )


def marker_pids(marker: str) -> list[int]:
    """Live processes whose command line contains ``marker`` (zombies have none)."""
    return [pid for pid, _ in processes_with(marker)]


def wait_for(
    condition: Callable[[], object], timeout: float = 10.0, what: str = "condition"
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def wait_stdout(bot: BotProcess, text: str, timeout: float = 10.0) -> str:
    """Wait until the bot's stdout contains ``text``; fail early if it exits without."""

    def seen() -> bool:
        if text in bot.stdout_path.read_text():
            return True
        if (
            bot.returncode() is not None
            and bot.wait_output(2)
            and text not in bot.stdout_path.read_text()
        ):
            raise AssertionError(
                f"bot exited ({bot.returncode()}) without printing {text!r}: {bot.stderr_tail()}"
            )
        return False

    wait_for(seen, timeout, f"{text!r} on the bot's stdout")
    return bot.stdout_path.read_text()


def stopped(pid: int) -> bool:
    """Whether process ``pid`` is stopped (by a SIGSTOP an attacker sent)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T"


@pytest.fixture
def marker() -> str:
    return f"arena-test-{uuid.uuid4().hex}"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return tmp_path / "run"


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A folder bots of any uid can read (pytest's own are root-only when run as root):
    outside bwrap, a bot's folder must be readable by the uid it runs as."""
    folder = Path(tempfile.mkdtemp(prefix="arena-test-open-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


#: The id of a test's parameter that runs bwrap without templates (every Python bot cold).
COLD_BWRAP = "bwrap-cold"


@pytest.fixture(autouse=True)
def _cold_bwrap(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and COLD_BWRAP in callspec.id:
        monkeypatch.setenv(TEMPLATES_ENV, "0")


def expect_template(bot: BotProcess) -> None:
    """A Python bot under bwrap is forked from its template, unless the test turned
    templates off: the hostile suites attack what strangers' bots really run as."""
    warm = bot.level is SandboxLevel.BWRAP and os.environ.get(TEMPLATES_ENV, "1") != "0"
    if warm and eligible(bot.command):
        assert bot.from_template, f"{bot.command.name} started cold"
