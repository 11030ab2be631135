"""A bot author's type checker sees the SDK's types: mypy --strict accepts a typed
Gin bot and a typed Rummy bot, and rejects a Gin bot that returns a Rummy action."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import arena

pytestmark = pytest.mark.slow  # every test here starts processes or servers

GOOD = """
from arena.sdk import Bot, Decision, GameEvent, GinObservation, Reply, RummyObservation, gin, rummy


class GinBot(Bot[GinObservation, gin.Action]):
    games = ("gin-rummy/*",)

    def decide(self, decision: Decision[GinObservation, gin.Action]) -> gin.Action:
        observation = decision.observation
        events: list[GameEvent] = decision.events
        if events and isinstance(events[-1], gin.PublicEvent) and events[-1].kind is gin.EventKind.DISCARD:
            pass
        for action in decision.legal_actions:
            if isinstance(action, gin.Knock):
                return action
        if observation.phase is gin.Phase.DISCARD and observation.forbidden_discard is None:
            return gin.discard(max(observation.hand, key=lambda card: card.value))
        return decision.legal_actions[0]


class RummyBot(Bot[RummyObservation, rummy.Action]):
    games = ("rummy/*",)

    def decide(
        self, decision: Decision[RummyObservation, rummy.Action]
    ) -> rummy.Action | Reply[rummy.Action]:
        if len(decision.observation.table) > 3:
            return Reply(decision.legal_actions[-1], "many melds")
        return decision.legal_actions[0]
"""

WRONG = """
from arena.sdk import Bot, Decision, GinObservation, gin, rummy


class ConfusedBot(Bot[GinObservation, gin.Action]):
    def decide(self, decision: Decision[GinObservation, gin.Action]) -> gin.Action:
        return rummy.discard(rummy.JOKER)
"""


def mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "bot.py"
    path.write_text(source)
    # An editable install is an import hook mypy cannot follow: point it at the
    # package's folder and the project's mypy settings (strict; grpc untyped), which
    # check arena as the project's own CI does.  An installed wheel needs neither.
    root = Path(arena.__file__).resolve().parent.parent
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--config-file",
        str(root / "pyproject.toml"),
    ]
    return subprocess.run(
        [*command, "--cache-dir", str(tmp_path / "cache"), str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(root)},
    )


def test_a_typed_bot_type_checks(tmp_path: Path) -> None:
    done = mypy(tmp_path, GOOD)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_wrong_action_type_is_rejected(tmp_path: Path) -> None:
    done = mypy(tmp_path, WRONG)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bot.py:7: error: Incompatible return value type" in done.stdout, done.stdout
    assert '"arena.games.rummy.actions.Discard"' in done.stdout, done.stdout
