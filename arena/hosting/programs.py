"""Whether a bot's command can run at all: its program exists, is executable, and names
a usable interpreter.  Checked before anything starts, so the user hears it in one
line rather than as a bot that exited at once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from arena.hosting.manifest import BotCommand

__all__ = ["build_hint", "program_problem"]

_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


def build_hint(command: BotCommand) -> str | None:
    """The command that builds a bot whose program is not there yet, or ``None``: ``make
    -C FOLDER`` where its program is a path in its working directory that does not
    exist and that folder has a Makefile (the Go and C++ starter kits).  The folder is
    shown relative to the current one when it is inside it."""
    if not command.argv or command.cwd is None:
        return None
    program = command.argv[0]
    if os.sep not in program or os.path.isabs(program):
        return None
    if os.path.lexists(command.cwd / program):
        return None
    if not any((command.cwd / name).is_file() for name in _MAKEFILES):
        return None
    folder = command.cwd.resolve()
    here = Path.cwd().resolve()
    shown = os.path.relpath(folder, here) if folder.is_relative_to(here) else str(folder)
    return f"make -C {shown}"


def program_problem(command: BotCommand) -> str | None:
    """Why ``command`` cannot run however often it is started (its program is missing,
    not executable, a script without a usable ``#!`` interpreter), or ``None``.

    Resolves the program as ``BotProcess.start`` does: against the bot's PATH, or its
    working directory for a path.
    """
    if not command.argv or not command.argv[0]:
        return "empty command"
    program = command.argv[0]
    path = command.env.get("PATH", os.environ.get("PATH", os.defpath))
    if os.sep in program:
        if not os.path.isabs(program) and command.cwd is None:
            return (
                f"program {program!r} is a relative path, but no working_directory is set "
                "(the bot starts in an empty folder)"
            )
        base = command.cwd.resolve() if command.cwd is not None else Path("/")
        found = base / program
        if not found.exists():
            hint = build_hint(command)
            built = f": build it first, {hint}" if hint else ""
            return f"program {program!r} does not exist ({found}){built}"
    else:
        which = shutil.which(program, path=path, mode=os.F_OK)
        if which is None:
            return f"program {program!r} not found on PATH={path}"
        found = Path(which)
    if found.is_dir():
        return f"program {program!r} is a directory ({found})"
    if not os.access(found, os.X_OK):
        return f"program {program!r} is not executable ({found}: chmod +x it)"
    try:
        with open(found, "rb") as file:
            head = file.read(_HEAD_BYTES)
    except OSError:
        return None  # executable but unreadable: the kernel may still run it
    return _interpreter_problem(program, head, path)


_HEAD_BYTES = 512
_TEXT = frozenset(b"\t\n\r" + bytes(range(32, 127)))


def _interpreter_problem(program: str, head: bytes, path: str) -> str | None:
    """A script's ``#!`` line names an interpreter that is missing; or a text file
    has no ``#!`` line at all (the kernel refuses to run it: no shell falls back)."""
    if not head.startswith(b"#!"):
        if head and all(byte in _TEXT for byte in head):
            return f"program {program!r} is a text file without a #! line naming its interpreter"
        if not head:
            return f"program {program!r} is an empty file"
        return None
    line = head[2:].split(b"\n", 1)[0].decode(errors="replace").strip()
    words = line.split()
    if not words:
        return f"program {program!r} has an empty #! line"
    interpreter = words[0]
    if os.path.isabs(interpreter) and not (
        os.path.isfile(interpreter) and os.access(interpreter, os.X_OK)
    ):
        return f"program {program!r} names the interpreter {interpreter!r} in its #! line, which does not exist or is not executable"
    if os.path.basename(interpreter) == "env":
        names = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        if names and shutil.which(names[0], path=path) is None:
            return (
                f"program {program!r} runs {names[0]!r} through #!{line}, not found on PATH={path}"
            )
    return None
