"""Hosting bots named by plugin name, manifest or address (for matches and ladders)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.hosting.launcher import HostedBot, LaunchSettings
from arena.hosting.launcher import host_bots as start_bots
from arena.plugins.manager import PluginSet
from arena.plugins.serve_bot import command_for

__all__ = ["host_bots"]


def _is_python_bot(reference: str) -> bool:
    return (
        not reference.startswith(("grpc://", "unix:"))
        and not reference.endswith(".toml")
        and not Path(reference).is_file()
    )


def host_bots(
    references: Sequence[str],
    settings: LaunchSettings,
    plugins: PluginSet,
    modules: Sequence[str],
    autoload: bool,
) -> list[HostedBot]:
    """Host each bot, all at once; the caller closes them.  Plugin problems for a needed
    bot raise first."""
    for reference in references:
        if _is_python_bot(reference):
            plugins.bot(
                reference
            )  # raises PluginError naming the plugin problem, or UnknownBotError
    factories = {name: registration.factory for name, registration in plugins.bots.items()}
    return start_bots(
        references, settings, factories, lambda name: command_for(name, modules, autoload)
    )
