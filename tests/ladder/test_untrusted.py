"""Ladders of strangers' bots: `untrusted = true` plays only at a level fit for strangers
(bwrap, else Landlock `limits`) and refuses with what is missing, bots that share the
user's identity are said to, and a ladder's bot logs stay within its budget."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from arena.hosting import host as host_module
from arena.hosting.logs import DEFAULT_LOG_CAP
from arena.hosting.sandbox import bwrap_problem
from arena.ladder.config import load_ladder_config
from arena.ladder.runner import _LogBudget
from arena.referee.results import MatchResult, SeatRecord

from .test_config import BASE, arena, one_line_error, write

BWRAP_PROBLEM = bwrap_problem()


def played_levels(ran_stdout: str) -> set[str]:
    return {line.rsplit("sandbox ", 1)[1] for line in ran_stdout.splitlines() if "sandbox " in line}


def test_untrusted_ladder_refuses_to_run_at_none(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + '[run]\nuntrusted = true\nsandbox = "none"\n')
    database = tmp_path / "t.sqlite"
    assert arena("ladder", "create", str(path), "--db", str(database)).returncode == 0
    line = one_line_error(arena("ladder", "run", str(database), "--quiet"))
    assert "untrusted = true" in line and "'none' is not fit for strangers' bots" in line
    assert "filesystem" in line and "network" in line
    assert "0 match" not in line


@pytest.mark.slow
@pytest.mark.parametrize("level", ["limits", "bwrap"])
def test_an_untrusted_ladder_plays_at_the_best_fit_level(
    level: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bwrap where it runs; Landlock limits on a host without a working bwrap."""
    if level == "limits":
        if host_module.probe_host().landlock_abi == 0:
            pytest.skip("[landlock] this kernel offers no Landlock")
        monkeypatch.setenv("ARENA_BWRAP", str(tmp_path / "no-bwrap-here"))
    elif BWRAP_PROBLEM is not None:
        pytest.skip(f"[bwrap] {BWRAP_PROBLEM}")
    path = write(tmp_path, BASE + "[match]\ngames = 1\n[run]\nuntrusted = true\n")
    database = tmp_path / "t.sqlite"
    assert arena("ladder", "create", str(path), "--db", str(database)).returncode == 0
    ran = arena("ladder", "run", str(database), "--quiet", "--matches", "1")
    assert ran.returncode == 0, ran.stderr
    assert "1 match played" in ran.stderr
    assert "warning" not in ran.stderr  # Landlock keeps even an ordinary user's bots apart
    history = arena("ladder", "history", str(database))
    assert played_levels(history.stdout) == {level}, history.stdout


def test_without_landlock_or_bwrap_an_untrusted_ladder_is_refused_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = dataclasses.replace(
        host_module.probe_host(), landlock_abi=0, bwrap_problem="bwrap is not installed"
    )
    monkeypatch.setattr(host_module, "probe_host", lambda: bare)
    path = write(tmp_path, BASE + "[run]\nuntrusted = true\n")
    database = tmp_path / "t.sqlite"
    assert arena("ladder", "create", str(path), "--db", str(database)).returncode == 0
    line = one_line_error(arena("ladder", "run", str(database), "--quiet"))
    assert "no sandbox level here is fit for strangers' bots" in line
    assert "bwrap is not installed" in line
    assert "limits: filesystem: no Landlock here" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="a root referee's bots have uids of their own")
def test_shared_identity_is_said(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + '[match]\ngames = 1\n[run]\nsandbox = "none"\n')
    database = tmp_path / "t.sqlite"
    assert arena("ladder", "create", str(path), "--db", str(database)).returncode == 0
    ran = arena("ladder", "run", str(database), "--matches", "1")
    assert "warning: bots run as your own user" in ran.stderr
    match = arena("match", "random", "random", "--sandbox", "none", "--games", "1")
    assert "warning: bots run as your own user" in match.stdout


def test_log_budget_is_shared_out(tmp_path: Path) -> None:
    replays = tmp_path / "replays"
    (replays / "m1-a1").mkdir(parents=True)
    (replays / "m1-a1" / "old.stderr.log").write_bytes(b"x" * (1024 * 1024 - 4000))
    path = write(tmp_path, BASE + f'[run]\nlog_budget_mb = 1\nreplays = "{replays}"\n')
    budget = _LogBudget(load_ladder_config(path))
    assert budget.cap_per_stream(2) == 1000  # 4000 bytes left, 2 seats, 2 streams each
    log = replays / "m2-a1" / "greedy.stderr.log"
    log.parent.mkdir()
    log.write_bytes(b"y" * 3000)
    seats = [SeatRecord("greedy", stderr_path=str(log)), SeatRecord("random")]
    budget.spent(MatchResult("m2", "gin-rummy/standard", 0, seats))
    assert budget.cap_per_stream(2) == 250
    # A warm bot's log spans its matches: a later match counts only what it added.
    with log.open("ab") as grown:
        grown.write(b"z" * 200)
    budget.spent(MatchResult("m3", "gin-rummy/standard", 0, seats[:1]))
    assert budget.cap_per_stream(2) == 200
    roomy = write(tmp_path, BASE, "roomy.toml")
    assert _LogBudget(load_ladder_config(roomy)).cap_per_stream(2) == DEFAULT_LOG_CAP
