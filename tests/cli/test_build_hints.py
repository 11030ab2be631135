"""A starter kit that needs building (the Go and C++ kits: a manifest whose program
``make`` builds) is listed by ``arena bots`` with the command that builds it while its
program is not there, and naming it in ``arena match`` says so in its one-line error."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from arena.cli.main import main

KITS = Path(__file__).resolve().parents[2] / "sample_bots"


@pytest.fixture(params=["go", "cpp"])
def unbuilt(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The kit's manifest and Makefile in a fresh folder, nothing built: the kit as a
    clone has it."""
    kit = tmp_path / "kits" / request.param
    kit.mkdir(parents=True)
    for name in ("bot.toml", "Makefile"):
        shutil.copy(KITS / request.param / name, kit / name)
    monkeypatch.chdir(tmp_path)
    return kit


def _name(kit: Path) -> str:
    return f"{kit.name}-starter"


def test_arena_bots_gives_the_build_command(
    unbuilt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bots", "--manifests", "kits", "--no-plugin-autoload"]) == 0
    out = capsys.readouterr().out
    assert f"{_name(unbuilt)} is not built yet: make -C kits/{unbuilt.name}" in out, out
    assert main(["bots", "--manifests", "kits", "--json", "--no-plugin-autoload"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["bots"]}
    assert rows[_name(unbuilt)]["build"] == f"make -C kits/{unbuilt.name}"
    # Built: no hint.
    program = unbuilt / "bot"
    program.write_text("#!/bin/sh\nexit 0\n")
    os.chmod(program, 0o755)
    assert main(["bots", "--manifests", "kits", "--no-plugin-autoload"]) == 0
    assert "not built" not in capsys.readouterr().out
    assert main(["bots", "--manifests", "kits", "--json", "--no-plugin-autoload"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["bots"]}
    assert rows[_name(unbuilt)]["build"] is None


def test_playing_an_unbuilt_kit_says_how_to_build_it(
    unbuilt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["match", f"kits/{unbuilt.name}", "random", "--hands", "--no-plugin-autoload"])
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "does not exist" in err and f"build it first, make -C kits/{unbuilt.name}" in err, err
    assert "Traceback" not in err
