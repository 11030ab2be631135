"""What cannot be asked again is refused in one line, exit status 2, before any bot
starts: a replay whose seed does not open its commitment, one cut short, one the
engine disagrees with (its first disagreement), a seat it does not have, ``--at``
past the end (naming the last decision), a bot for another game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.replays.verify import verify_replay

from .helpers import arena


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status, out, err = arena(capsys, *argv)
    assert status == 2, out + err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


def _edit(path: Path, change: dict[str, object], where: str) -> None:
    lines = path.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == where)
    record = json.loads(lines[index])
    record.update(change)
    lines[index] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def test_a_seed_that_does_not_open_its_commitment(
    capsys: pytest.CaptureFixture[str], gin_replay: Path
) -> None:
    _edit(gin_replay, {"seed_commitment": "00" * 32}, "match")
    line = _refused(capsys, "replay", str(gin_replay), "--seat", "0", "--ask", "greedy")
    assert "do not hash to the header's commitment" in line


def test_a_replay_cut_short(capsys: pytest.CaptureFixture[str], gin_replay: Path) -> None:
    lines = gin_replay.read_text().splitlines()
    gin_replay.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    line = _refused(capsys, "replay", str(gin_replay), "--seat", "0", "--ask", "greedy")
    assert "cut short" in line


def test_a_replay_that_does_not_verify(
    capsys: pytest.CaptureFixture[str], gin_replay: Path
) -> None:
    lines = gin_replay.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"discard ' in line)
    record = json.loads(lines[index])
    record["action"] = "draw stock"  # not what the engine can play there
    lines[index] = json.dumps(record)
    gin_replay.write_text("\n".join(lines) + "\n")
    first = str(verify_replay(gin_replay)[0])
    line = _refused(capsys, "replay", str(gin_replay), "--seat", "0", "--ask", "greedy")
    assert f"does not verify: {first}" in line


def test_a_seat_out_of_range(capsys: pytest.CaptureFixture[str], gin_replay: Path) -> None:
    line = _refused(capsys, "replay", str(gin_replay), "--seat", "2", "--ask", "greedy")
    assert "--seat 2" in line and "has seats 0-1" in line


def test_at_past_the_end_names_the_last_decision(
    capsys: pytest.CaptureFixture[str], gin_replay: Path
) -> None:
    status, out, _ = arena(capsys, "replay", str(gin_replay), "--seat", "1", "--at", "1.1.1")
    assert status == 0
    line = _refused(capsys, "replay", str(gin_replay), "--seat", "1", "--at", "9.1.1")
    assert "past the end" in line
    last = line.rsplit("last decision is ", 1)[1]
    game, hand, step = (int(part) for part in last.split("."))
    assert game == 2  # the match has two games
    status, out, err = arena(capsys, "replay", str(gin_replay), "--seat", "1", "--at", last)
    assert status == 0, err
    assert f"game {game}, hand {hand}, step {step}" in out
    assert "past the end" in _refused(
        capsys, "replay", str(gin_replay), "--seat", "1", "--at", f"{game}.{hand}.{step + 1}"
    )
    # Inside the match, a step its hand does not have: the hand's steps are named.
    line = _refused(capsys, "replay", str(gin_replay), "--seat", "1", "--at", "1.1.99")
    assert "steps 1-" in line and "game 1 hand 1" in line


def test_a_bot_for_another_game(capsys: pytest.CaptureFixture[str], gin_replay: Path) -> None:
    line = _refused(capsys, "replay", str(gin_replay), "--seat", "0", "--ask", "greedy-rummy")
    assert "does not play gin-rummy/standard" in line


def test_options_that_need_a_seat_or_a_decision(
    capsys: pytest.CaptureFixture[str], gin_replay: Path, tmp_path: Path
) -> None:
    assert "--seat N" in _refused(capsys, "replay", str(gin_replay), "--ask", "greedy")
    save = str(tmp_path / "p.json")
    assert "--at" in _refused(capsys, "replay", str(gin_replay), "--seat", "0", "--save", save)
    assert "--ask" in _refused(capsys, "replay", str(gin_replay), "--repeat", "2")


def test_a_position_file_that_is_not_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = tmp_path / "p.json"
    broken.write_text('{"type": "match"}')
    assert "not a position file" in _refused(capsys, "ask", "greedy", str(broken))
    assert "no such file" in _refused(capsys, "ask", "greedy", str(tmp_path / "none.json"))
