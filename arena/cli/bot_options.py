"""Options and helpers shared by the commands that run bots."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from arena.hosting.lookup import MANIFESTS_ENV, ManifestCatalog, manifest_folders
from arena.plugins import PluginSet, load_plugins
from arena.plugins.bot_references import host_bots, host_for_game, resolve_bot
from arena.referee.settings import TimeControl

__all__ = [
    "add_manifest_option",
    "add_plugin_options",
    "add_sandbox_option",
    "add_time_control_options",
    "host_bots",
    "host_for_game",
    "manifest_catalog",
    "plugins_from_args",
    "resolve_bots",
    "time_control_from_args",
]


def add_manifest_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--manifests",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help=f"find bots' manifests by name in DIR: its *.toml and */bot.toml (repeatable; "
        f"also the folders of {MANIFESTS_ENV}, separated by ':')",
    )


def manifest_catalog(args: argparse.Namespace, extra: Sequence[Path] = ()) -> ManifestCatalog:
    """The manifests of ``--manifests``, ``ARENA_MANIFESTS`` and ``extra`` folders."""
    folders = [folder for folder, _ in manifest_folders(args.manifests)]
    return ManifestCatalog([*folders, *extra])


def resolve_bots(
    args: argparse.Namespace, plugins: PluginSet, references: Sequence[str]
) -> list[str]:
    """Each bot the user named as ``start_bot`` takes it (manifest names to their files)."""
    catalog = manifest_catalog(args)
    return [resolve_bot(reference, plugins, catalog) for reference in references]


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


def add_sandbox_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        default="auto",
        choices=["auto", "none", "limits", "bwrap"],
        help="isolation of bots the arena starts (default auto: bwrap where it works)",
    )


def add_time_control_options(parser: argparse.ArgumentParser, *, whose: str = "") -> None:
    """``--decision-ms``, ``--bank-ms`` and ``--startup-ms``; ``whose`` starts each help
    line (``"the bot's "`` where only the bot has a clock)."""
    defaults = TimeControl()
    parser.add_argument(
        "--decision-ms",
        type=int,
        default=defaults.decision_ms,
        help=f"{whose}free time per decision, ms (default {defaults.decision_ms})",
    )
    parser.add_argument(
        "--bank-ms",
        type=int,
        default=defaults.bank_ms,
        help=f"{whose}time bank per game, spent when a decision overruns, ms (default {defaults.bank_ms})",
    )
    parser.add_argument(
        "--startup-ms",
        type=int,
        default=defaults.startup_ms,
        help=f"{whose}time to start and shake hands, ms (default {defaults.startup_ms})",
    )


def time_control_from_args(args: argparse.Namespace) -> TimeControl:
    return TimeControl(args.startup_ms, args.decision_ms, args.bank_ms)
