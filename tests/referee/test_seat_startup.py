"""The seats' bots start together, and a seat that fails to start leaves nothing behind."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots import BUILTIN_BOTS
from arena.hosting.faults import SeatStatus
from arena.hosting.launcher import HostedBot, LaunchSettings, UnknownBotError, start_bots
from arena.plugins.serve_bot import command_for
from arena.testing import broken_bots
from arena.testing.broken_bots import write_manifest

from .conftest import assert_nothing_left

# Each bot says it has started, then serves only once its partner has said so too: bots
# started one after the other (each ready before the next starts) never both serve.
RENDEZVOUS = """
import sys, time
from pathlib import Path
_marker, folder, me, partner = sys.argv[1:5]
(Path(folder) / me).touch()
deadline = time.monotonic() + 30
while not (Path(folder) / partner).exists():
    if time.monotonic() > deadline:
        sys.exit(f"{me}: {partner} never started beside me")
    time.sleep(0.01)
from arena.plugins.serve_bot import main
main(["random", "--no-plugin-autoload"])
"""


@pytest.fixture
def meeting_place() -> Iterator[Path]:
    """A folder every seat uid may write (the bots run as their own users under root)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-rendezvous-"))
    os.chmod(folder, 0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _rendezvous_manifest(directory: Path, marker: str, folder: Path, me: str, partner: str) -> Path:
    command = [sys.executable, "-c", RENDEZVOUS, marker, str(folder), me, partner]
    path = directory / f"{me}.toml"
    words = ", ".join(json.dumps(word) for word in command)
    # The broken bots' folder: one every seat uid can read, that holds nothing it writes.
    folder_text = json.dumps(str(Path(broken_bots.__file__).resolve().parent))
    path.write_text(f'name = "{me}"\ncommand = [{words}]\nworking_directory = {folder_text}\n')
    return path


def _host(references: list[str], settings: LaunchSettings) -> list[HostedBot]:
    return start_bots(references, settings, BUILTIN_BOTS, lambda name: command_for(name, [], False))


@pytest.mark.slow
def test_seats_start_together(tmp_path: Path, marker: str, meeting_place: Path) -> None:
    references = [
        str(_rendezvous_manifest(tmp_path, marker, meeting_place, "north", "south")),
        str(_rendezvous_manifest(tmp_path, marker, meeting_place, "south", "north")),
    ]
    settings = LaunchSettings(sandbox="none", run_dir=tmp_path / "run", startup_seconds=60)
    bots = _host(references, settings)
    try:
        assert [bot.start_fault for bot in bots] == [None, None]
        assert [bot.name for bot in bots] == ["random", "random"]
    finally:
        for bot in bots:
            bot.close()
    assert_nothing_left(marker)


@pytest.mark.slow
@pytest.mark.parametrize("broken", ["crash-start", "never-ready", "refuse-handshake"])
def test_a_seat_that_fails_to_start_leaves_nothing(
    tmp_path: Path, marker: str, broken: str
) -> None:
    manifest = write_manifest(tmp_path, broken, "--marker", marker)
    settings = LaunchSettings(sandbox="limits", run_dir=tmp_path / "run", startup_seconds=8)
    bots = _host(["random", str(manifest)], settings)
    try:
        good, bad = bots
        assert good.start_fault is None and good.connection is not None
        assert bad.start_fault is not None and bad.connection is None
        assert bad.start_fault.status in (SeatStatus.START_FAILED, SeatStatus.PROTOCOL_ERROR)
        assert bad.process is None or bad.process.returncode() is not None  # already gone
    finally:
        for bot in bots:
            bot.close()
    assert_nothing_left(marker)


def test_a_bad_reference_raises_before_anything_starts(tmp_path: Path, marker: str) -> None:
    manifest = write_manifest(tmp_path, "hang", "--marker", marker)
    settings = LaunchSettings(sandbox="limits", run_dir=tmp_path / "run")
    with pytest.raises(UnknownBotError, match="unknown bot 'no-such-bot'"):
        _host([str(manifest), "no-such-bot"], settings)
    assert_nothing_left(marker)
    assert not (tmp_path / "run").exists() or not any((tmp_path / "run").iterdir())
