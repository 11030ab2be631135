"""Every command, positional argument and option of ``arena`` says what it is in
``--help``."""

from __future__ import annotations

import argparse

from arena.cli.main import build_parser


def _undocumented(parser: argparse.ArgumentParser, path: str) -> list[str]:
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helped = {choice.dest for choice in action._choices_actions if choice.help}
            for name, sub in action.choices.items():
                if name not in helped:
                    missing.append(f"{path} {name} (the command)")
                missing += _undocumented(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction) and (
            not action.help or action.help == argparse.SUPPRESS
        ):
            missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_argument_has_help() -> None:
    assert _undocumented(build_parser(), "arena") == []
