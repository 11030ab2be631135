"""The plugin system: hooks, entry points, module plugins, broken plugins."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.plugins import AUTOLOAD_ENV, PluginError, UnknownBotError, load_plugins
from arena.plugins.registrations import MatchContext


def write_module(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(textwrap.dedent(body))


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in list(sys.modules):
        if name.startswith("tp_"):
            del sys.modules[name]


GOOD = """
    from arena.plugins import hookimpl
    from arena.sdk import Bot

    class Echo(Bot):
        '''Always the first legal action.'''
        name = "echo"
        games = ("gin-rummy/*",)

        def decide(self, decision):
            return 0

    @hookimpl
    def arena_register_bots():
        return [Echo]
"""


def test_builtins_register_through_the_hooks() -> None:
    plugins = load_plugins(autoload=False)
    assert plugins.plugin_names == ["builtin"]
    assert {"random", "greedy"} <= set(plugins.bots)
    assert plugins.bots["greedy"].source == "builtin"
    assert {"gin-rummy/standard", "gin-rummy/classic"} <= set(plugins.games)
    assert plugins.problems == []


def test_a_module_plugin_adds_its_bot(plugin_dir: Path) -> None:
    write_module(plugin_dir, "tp_good", GOOD)
    plugins = load_plugins(["tp_good"], autoload=False)
    registration = plugins.bot("echo")
    assert registration.source == "tp_good"
    assert registration.games == ("gin-rummy/*",)
    assert registration.description == "Always the first legal action."
    assert registration.factory().name == "echo"


def test_an_import_error_is_a_problem_naming_the_plugin_and_the_rest_still_work(
    plugin_dir: Path,
) -> None:
    write_module(plugin_dir, "tp_broken", "import not_a_real_module_xyz\n")
    write_module(plugin_dir, "tp_good", GOOD)
    plugins = load_plugins(["tp_broken", "tp_good"], autoload=False)
    assert [problem.plugin for problem in plugins.problems] == ["tp_broken"]
    assert "not_a_real_module_xyz" in plugins.problems[0].message
    assert plugins.bot("echo").source == "tp_good"
    with pytest.raises(UnknownBotError, match="tp_broken"):
        plugins.bot("something-from-the-broken-plugin")


def test_a_hook_with_a_wrong_signature_is_refused(plugin_dir: Path) -> None:
    write_module(
        plugin_dir,
        "tp_signature",
        """
        from arena.plugins import hookimpl

        @hookimpl
        def arena_register_bots(extra_argument):
            return []
        """,
    )
    plugins = load_plugins(["tp_signature"], autoload=False)
    assert len(plugins.problems) == 1
    problem = plugins.problems[0]
    assert problem.plugin == "tp_signature"
    assert "extra_argument" in problem.message
    assert "tp_signature" not in plugins.plugin_names


def test_an_unknown_hook_name_is_refused(plugin_dir: Path) -> None:
    write_module(
        plugin_dir,
        "tp_typo",
        """
        from arena.plugins import hookimpl

        @hookimpl
        def arena_register_bot():
            return []
        """,
    )
    plugins = load_plugins(["tp_typo"], autoload=False)
    assert plugins.problems[0].plugin == "tp_typo"
    assert "unknown hook arena_register_bot" in plugins.problems[0].message


def test_a_hook_that_raises_or_returns_junk_is_a_problem(plugin_dir: Path) -> None:
    write_module(
        plugin_dir,
        "tp_raises",
        """
        from arena.plugins import hookimpl

        @hookimpl
        def arena_register_bots():
            raise RuntimeError("no bots today")
        """,
    )
    write_module(
        plugin_dir,
        "tp_junk",
        """
        from arena.plugins import hookimpl

        @hookimpl
        def arena_register_bots():
            return ["not a bot"]
        """,
    )
    plugins = load_plugins(["tp_raises", "tp_junk"], autoload=False)
    messages = {problem.plugin: problem.message for problem in plugins.problems}
    assert "RuntimeError: no bots today" in messages["tp_raises"]
    assert "'not a bot'" in messages["tp_junk"]
    assert {"random", "greedy"} <= set(plugins.bots)


def test_two_bots_with_one_name_spoil_that_name_only(plugin_dir: Path) -> None:
    write_module(plugin_dir, "tp_good", GOOD)
    write_module(plugin_dir, "tp_clash", GOOD)
    plugins = load_plugins(["tp_good", "tp_clash"], autoload=False)
    assert len(plugins.problems) == 1
    assert plugins.problems[0].plugin == "tp_clash"
    assert "'tp_good'" in plugins.problems[0].message
    with pytest.raises(PluginError, match="also registered by plugin 'tp_good'"):
        plugins.bot("echo")
    assert plugins.bot("greedy").source == "builtin"


def test_a_plugin_cannot_take_a_builtin_name(plugin_dir: Path) -> None:
    write_module(plugin_dir, "tp_greedy", GOOD.replace('name = "echo"', 'name = "greedy"'))
    plugins = load_plugins(["tp_greedy"], autoload=False)
    with pytest.raises(PluginError, match="'builtin'"):
        plugins.bot("greedy")


def write_distribution(folder: Path, entry: str) -> None:
    info = folder / "tp_dist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tp-dist\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[rummy_arena]\n{entry}\n")


def test_entry_point_plugins_load_unless_autoload_is_off(
    plugin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_module(plugin_dir, "tp_good", GOOD)
    write_distribution(plugin_dir, "echoes = tp_good")
    assert "echo" in load_plugins().bots
    assert "echo" not in load_plugins(autoload=False).bots
    monkeypatch.setenv(AUTOLOAD_ENV, "1")
    assert "echo" not in load_plugins().bots
    assert "echo" in load_plugins(["tp_good"]).bots  # named modules still load


def test_a_broken_entry_point_names_the_entry(plugin_dir: Path) -> None:
    write_distribution(plugin_dir, "ghost = tp_missing_module")
    plugins = load_plugins()
    problems = [problem for problem in plugins.problems if problem.plugin == "ghost"]
    assert problems and "tp_missing_module" in problems[0].message


def test_observation_hooks_see_every_match_event(plugin_dir: Path) -> None:
    write_module(
        plugin_dir,
        "tp_watch",
        """
        from arena.plugins import hookimpl

        seen = []

        @hookimpl
        def arena_match_started(context, header):
            seen.append(("started", header["game_id"]))

        @hookimpl
        def arena_decision_made(context, record):
            seen.append(("decision", record["seat"]))

        @hookimpl
        def arena_hand_ended(context, record):
            seen.append(("hand", record["result"]["termination"]))

        @hookimpl
        def arena_match_ended(context, result):
            seen.append(("ended", len(result.games), result.seats[0].timing.decisions))
        """,
    )
    from arena.hosting.connection import InProcessConnection
    from arena.referee import MatchConfig, Seat, play_match

    plugins = load_plugins(["tp_watch"], autoload=False)
    spec = plugins.game("gin-rummy/standard")
    seats = [
        Seat(InProcessConnection(plugins.bot(name).factory()), name)
        for name in ("greedy", "random")
    ]
    context = MatchContext("m1", spec.id, ["greedy", "random"])
    result = play_match(MatchConfig(spec, games=1, seed=3), seats, plugins.observers(context))
    seen = sys.modules["tp_watch"].seen
    assert seen[0] == ("started", "gin-rummy/standard")
    decisions = [item for item in seen if item[0] == "decision"]
    assert seen[-1] == ("ended", 1, len(result.seats[0].decision_seconds))
    assert len(decisions) == sum(len(seat.decision_seconds) for seat in result.seats)
    assert sum(1 for item in seen if item[0] == "hand") == result.games[0].hands


def test_replays_are_written_by_the_builtin_plugin(tmp_path: Path) -> None:
    from arena.hosting.connection import InProcessConnection
    from arena.referee import MatchConfig, Seat, play_match
    from arena.replays.verify import verify_replay

    plugins = load_plugins(autoload=False)
    spec = plugins.game("gin-rummy/classic")
    seats = [
        Seat(InProcessConnection(plugins.bot(name).factory()), name)
        for name in ("greedy", "random")
    ]
    path = tmp_path / "m.jsonl"
    play_match(
        MatchConfig(spec, games=2, seed=9),
        seats,
        plugins.observers(MatchContext("m", spec.id, ["a", "b"], path)),
    )
    assert path.exists()
    assert verify_replay(path) == []


def run_arena(*args: str, env_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(env_path)}
    arena = Path(sys.executable).parent / "arena"
    return subprocess.run([str(arena), *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.slow
def test_arena_bots_lists_plugin_bots_and_problems(plugin_dir: Path) -> None:
    write_module(plugin_dir, "tp_good", GOOD)
    write_module(plugin_dir, "tp_broken", "raise ImportError('half-installed')\n")
    done = run_arena("bots", "-p", "tp_good", "-p", "tp_broken", env_path=plugin_dir)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.split()[:3] == ["echo", "plugin", "tp_good"] for line in lines), done.stdout
    assert any(line.split()[:2] == ["greedy", "builtin"] for line in lines)
    assert any("tp_broken" in line and "half-installed" in line for line in lines)


@pytest.mark.slow
def test_a_plugin_bot_plays_isolated_and_in_process(plugin_dir: Path) -> None:
    import json

    write_module(plugin_dir, "tp_good", GOOD)
    for extra in ([], ["--in-process"]):
        done = run_arena(
            "match",
            "echo",
            "random",
            "--games",
            "2",
            "--json",
            "-p",
            "tp_good",
            *extra,
            env_path=plugin_dir,
        )
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert [bot["name"] for bot in result["bots"]] == ["echo", "random"]
        assert all(bot["faults"] == 0 for bot in result["bots"]), result
        assert result["bots"][0]["sandbox"] == (
            "in-process" if extra else result["bots"][1]["sandbox"]
        )


@pytest.mark.slow
def test_a_match_needing_a_spoiled_bot_refuses_to_start(plugin_dir: Path) -> None:
    write_module(plugin_dir, "tp_good", GOOD)
    write_module(plugin_dir, "tp_clash", GOOD)
    done = run_arena(
        "match", "echo", "random", "-p", "tp_good", "-p", "tp_clash", env_path=plugin_dir
    )
    assert done.returncode == 2
    assert "echo" in done.stderr and "tp_clash" in done.stderr and "tp_good" in done.stderr
    assert done.stdout == ""


def short_gin_plugin(target: int) -> str:
    """A plugin offering a Gin rule set of its own: games to ``target`` points."""
    return f"""
    from arena.games.gin_rummy import GinGame, GinRules
    from arena.games.spec import GameSpec
    from arena.plugins import hookimpl
    from arena.plugins.registrations import GameRegistration
    from arena.protocol import gin

    RULES = GinRules(name="short", target={target})

    def new_game(seed, seats, *, hands_only=False, max_deals=0):
        return GinGame(RULES, seed, max_deals=max_deals, single_hand=hands_only)

    @hookimpl
    def arena_register_games():
        spec = GameSpec("gin-rummy/short", "Gin to {target}", 2, 2, RULES, new_game)
        return [GameRegistration(spec, gin)]
    """


@pytest.mark.slow
def test_a_plugin_games_replay_is_read_back_through_its_plugin(plugin_dir: Path) -> None:
    write_module(plugin_dir, "tp_short", short_gin_plugin(30))
    replays = plugin_dir / "replays"
    played = run_arena(
        "match", "random", "greedy", "--rules", "short", "--games", "2", "--seed", "5",
        "--in-process", "--replays", str(replays), "-p", "tp_short", env_path=plugin_dir,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    [replay] = replays.glob("*.jsonl")

    verified = run_arena("replay", "--verify", str(replay), "-p", "tp_short", env_path=plugin_dir)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "verified" in verified.stdout
    listed = run_arena("replay", str(replay), "-p", "tp_short", env_path=plugin_dir)
    assert listed.returncode == 0 and "hand 1: " in listed.stdout, listed.stderr
    seat = run_arena("replay", str(replay), "--seat", "1", "-p", "tp_short", env_path=plugin_dir)
    assert seat.returncode == 0 and "you" in seat.stdout.lower(), seat.stderr

    # Without the plugin the game is unknown: a clear error, not a traceback.
    unknown = run_arena("replay", "--verify", str(replay), env_path=plugin_dir)
    assert unknown.returncode == 2
    assert "gin-rummy/short" in unknown.stderr and "--plugin" in unknown.stderr
    assert "Traceback" not in unknown.stderr

    # A plugin whose rule set changed under the same id: the replay disagrees.
    write_module(plugin_dir, "tp_longer", short_gin_plugin(60))
    changed = run_arena("replay", "--verify", str(replay), "-p", "tp_longer", env_path=plugin_dir)
    assert changed.returncode == 1
    assert "rules differ" in changed.stdout
