"""A bot that fails to start is reported with the last lines of its stderr, and the
report names the log's path only where the log is kept."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from arena.hosting.launcher import LaunchSettings, start_bot
from arena.plugins.serve_bot import command_for

pytestmark = pytest.mark.slow  # starts a bot process

CRASHER = f"""\
name = "crasher"
command = ["{sys.executable}", "-c", "import sys; print('boom on stderr', file=sys.stderr); sys.exit(3)"]
"""


def _failure(tmp_path: Path, run_dir: Path | None) -> str:
    tmp_path.chmod(0o755)  # the bot's folder: readable by the uid a root referee gives it
    manifest = tmp_path / "bot.toml"
    manifest.write_text(CRASHER)
    manifest.chmod(0o644)
    settings = LaunchSettings(sandbox="auto", run_dir=run_dir, startup_seconds=20)
    bot = start_bot(str(manifest), settings, {}, lambda name: command_for(name, [], False))
    try:
        assert bot.start_fault is not None
        return bot.start_fault.reason
    finally:
        bot.close()


def test_without_a_run_folder_the_reason_names_no_path_that_will_be_gone(tmp_path: Path) -> None:
    reason = _failure(tmp_path, None)
    assert "boom on stderr" in reason
    assert "not kept" in reason and "--replays DIR" in reason
    assert not re.search(r"/arena-run-\w+/", reason)


def test_with_a_run_folder_the_reason_names_the_kept_log(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    reason = _failure(tmp_path, runs)
    named = re.search(r"last lines of (\S+\.stderr\.log)", reason)
    assert named is not None, reason
    assert Path(named.group(1)).is_file()  # still there after the bot was closed
    assert "boom on stderr" in Path(named.group(1)).read_text()
