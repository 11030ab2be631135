"""Shared by the re-ask tests: recording matches, running ``arena``, reading its summary."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main

BOTS = Path(__file__).resolve().parent / "bots"
SUMMARY = re.compile(
    r"(\d+) decisions? asked, (\d+) same, (\d+) different, (\d+) illegal, (\d+) faults?"
)
HEADING = re.compile(r"^game (\d+), hand (\d+), step (\d+) \(request \d+\): (\w+)", re.M)


def arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``arena ARGV`` in this process (bots still start as processes): status, out, err."""
    capsys.readouterr()
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def record(capsys: pytest.CaptureFixture[str], folder: Path, *argv: str) -> Path:
    """Play ``arena match ARGV`` keeping its replay in ``folder``; the replay's path."""
    status, _, err = arena(capsys, "match", *argv, "--replays", str(folder), "--sandbox", "none")
    assert status == 0, err
    (replay,) = folder.glob("*.jsonl")
    return replay


def summary(out: str) -> dict[str, int]:
    """The counts of ``arena replay --ask``'s summary line."""
    found = SUMMARY.findall(out)
    assert found, out
    asked, same, different, illegal, faults = (int(value) for value in found[-1])
    return {
        "asked": asked,
        "same": same,
        "different": different,
        "illegal": illegal,
        "faults": faults,
    }


def shown(out: str) -> dict[tuple[int, int, int], str]:
    """The decisions ``--ask`` printed: (game, hand, step) -> verdict."""
    return {
        (int(game), int(hand), int(step)): verdict
        for game, hand, step, verdict in HEADING.findall(out)
    }


def edge_manifest(folder: Path, version: str, *extra: str) -> Path:
    """A manifest for ``bots/edgebot.py VERSION EXTRA...`` (its name: ``edge``)."""
    command = ["{python}", str(BOTS / "edgebot.py"), version, *extra]
    return write_manifest(folder, "edge", command)


def write_manifest(folder: Path, name: str, command: list[str]) -> Path:
    """A manifest in ``folder`` (a test's own, which bots' uids cannot enter): the bot
    runs in ``bots/`` of this package, which they can."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bot.toml"
    path.write_text(
        f"name = {json.dumps(name)}\ncommand = {json.dumps(command)}\n"
        f"working_directory = {json.dumps(str(BOTS))}\n",
        encoding="utf-8",
    )
    return path


def seats(replay: Path) -> list[str]:
    header: dict[str, Any] = json.loads(replay.read_text().splitlines()[0])
    return [player["name"] for player in header["players"]]
