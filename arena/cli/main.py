"""``arena``: the command line entry point; one module per command group.

A command's module is imported only when that command runs (or shows its help):
the games' tables, gRPC and the plugins take most of a second to import, which
``arena --help`` and a mistyped command need not wait for.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "main"]

#: Every command, in the order ``arena --help`` lists them: its module under
#: ``arena.cli`` (whose ``register`` adds the parser) and the one-line help shown in
#: the listing (the same as the module's own, which a test checks).
COMMANDS: dict[str, tuple[str, str]] = {
    "gin": ("gin", "Gin Rummy tools"),
    "demo": ("demo", "play one Gin Rummy game between built-in policies"),
    "match": ("match", "play a match between bots (2 for Gin, 2-6 for Rummy)"),
    "bots": ("bots", "list the bots found (built in, plugins, manifests in --manifests DIR)"),
    "ladder": ("ladder", "ladder competitions (TrueSkill, SQLite)"),
    "replay": ("replay", "print or verify a match replay"),
    "ask": ("ask", "ask a bot saved decisions (positions) again; --expect: a regression suite"),
    "sprt": ("sprt", "sequential test: is a new bot version better than an old one?"),
    "check": ("check", "check that a bot follows the protocol and the rules (any language)"),
    "play": ("play", "play Gin Rummy against a bot in the terminal"),
    "doctor": (
        "doctor",
        "what each sandbox level guarantees on this host, and what strangers' bots get",
    ),
    "serve": ("serve", "a read-only web view of ladders (safe while `arena ladder run` writes)"),
    "compete": (
        "compete",
        "run a competition: the web app (with submissions) and a runner that plays forever, "
        "supervised",
    ),
    "submit": (
        "submit",
        "submit a bot (a folder with bot.toml, or an archive) to a ladder's server",
    ),
}


def build_parser(wanted: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser, with the full sub-parsers of the ``wanted`` commands (default: all)
    and, for the others, a placeholder that only lists the command and its help."""
    parser = argparse.ArgumentParser(
        prog="arena", description="Rummy Arena: bots play Rummy-family card games."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if wanted is None or name in wanted:
            importlib.import_module(f"arena.cli.{module}").register(commands)
        else:
            commands.add_parser(name, help=help_text, add_help=False)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names (its first word that is not an option), if any."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    command = _command_in(words)
    parser = build_parser(() if command is None else (command,))
    args = parser.parse_args(words)
    try:
        status: int = args.run(args)
    except ValueError as error:  # every user-input error of ours is a ValueError subclass
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `arena replay FILE | head`: the reader left
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
