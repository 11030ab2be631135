"""``arena match BOT.toml ... --in-process`` runs a Python SDK bot's script in the
referee's process, or says in one line why it cannot (never a silent sandbox)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.main import main

pytestmark = pytest.mark.slow  # arena match probes the host's sandbox (runs bwrap)

BOT = """\
import os

from arena.sdk import Bot, Decision, serve

PID = os.getpid()


class First(Bot):
    name = "first"
    games = ("gin-rummy/*",)

    def decide(self, decision: Decision):
        assert os.getpid() == PID
        return decision.legal_actions[0]


if __name__ == "__main__":
    serve(First())
"""


def _bot(folder: Path, source: str, command: str = '["{python}", "bot.py"]') -> Path:
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    manifest = folder / "bot.toml"
    manifest.write_text(f'name = "first"\ncommand = {command}\n')
    return manifest


def test_a_python_sdk_bot_plays_in_the_referees_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _bot(tmp_path / "first", BOT)
    assert main(["match", str(manifest), "random", "--in-process", "--games", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    first = result["bots"][0]
    assert first["name"] == "first" and first["sandbox"] == "in-process"
    assert first["decisions"] > 0 and first["faults"] == 0


@pytest.mark.parametrize(
    ("source", "command", "why"),
    [
        (BOT, '["node", "bot.js"]', "not the arena's Python"),
        (BOT, '["{python}", "bot.py", "--fast"]', "not one .py file without arguments"),
        (
            BOT.replace('if __name__ == "__main__":\n    ', ""),
            '["{python}", "bot.py"]',
            "calls serve() when imported",
        ),
        (
            BOT + "\n\nclass Second(First):\n    name = 'second'\n",
            '["{python}", "bot.py"]',
            "exactly one Bot subclass (found: First, Second)",
        ),
    ],
    ids=["another-program", "arguments", "serves-at-import", "two-bots"],
)
def test_a_bot_that_cannot_run_in_process_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, command: str, why: str
) -> None:
    manifest = _bot(tmp_path / "bot", source, command)
    assert main(["match", str(manifest), "random", "--in-process", "--games", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot run in the referee's process" in err[0] and why in err[0]
