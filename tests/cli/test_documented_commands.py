"""Every ``arena ...`` command shown in the README and the manual names commands,
options and choices the command line has: a removed command, flag or choice fails
here.  Whole command lines in code blocks must also parse as they stand."""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from arena.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: A command line in a code block: at a prompt, after a venv's bin/, after variables.
LINE = re.compile(r"^(?:\$\s+)?(?:[A-Z_]+=\S+\s+)*(?:\S*/)?arena\s")
#: A command in running text: `arena ...` in backticks.
SPAN = re.compile(r"`(?:\S*/)?arena( [^`]+)`")
#: What ends a command: a pipe, a sequence, a redirection.
STOP = {"|", "||", "&&", ";", ">", ">>", "2>", "2>&1", "&"}
PARSER = build_parser()


def _pages() -> Iterator[tuple[str, str, bool]]:
    """(where, text after ``arena``, whether it is a whole line from a code block)."""
    for page in PAGES:
        fenced, pending = False, ""
        for number, line in enumerate(page.read_text().splitlines(), 1):
            where = f"{page.name}:{number}"
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                if line.rstrip().endswith("\\"):
                    pending += line.rstrip()[:-1] + " "
                    continue
                line, pending = pending + line.strip(), ""
                if LINE.match(line):
                    yield where, line[line.index("arena") + len("arena") :], True
            else:
                for span in SPAN.finditer(line):
                    yield where, span.group(1), False


def _words(text: str) -> list[str]:
    words = []
    for word in shlex.split(text.replace("[", " ").replace("]", " "), comments=True):
        if word in STOP or word.startswith((">", "2>")):
            break
        words.append(word)
    return words


DOCUMENTED = [(where, _words(text), whole) for where, text, whole in _pages()]


def _sub(parser: argparse.ArgumentParser, word: str) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and word in action.choices:
            return action.choices[word]
    return None


def _has_subcommands(parser: argparse.ArgumentParser) -> bool:
    return any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)


def problem(argv: list[str]) -> str | None:
    """What in ``argv`` the command line does not have (None: all of it exists)."""
    parser, words = PARSER, list(argv)
    while words and not words[0].startswith("-") and _has_subcommands(parser):
        sub = _sub(parser, words[0])
        if sub is None:
            if words[0] in ("...", "COMMAND"):
                return None
            return f"no command {words[0]!r} (in {parser.prog})"
        parser, words = sub, words[1:]
    options = {o: a for a in parser._actions for o in a.option_strings}
    for index, word in enumerate(words):
        if not word.startswith("-") or word in ("-", "--"):
            continue
        name = word.split("=", 1)[0]
        if name not in options:
            return f"{parser.prog} has no option {name}"
        action = options[name]
        value = word.split("=", 1)[1] if "=" in word else (words[index + 1 : index + 2] or [""])[0]
        placeholder = not value or value.isupper() or value.startswith(("<", "-")) or "..." in value
        if action.choices is not None and not placeholder and value not in action.choices:
            return f"{parser.prog} {name}: {value!r} is not one of {sorted(action.choices)}"
    return None


class _Refused(Exception):
    pass


def _strict(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Refuse instead of exiting; every value taken as text (``--seat N`` in a page is
    a placeholder, not a number)."""

    def refuse(message: str) -> NoReturn:
        raise _Refused(message)

    parser.error = refuse  # type: ignore[method-assign]  # patched on this one parser
    for action in parser._actions:
        action.type = None
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _strict(sub)
    return parser


def test_the_pages_show_commands() -> None:
    assert sum(whole for _, _, whole in DOCUMENTED) > 20  # a broken pattern would find none
    assert sum(not whole for _, _, whole in DOCUMENTED) > 40


@pytest.mark.parametrize(
    ("where", "argv", "whole"), DOCUMENTED, ids=[where for where, _, _ in DOCUMENTED]
)
def test_a_documented_command_exists(where: str, argv: list[str], whole: bool) -> None:
    wrong = problem(argv)
    assert wrong is None, f"{where}: arena {shlex.join(argv)}: {wrong}"
    if whole and "--help" not in argv and "-h" not in argv and "..." not in argv:
        try:
            _strict(build_parser()).parse_args(argv)
        except _Refused as refusal:
            pytest.fail(f"{where}: arena {shlex.join(argv)}: {refusal}")


def test_the_check_finds_what_is_gone() -> None:
    assert problem(["ladder", "run", "DB", "--matches", "3"]) is None
    assert problem(["serve-submissions", "DB"]) is not None  # a removed command
    assert problem(["ladder", "run", "DB", "--no-such-flag"]) is not None
    assert problem(["match", "a", "b", "--sandbox", "chroot"]) is not None  # not a choice
