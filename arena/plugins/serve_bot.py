"""``python -m arena.plugins.serve_bot NAME``: serve a registered Python bot over gRPC.

This is the command the arena runs (in the sandbox) for a bot named by plugin or
built-in name, so that Python bots run isolated like any other bot.  Plugin
options are passed on so the bot process sees the same plugins as the referee.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from arena.bots import HOMES, builtin_bot
from arena.hosting.manifest import bot_python
from arena.sdk import serve

__all__ = ["command_for", "main"]


def command_for(name: str, modules: Sequence[str], autoload: bool) -> list[str]:
    """The command line that serves bot ``name`` with these plugin settings."""
    argv = [bot_python(), "-m", "arena.plugins.serve_bot", name]
    for module in modules:
        argv += ["--plugin", module]
    if not autoload:
        argv.append("--no-plugin-autoload")
    return argv


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="serve a registered Python bot")
    parser.add_argument("name")
    parser.add_argument("--plugin", action="append", default=[])
    parser.add_argument("--no-plugin-autoload", action="store_true")
    parser.add_argument("--address")
    args = parser.parse_args(argv)
    if args.name in HOMES:
        # A built-in name: the referee's plugin set refused any plugin bot that took it,
        # so the plugins need not be loaded (nor the other bots and games imported).
        serve(builtin_bot(args.name)(), address=args.address, argv=[])
        return
    from arena.plugins.manager import PluginError, UnknownBotError, load_plugins

    plugins = load_plugins(args.plugin, autoload=not args.no_plugin_autoload)
    try:
        registration = plugins.bot(args.name)
    except (PluginError, UnknownBotError) as error:
        sys.exit(f"serve_bot: {error}")
    serve(registration.factory(), address=args.address, argv=[])


if __name__ == "__main__":
    main()
