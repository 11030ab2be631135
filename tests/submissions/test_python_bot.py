"""A Python SDK bot, written as docs/SDK.md and docs/BOTS.md say (``command =
["{python}", "bot.py"]``), is submitted over HTTP and accepted: the arena binds its own
interpreter, environment and package for it, read-only, under bwrap.  The bot itself
proves the confinement while it starts: it cannot write into the arena's package or
its environment, and it sees none of the host files the test names (the ladder's
database, config and a file in its data folder, the checkout around the package);
otherwise it exits, the check fails, and the submission is rejected."""

from __future__ import annotations

from pathlib import Path

import pytest

import arena
from tests.submissions.conftest import add_author, needs_bwrap, serve, submit

pytestmark = pytest.mark.slow  # a server, a sandboxed check

MANIFEST = 'name = "py-sdk-bot"\ncommand = ["{python}", "bot.py"]\n'

BOT = """
import os
import sys
from pathlib import Path

import arena
from arena.sdk import Bot, CardSet, Decision, GinObservation, gin, min_deadwood, serve

HERE = Path(__file__).resolve().parent


def confinement_problems() -> list[str]:
    problems = []
    package = Path(arena.__file__).resolve().parent
    for folder in (package, Path(sys.prefix).resolve()):
        try:
            (folder / "written-by-a-bot").write_text("x")
            problems.append(f"could write into {folder}")
        except OSError:
            pass
    try:
        with open(package / "__init__.py", "a"):
            problems.append("could open the arena's __init__.py to write")
    except OSError:
        pass
    for line in (HERE / "hidden.txt").read_text().splitlines():
        if os.path.lexists(line):
            problems.append(f"sees {line}")
    return problems


class TakeNothing(Bot[GinObservation, gin.Action]):
    name = "py-sdk-bot"
    games = ("gin-rummy/*",)

    def decide(self, decision: Decision[GinObservation, gin.Action]) -> gin.Action | int:
        legal = decision.legal_actions
        if gin.DRAW_STOCK in legal:
            return gin.DRAW_STOCK
        if gin.PASS in legal:
            return gin.PASS
        observation = decision.observation
        if observation.phase is gin.Phase.DEFEND:
            return 0

        def after(action: gin.Discard | gin.Knock) -> tuple[int, bool]:
            kept = observation.hand - CardSet.of([action.card])
            return min_deadwood(kept), not isinstance(action, gin.Knock)

        return min((a for a in legal if isinstance(a, gin.Discard | gin.Knock)), key=after)


if __name__ == "__main__":
    problems = confinement_problems()
    if problems:
        print("confinement broken: " + "; ".join(problems), file=sys.stderr)
        sys.exit(1)
    serve(TakeNothing())
"""


def test_a_python_sdk_bot_is_submitted_and_accepted(
    ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    needs_bwrap()
    package = Path(arena.__file__).resolve().parent
    sentinel = Path(f"{ladder}.data") / "sentinel.txt"  # beside the archives, the session key
    sentinel.parent.mkdir(exist_ok=True)
    sentinel.write_text("not for bots")
    hidden = [
        ladder,  # the ladder's database
        sentinel,
        tmp_path / "open.toml",  # the ladder's config, beside the database
        package.parent / "pyproject.toml",  # the checkout around the arena's package
    ]
    assert all(path.exists() for path in hidden)
    folder = tmp_path / "py-bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(MANIFEST)
    (folder / "bot.py").write_text(BOT)
    (folder / "hidden.txt").write_text("".join(f"{path}\n" for path in hidden))
    token = add_author(ladder, "alice", capsys)
    with serve(ladder) as server:
        code, out = submit(server.url, folder, token, capsys)
    assert code == 0, out
    assert "accepted: py-sdk-bot version 1, in the ladder as py-sdk-bot.v1" in out
    assert "PASS  handshake" in out and "FAIL " not in out
    assert not (package / "written-by-a-bot").exists()
    assert str(package) not in out  # the report names no host path
