"""`arena doctor` tells the truth about this host, and exits 1 where strangers' bots
cannot run."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.hosting import host as host_module
from arena.hosting.confine import landlock_abi
from arena.hosting.sandbox import bwrap_problem

ARENA = Path(sys.executable).parent / "arena"


def doctor(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ARENA), "doctor", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.slow
def test_the_json_matches_what_the_host_offers() -> None:
    ran = doctor("--json")
    assert ran.returncode == (0 if landlock_abi() or bwrap_problem() is None else 1), ran.stderr
    report = json.loads(ran.stdout)
    assert report["root"] == (os.geteuid() == 0)
    assert report["landlock_abi"] == landlock_abi()
    assert report["bwrap"]["problem"] == bwrap_problem()
    levels = report["levels"]
    assert levels["none"]["fit_for_strangers"] is False
    assert levels["limits"]["fit_for_strangers"] is (landlock_abi() > 0)
    assert levels["bwrap"]["fit_for_strangers"] is (bwrap_problem() is None)
    assert set(levels["limits"]["guarantees"]) == {
        "filesystem", "network", "other seats", "processes", "memory", "uid"
    }  # fmt: skip
    expected = "bwrap" if bwrap_problem() is None else "limits" if landlock_abi() else None
    assert report["strangers_level"] == expected


@pytest.mark.slow
def test_a_broken_bwrap_leaves_strangers_at_landlock_limits(tmp_path: Path) -> None:
    if landlock_abi() == 0:
        pytest.skip("[landlock] this kernel offers no Landlock")
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    ran = doctor(env={"ARENA_BWRAP": str(fake)})
    assert ran.returncode == 0, ran.stderr
    assert "bwrap        no: " in ran.stdout and "setting up uid map" in ran.stdout
    assert "run at: limits" in ran.stdout
    assert "bwrap (not fit for strangers)" in ran.stdout


def test_without_landlock_or_bwrap_it_says_what_is_missing_and_exits_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bare = dataclasses.replace(
        host_module.probe_host(), landlock_abi=0, bwrap_problem="bwrap is not installed"
    )
    monkeypatch.setattr("arena.cli.doctor.probe_host", lambda: bare)
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["doctor"])
    text = out.getvalue()
    assert status == 1
    assert "Strangers' bots cannot run here: no sandbox level here is fit" in text
    assert "limits: filesystem: no Landlock here" in text
    assert "Landlock: not offered by this kernel" in text  # the advice


@pytest.mark.slow
def test_the_match_table_says_what_its_level_holds_here() -> None:
    if landlock_abi() == 0:
        pytest.skip("[landlock] this kernel offers no Landlock")
    ran = subprocess.run(
        [str(ARENA), "match", "random", "random", "--games", "1", "--hands", "--sandbox", "limits"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert (
        "sandbox limits here: fit for strangers; holds filesystem, network, other seats, "
        "processes, memory" in ran.stdout
    )
    assert "warning" not in ran.stdout
