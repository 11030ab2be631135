"""Options and helpers shared by the commands that run bots."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from arena.hosting.launcher import HostedBot, LaunchSettings, host_bot
from arena.plugins import PluginSet, load_plugins
from arena.plugins.serve_bot import command_for

__all__ = ["add_plugin_options", "host_bots", "plugins_from_args"]


def add_plugin_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p",
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="load a plugin module (repeatable)",
    )
    parser.add_argument(
        "--no-plugin-autoload",
        action="store_true",
        help="do not load entry-point plugins (also: ARENA_DISABLE_PLUGIN_AUTOLOAD=1)",
    )


def plugins_from_args(args: argparse.Namespace) -> PluginSet:
    return load_plugins(args.plugin, autoload=False if args.no_plugin_autoload else None)


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
    """Host each bot; the caller closes them.  Plugin problems for a needed bot raise first."""
    for reference in references:
        if _is_python_bot(reference):
            plugins.bot(
                reference
            )  # raises PluginError naming the plugin problem, or UnknownBotError
    factories = {name: registration.factory for name, registration in plugins.bots.items()}
    hosted: list[HostedBot] = []
    try:
        for reference in references:
            hosted.append(
                host_bot(
                    reference,
                    settings,
                    factories,
                    lambda name: command_for(name, modules, autoload),
                )
            )
    except BaseException:
        for bot in hosted:
            bot.close()
        raise
    return hosted
