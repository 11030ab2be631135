"""``arena``: the command line entry point; one module per command group."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from arena.cli import bots, check, demo, gin, ladder, match, play, replay, serve, sprt, submit

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena", description="Rummy Arena: bots play Rummy-family card games."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    gin.register(commands)
    demo.register(commands)
    match.register(commands)
    bots.register(commands)
    ladder.register(commands)
    replay.register(commands)
    sprt.register(commands)
    check.register(commands)
    play.register(commands)
    serve.register(commands)
    submit.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
