"""``arena --help`` lists every command without importing any command's module."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from arena.cli.main import COMMANDS, build_parser

_HEAVY = ("grpc", "arena.games.registry", "arena.plugins.manager", "arena.cli.match")


def _listing(parser: argparse.ArgumentParser) -> dict[str, str]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help or "" for choice in action._choices_actions}


def test_the_listing_says_what_each_command_module_says() -> None:
    assert _listing(build_parser(())) == _listing(build_parser())
    assert list(_listing(build_parser())) == list(COMMANDS)


@pytest.mark.slow
def test_help_and_the_import_load_no_command_module() -> None:
    probe = (
        "import sys, contextlib, io\n"
        "import arena.cli, arena.cli.main as m\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    m.main(['--help'])\n"
        f"print(sorted(name for name in {_HEAVY!r} if name in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_a_command_still_gets_its_full_parser() -> None:
    args = build_parser(("match",)).parse_args(["match", "random", "greedy", "--games", "3"])
    assert args.bots == ["random", "greedy"] and args.games == 3 and callable(args.run)
