"""Start-up: packages export their names lazily, so a bot process does not import the
launcher, the sandbox or the match loop (a bot's imports took 0.72 s before, 0.42 s
after), and ``arena --help`` loads no gRPC."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize("package", ["arena.hosting", "arena.referee"])
def test_every_exported_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    assert sorted(module.__all__) == sorted(module._HOMES)
    for name in module.__all__:
        assert getattr(module, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        module.nothing_here  # noqa: B018


def loaded_after(statement: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``statement``."""
    code = f"import sys\n{statement}\nprint('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


@pytest.mark.slow
def test_a_bot_process_loads_no_launcher_sandbox_or_match_loop() -> None:
    loaded = loaded_after("import arena.plugins.serve_bot")
    assert "arena.sdk.server" in loaded  # the check can see what it looks for
    for heavy in ("arena.hosting.process", "arena.hosting.sandbox", "arena.referee.match"):
        assert heavy not in loaded, f"a bot process imports {heavy}"


@pytest.mark.slow
def test_the_cli_entry_point_loads_no_grpc() -> None:
    loaded = loaded_after("import arena.cli.main")
    assert "arena.cli.main" in loaded
    assert not any(name == "grpc" or name.startswith("grpc.") for name in loaded)


#: What a Python SDK bot playing Gin must not load: the other game, the arena's own
#: machinery (plugins, web, ladder, referee, submissions), and heavy stdlib it never uses.
NOT_FOR_A_GIN_BOT = (
    "arena.games.rummy",
    "arena.protocol.rummy",
    "pluggy",
    "arena.plugins.manager",
    "arena.web",
    "arena.ladder",
    "arena.referee.match",
    "arena.storage",
    "arena.submissions",
    "arena.hosting.process",
    "email",
    "http.server",
    "sqlite3",
)


@pytest.mark.slow
def test_a_gin_sdk_bot_imports_only_what_it_plays() -> None:
    loaded = loaded_after(
        "from arena.sdk import Bot, Decision, serve, gin\n"
        "from arena.protocol import codec_for\n"
        "codec_for('gin-rummy/standard')"  # what the bot's handshake loads
    )
    assert {"arena.sdk.server", "arena.protocol.gin", "grpc"} <= loaded  # the check can see
    crept_in = sorted(
        name
        for name in loaded
        if any(name == h or name.startswith(h + ".") for h in NOT_FOR_A_GIN_BOT)
    )
    assert crept_in == [], f"a Gin bot imports {crept_in}"


@pytest.mark.slow
def test_serving_a_builtin_gin_bot_loads_no_plugin_manager_or_other_game() -> None:
    loaded = loaded_after(
        "import arena.plugins.serve_bot\nfrom arena.bots import builtin_bot\nbuiltin_bot('greedy')"
    )
    assert "arena.bots.builtin" in loaded  # the check can see what it looks for
    for heavy in ("pluggy", "arena.plugins.manager", "arena.games.rummy", "arena.bots.reference"):
        assert heavy not in loaded, f"serving greedy imports {heavy}"


def test_every_builtin_home_holds_the_bot_of_that_name() -> None:
    from arena.bots import BUILTIN_BOTS, HOMES, builtin_bot

    assert set(BUILTIN_BOTS) == set(HOMES)
    for name in HOMES:
        assert builtin_bot(name).name == name
