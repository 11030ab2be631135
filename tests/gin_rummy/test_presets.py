"""The Gin Rummy presets are registered games: ``gin-rummy/standard``, ``classic`` and
``oklahoma``, each playable by name through ``arena match``."""

from __future__ import annotations

import json

import pytest

from arena.cli.games import game_spec
from arena.cli.main import main as arena_main
from arena.envs._gin import GIN_PRESETS
from arena.games.gin_rummy import OKLAHOMA, PRESETS, STANDARD
from arena.plugins.manager import load_plugins
from arena.referee.settings import SettingsError


def test_oklahoma_is_the_standard_preset_with_the_oklahoma_option() -> None:
    assert PRESETS["oklahoma"] is OKLAHOMA
    assert OKLAHOMA.oklahoma and not STANDARD.oklahoma
    differ = {
        name
        for name in OKLAHOMA.__dataclass_fields__
        if getattr(OKLAHOMA, name) != getattr(STANDARD, name)
    }
    assert differ == {"name", "oklahoma"}


def test_every_preset_is_a_registered_game_and_an_environment_preset() -> None:
    plugins = load_plugins(autoload=False)
    for key, rules in PRESETS.items():
        assert plugins.game(f"gin-rummy/{key}").rules is rules
    assert GIN_PRESETS == PRESETS


def test_a_game_id_names_the_rules_and_contradicting_rules_are_refused() -> None:
    plugins = load_plugins(autoload=False)
    assert game_spec(plugins, "gin-rummy/oklahoma", "standard").rules is OKLAHOMA
    assert game_spec(plugins, "gin-rummy", "oklahoma").rules is OKLAHOMA
    with pytest.raises(SettingsError, match="--rules classic contradicts it"):
        game_spec(plugins, "gin-rummy/oklahoma", "classic")


@pytest.mark.slow  # arena match probes the sandbox (a process) even in-process
def test_arena_match_plays_a_seeded_oklahoma_match(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["search", "simple", "--game", "gin-rummy/oklahoma", "--games", "2", "--seed", "7"]
    results = []
    for _ in range(2):
        status = arena_main(["match", *args, "--in-process", "--json", "--no-plugin-autoload"])
        out = capsys.readouterr().out
        assert status == 0, out
        report = json.loads(out)
        assert report["game_id"] == "gin-rummy/oklahoma"
        results.append([(b["name"], b["wins"], b["points"]) for b in report["bots"]])
    assert results[0] == results[1]  # the same seed plays the same deals to the same end
    assert sum(wins for _, wins, _ in results[0]) == 2
