"""Options and helpers shared by the commands that run bots."""

from __future__ import annotations

import argparse

from arena.plugins import PluginSet, load_plugins
from arena.plugins.hosted import host_bots

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
