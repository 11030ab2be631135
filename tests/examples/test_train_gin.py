"""``examples/train_gin.py`` trains (a tiny budget), writes its bot folder, and that folder
passes ``arena check`` and is accepted by a submissions server: a broken example fails
here, not in a reader's hands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.main import main

for _module in ("numpy", "gymnasium", "pettingzoo"):
    pytest.importorskip(
        _module, reason=f"[learn] {_module} is not installed (pip install -e '.[learn]')"
    )

pytestmark = pytest.mark.slow  # trains a network, starts bots and a server

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--games", "6", "--dagger-rounds", "1", "--epochs", "1", "--eval-games", "4"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The folder ``--quick`` writes with a budget of seconds, and what it printed."""
    out = tmp_path_factory.mktemp("train") / "my-gin-bot"
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_gin.py"), "--quick", *TINY,
         "--out", str(out)],
        capture_output=True, text=True, timeout=300, check=False, cwd=out.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return out, done.stdout


def test_the_example_trains_and_writes_a_bot_folder(trained: tuple[Path, str]) -> None:
    out, printed = trained
    assert {path.name for path in out.iterdir()} == {"bot.toml", "bot.py", "policy.npz"}
    assert "behaviour cloning:" in printed and "DAgger round 1:" in printed
    assert "against random: won" in printed


def test_the_written_folder_passes_arena_check(
    trained: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = trained
    code = main(["check", str(out), "--games", "1"])
    report = capsys.readouterr().out
    assert code == 0, report
    assert "trained-gin: conforms" in report


def test_the_written_folder_is_accepted_by_a_submissions_server(
    trained: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.submissions.conftest import LADDER, add_author, needs_bwrap, serve, submit

    needs_bwrap()
    config = tmp_path / "open.toml"
    config.write_text(LADDER)
    db = tmp_path / "open.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    token = add_author(db, "alice", capsys)
    with serve(db) as server:
        code, out = submit(server.url, trained[0], token, capsys)
    assert code == 0, out
    assert "accepted: trained-gin version 1" in out
