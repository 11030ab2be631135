"""``arena replay --save`` and ``arena ask``: a saved position put to a bot process
gives the recorded answer; a folder of positions with ``--expect`` is a regression
suite that fails on a changed answer; the Node and Go starter kits can be asked again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .helpers import arena, edge_manifest, record, shown, summary

pytestmark = pytest.mark.slow  # every test here starts bot processes

ROOT = Path(__file__).resolve().parents[2]


def test_a_saved_position_gets_its_recorded_answer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    replay = record(
        capsys, tmp_path / "r", "random", "greedy", "--games", "1", "--hands", "--seed", "2"
    )
    position = tmp_path / "pos.json"
    status, out, err = arena(
        capsys, "replay", str(replay), "--seat", "1", "--at", "1.1.4", "--save", str(position)
    )
    assert status == 0, err
    recorded = out.split("recorded ", 1)[1].strip()
    status, out, err = arena(capsys, "ask", "greedy", str(position), "--sandbox", "none")
    assert status == 0, err
    assert out.splitlines()[0].endswith(": same")
    new = next(line for line in out.splitlines() if line.strip().startswith("new:"))
    assert new.split("new:", 1)[1].strip().startswith(recorded)
    # --at and --ask together: that one decision, in full, with its legal actions.
    status, out, err = arena(
        capsys, "replay", str(replay), "--seat", "1", "--at", "1.1.4", "--ask", "greedy",
        "--sandbox", "none", "--repeat", "2",
    )  # fmt: skip
    assert status == 0, err
    assert shown(out) == {(1, 1, 4): "same"}
    assert "legal: " in out
    assert "the same answer every time over 2 asks" in out
    assert summary(out) == {"asked": 1, "same": 1, "different": 0, "illegal": 0, "faults": 0}


def test_a_folder_of_positions_is_a_regression_suite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    highest = edge_manifest(tmp_path / "highest", "highest")
    lowest = edge_manifest(tmp_path / "lowest", "lowest")
    replay = record(capsys, tmp_path / "r", str(highest), "random", "--games", "1", "--seed", "8")
    status, out, err = arena(
        capsys, "replay", str(replay), "--seat", "0", "--ask", str(lowest), "--sandbox", "none"
    )
    assert status == 0, err
    differs = sorted(shown(out))
    assert differs
    suite = tmp_path / "suite"
    suite.mkdir()
    for game, hand, step in [differs[0], (1, 1, 1)]:  # one that changes, one that does not
        at = f"{game}.{hand}.{step}"
        status, _, err = arena(
            capsys,
            "replay",
            str(replay),
            "--seat",
            "0",
            "--at",
            at,
            "--save",
            str(suite / f"{at}.json"),
        )
        assert status == 0, err
    status, out, err = arena(
        capsys, "ask", str(highest), str(suite), "--expect", "--sandbox", "none"
    )
    assert status == 0, out + err
    assert out.splitlines()[-1] == "2 positions: 2 as expected, 0 changed"
    status, out, err = arena(
        capsys, "ask", str(lowest), str(suite), "--expect", "--sandbox", "none"
    )
    assert status == 1, out + err
    assert out.splitlines()[-1] == "2 positions: 1 as expected, 1 changed"
    changed = [line for line in out.splitlines() if "CHANGED" in line]
    assert len(changed) == 1 and ".".join(str(n) for n in differs[0]) in changed[0]


KITS = {
    "js": ("node", ROOT / "sample_bots" / "js" / "node_modules"),
    "go": ("go", ROOT / "sample_bots" / "go" / "bot"),
}


@pytest.mark.parametrize("kit", sorted(KITS))
def test_a_starter_kit_can_be_asked_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kit: str
) -> None:
    program, needed = KITS[kit]
    if shutil.which(program) is None or not needed.exists():
        pytest.skip(f"[{kit}] the {kit} kit is not runnable here: {program} or {needed} missing")
    manifest = str(ROOT / "sample_bots" / kit / "bot.toml")
    replay = record(
        capsys, tmp_path / "r", manifest, "random", "--games", "1", "--hands", "--seed", "6"
    )
    status, out, err = arena(
        capsys, "replay", str(replay), "--seat", "0", "--ask", manifest, "--sandbox", "none"
    )
    assert status == 0, err
    counts = summary(out)
    assert counts["asked"] > 0 and counts["same"] == counts["asked"], out
