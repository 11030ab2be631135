"""Games and hands are numbered from 1 wherever a person reads them (``arena match
--verbose``, ``arena replay``), from 0 in the replay file; seats from 0 everywhere, the
number each bot is told (docs/REPLAY.md, "Numbering")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.replays.files import read_replay


def _match(capsys: pytest.CaptureFixture[str], replays: Path) -> tuple[str, Path]:
    """Two one-hand games of greedy against random in the referee's process: what
    --verbose printed, and the replay."""
    status = main(
        ["match", "greedy", "random", "--hands", "--games", "2", "--seed", "4", "--verbose",
         "--in-process", "--replays", str(replays), "--no-plugin-autoload"]
    )  # fmt: skip
    assert status == 0
    _, err = capsys.readouterr()
    (replay,) = replays.glob("*.jsonl")
    return err, replay


def test_verbose_counts_games_and_hands_from_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    err, replay = _match(capsys, tmp_path)
    decisions = re.findall(r"^g(\d+) h(\d+) +(greedy|random): ", err, re.M)
    assert {(game, hand) for game, hand, _ in decisions} == {("1", "1"), ("2", "1")}, err
    ends = re.findall(r"^g(\d+) h(\d+) ended: \w+, won by (greedy|random|nobody), ", err, re.M)
    assert [(game, hand) for game, hand, _ in ends] == [("1", "1"), ("2", "1")], err
    assert "g0 " not in err and " h0 " not in err
    # The file keeps its 0-based fields.
    deals = [line for line in read_replay(replay).lines if line["type"] == "deal"]
    assert [(deal["game"], deal["hand"]) for deal in deals] == [(0, 0), (1, 0)]


def test_replay_seats_from_0_games_and_hands_from_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, replay = _match(capsys, tmp_path)
    assert main(["replay", str(replay), "--seat", "0", "--game", "2", "--hand", "1"]) == 0
    out = capsys.readouterr().out
    assert "seat 0: greedy" in out and "the view of seat 0 (greedy)" in out, out
    assert "game 2 (seed" in out and "game 1 (seed" not in out and "hand 1:" in out, out
    assert main(["replay", str(replay), "--seat", "1"]) == 0
    assert "the view of seat 1 (random)" in capsys.readouterr().out
    assert main(["replay", str(replay), "--seat", "2"]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("has seats 0-1") and len(err.strip().splitlines()) == 1, err
