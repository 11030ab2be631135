"""``--in-process`` for a Python manifest bot: its script imported into the referee's
process (to step through it in a debugger), where that can be done faithfully.

It can when the manifest runs the arena's own Python (``{python}``) on one ``.py``
file with no arguments, the script serves its bot only under
``if __name__ == "__main__":``, and it defines exactly one ``arena.sdk.Bot`` subclass,
made with no arguments.  Otherwise ``InProcessRefused`` says which of these fails: the
user asked for the referee's process, and silently running the bot in a sandbox instead
would hide the bot from their debugger.  The user's own command only: a ladder never
runs a manifest in-process.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

from arena.hosting.errors import HostingError
from arena.hosting.manifest import BotCommand, bot_python
from arena.sdk import Bot

__all__ = ["InProcessRefused", "load_manifest_bot"]


class InProcessRefused(HostingError, ValueError):
    """A manifest bot that cannot run in the referee's process; says why."""


def load_manifest_bot(command: BotCommand, manifest: Path) -> Bot[Any, Any]:
    """The bot a ``{python} SCRIPT.py`` manifest serves, made in this process."""
    refuse = f"--in-process: {manifest} cannot run in the referee's process"
    argv = command.argv
    if argv[0] != bot_python():
        raise InProcessRefused(
            f"{refuse}: its command runs {argv[0]}, not the arena's Python "
            f'(command = ["{{python}}", "bot.py"]); run it without --in-process'
        )
    if len(argv) != 2 or not argv[1].endswith(".py"):
        raise InProcessRefused(
            f"{refuse}: its command is not one .py file without arguments "
            f"({' '.join(argv[1:]) or 'no script'}); run it without --in-process"
        )
    folder = command.cwd or manifest.parent
    script = (folder / argv[1]).resolve()
    if not script.is_file():
        raise InProcessRefused(f"{refuse}: its script {script} does not exist")
    source = script.read_text(encoding="utf-8", errors="replace")
    if _serves_at_import(source):
        raise InProcessRefused(
            f"{refuse}: {script.name} calls serve() when imported; put the call under "
            '`if __name__ == "__main__":`'
        )
    if str(script.parent) not in sys.path:
        sys.path.insert(0, str(script.parent))  # the script's own modules import as they would
    spec = importlib.util.spec_from_file_location(f"arena_in_process_{command.name}", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bots = [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, Bot)
        and value.__module__ == module.__name__
        and not inspect.isabstract(value)
    ]
    if len(bots) != 1:
        found = ", ".join(sorted(bot.__name__ for bot in bots)) or "none"
        raise InProcessRefused(
            f"{refuse}: {script.name} must define exactly one Bot subclass (found: {found})"
        )
    try:
        return bots[0]()
    except TypeError as error:
        raise InProcessRefused(
            f"{refuse}: {bots[0].__name__}() cannot be made without arguments: {error}"
        ) from None


def _serves_at_import(source: str) -> bool:
    """Whether the script's top level (outside ``if`` blocks) calls ``serve``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False  # importing it will say what is wrong
    for statement in tree.body:
        if isinstance(statement, ast.If):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Call):
                called = node.func
                name = (
                    called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
                )
                if name == "serve":
                    return True
    return False
