"""Bot manifests: a small TOML file saying how to start a bot.

```toml
name = "greedy-gin"                 # required, [A-Za-z0-9._-]+
command = "{python} bot.py --fast"  # required: a shell-like string (shlex.split) or a list
working_directory = "."             # optional, relative to this file's folder (default: ".")
[limits]                            # optional, any of the Limits fields
memory_mb = 1024
[env]                               # optional, extra environment variables
GREEDY_DEPTH = "3"
[sandbox]                           # optional
read_only = ["/opt/models"]         # more paths it may read under bwrap (relative: to this file)
```

A bot starts in its manifest's folder unless ``working_directory`` names another
(its writable folder is ``$HOME``).  ``{python}`` as the program is the interpreter the
arena serves its own Python bots with (``ARENA_BOT_PYTHON``, else the arena's own), so
a Python bot using ``arena.sdk`` needs no activated virtual environment.

A submitted bot's manifest may also say ``build = "go build -o bot ."``: the arena runs it
once, sandboxed, when the bot is submitted (:mod:`arena.submissions`); starting a bot
ignores it.

Before TOML sees it, a manifest is bounded: at most :data:`MAX_MANIFEST_BYTES` bytes and
:data:`MAX_MANIFEST_NESTING` levels of arrays and inline tables (a manifest needs two;
a file of 100,000 ``[`` would otherwise take the parser's recursion down).  The file is
read once: the bytes bounded are the bytes parsed.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from arena.hosting.errors import ManifestError
from arena.hosting.limits import Limits
from arena.tomlfile import TomlDocument

__all__ = [
    "BOT_PYTHON_ENV",
    "MAX_MANIFEST_BYTES",
    "MAX_MANIFEST_NESTING",
    "PYTHON_PLACEHOLDER",
    "RESERVED_ENV_PREFIX",
    "BotCommand",
    "bot_python",
    "load_manifest",
    "manifest_command",
    "read_manifest_document",
    "toml_nesting",
]

#: The program name that stands for the arena's Python (see the module docstring).
PYTHON_PLACEHOLDER = "{python}"
#: The interpreter that serves Python bots instead of the arena's own: a root
#: referee's bots run as unprivileged uids, which outside bwrap must be able to reach
#: it (a Python under root's home, mode 700, they cannot).
BOT_PYTHON_ENV = "ARENA_BOT_PYTHON"


def bot_python() -> str:
    """The interpreter Python bots run on: ``ARENA_BOT_PYTHON``, else the arena's own."""
    return os.environ.get(BOT_PYTHON_ENV) or sys.executable


#: Variables with this prefix are set by the arena and cannot come from a manifest.
RESERVED_ENV_PREFIX = "ARENA_"

#: A manifest's size and nesting, checked before the TOML parser sees it.
MAX_MANIFEST_BYTES = 64 * 1024
MAX_MANIFEST_NESTING = 32

_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOP_LEVEL = ("name", "command", "working_directory", "limits", "env", "sandbox", "build")
_LIMIT_FIELDS = tuple(f.name for f in fields(Limits))


@dataclass(frozen=True)
class BotCommand:
    """Everything needed to start one bot process.

    ``cwd`` is the bot's working directory (``None``: a fresh empty directory per
    run); ``env`` holds only the extra variables, the arena supplies the rest;
    ``source`` says where the command came from, for error messages;
    ``read_only_paths`` are folders the bot must be able to read even where the
    sandbox hides them (e.g. a Python bot's import path under /tmp).
    """

    name: str
    argv: tuple[str, ...]
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    source: str = "<code>"
    read_only_paths: tuple[Path, ...] = ()


def load_manifest(path: Path) -> BotCommand:
    """Read and validate the manifest at ``path``.

    Raises :class:`ManifestError` naming the file, the field and (when it can be
    found) the line of the first problem.
    """
    return manifest_command(read_manifest_document(path))


def manifest_command(document: TomlDocument) -> BotCommand:
    """The command a parsed manifest describes (ManifestError at its first problem)."""
    return _Reader(document).command(document.data)


def read_manifest_document(path: Path) -> TomlDocument:
    """The manifest at ``path`` parsed, not yet validated (see :func:`manifest_command`):
    bounded in size and nesting first, read once, so the bytes bounded are those parsed."""
    path = Path(path)
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read manifest: {exc.strerror}") from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise ManifestError(
            f"{path}: a manifest of more than {MAX_MANIFEST_BYTES // 1024} KiB "
            "(it says how to start a bot: a few lines)"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{path}: manifest is not valid UTF-8: {exc.reason}") from None
    depth = toml_nesting(text)
    if depth > MAX_MANIFEST_NESTING:
        raise ManifestError(
            f"{path}: arrays or inline tables nested {depth} deep, more than "
            f"{MAX_MANIFEST_NESTING} (a manifest needs two)"
        )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's TOMLDecodeError has no lineno; the position is in the message.
        found = re.search(r"at line (\d+)", str(exc))
        line = int(found.group(1)) if found else len(text.splitlines())  # at its end
        raise ManifestError(f"{path}:{line}: invalid TOML: {exc}") from None
    return TomlDocument(path, text, data)


def toml_nesting(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in TOML ``text``, outside strings and
    comments, as the parser would meet it: never less (a closing bracket inside a
    string does not count), so a text within the bound is within it for the parser."""
    depth = deepest = 0
    at = 0
    end = len(text)
    while at < end:
        char = text[at]
        if char == "#":
            newline = text.find("\n", at)
            at = end if newline < 0 else newline
        elif char in "\"'":
            at = _string_end(text, at)
            continue
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(depth - 1, 0)
        at += 1
    return deepest


def _string_end(text: str, at: int) -> int:
    """Where the TOML string starting at ``at`` ends (just past its closing quotes);
    the end of ``text`` if it does not."""
    quote = text[at]
    escapes = quote == '"'
    if text.startswith(quote * 3, at):
        at += 3
        while at < len(text):
            if escapes and text[at] == "\\":
                at += 2
            elif text.startswith(quote * 3, at):
                at += 3
                for _ in range(2):  # up to two more quotes belong to the string
                    if text.startswith(quote, at):
                        at += 1
                return at
            else:
                at += 1
        return at
    at += 1
    while at < len(text) and text[at] not in (quote, "\n"):
        at += 2 if escapes and text[at] == "\\" else 1
    return at + 1


class _Reader:
    """Validates parsed TOML, turning each problem into a located ManifestError."""

    def __init__(self, document: TomlDocument) -> None:
        self.document = document
        self.path = document.path

    def error(self, key: str, problem: str) -> ManifestError:
        return ManifestError(f"{self.document.where(key)}: field {key!r} {problem}")

    def command(self, data: Mapping[str, object]) -> BotCommand:
        for key in data:
            if key not in _TOP_LEVEL:
                raise self.error(
                    key, f"is not a manifest field (expected one of {', '.join(_TOP_LEVEL)})"
                )
        return BotCommand(
            name=self.name(data),
            argv=self.argv(data),
            cwd=self.working_directory(data),
            env=self.env(data),
            limits=self.limits(data),
            source=str(self.path),
            read_only_paths=self.read_only(data) + self.python_packages(data),
        )

    def name(self, data: Mapping[str, object]) -> str:
        if "name" not in data:
            raise ManifestError(f"{self.path}: missing required field 'name'")
        name = data["name"]
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise self.error(
                "name", f"must be 1-64 characters from A-Z a-z 0-9 . _ -, got {name!r}"
            )
        return name

    def argv(self, data: Mapping[str, object]) -> tuple[str, ...]:
        if "command" not in data:
            raise ManifestError(f"{self.path}: missing required field 'command'")
        command = data["command"]
        if isinstance(command, str):
            try:
                argv = shlex.split(command)
            except ValueError as exc:
                raise self.error("command", f"cannot be split into words: {exc}") from exc
        elif isinstance(command, list) and all(isinstance(word, str) for word in command):
            argv = list(command)
        else:
            raise self.error("command", f"must be a string or a list of strings, got {command!r}")
        if not argv or not argv[0]:
            raise self.error("command", "must name a program to run")
        if argv[0] == PYTHON_PLACEHOLDER:
            argv[0] = bot_python()
        return tuple(argv)

    def working_directory(self, data: Mapping[str, object]) -> Path:
        if "working_directory" not in data:
            return self.path.parent.resolve()
        value = data["working_directory"]
        if not isinstance(value, str) or not value:
            raise self.error("working_directory", f"must be a non-empty string, got {value!r}")
        directory = (self.path.parent / value).resolve()
        if directory == Path("/"):  # the sandbox would show it the whole filesystem
            raise self.error("working_directory", f"must not be the root folder, got {value!r}")
        if not directory.is_dir():
            raise self.error(
                "working_directory", f"must be an existing directory, got {value!r} ({directory})"
            )
        return directory

    def limits(self, data: Mapping[str, object]) -> Limits:
        table = data.get("limits", {})
        if not isinstance(table, dict):
            raise self.error("limits", f"must be a table, got {table!r}")
        values: dict[str, int] = {}
        for key, value in table.items():
            if key not in _LIMIT_FIELDS:
                raise self.error(
                    f"limits.{key}",
                    f"is not a known limit (expected one of {', '.join(_LIMIT_FIELDS)})",
                )
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise self.error(f"limits.{key}", f"must be a positive integer, got {value!r}")
            values[key] = value
        return Limits(**values)

    def python_packages(self, data: Mapping[str, object]) -> tuple[Path, ...]:
        """A ``{python}`` bot may import the arena (its SDK): bind its package too."""
        command = data["command"]
        first = command[0] if isinstance(command, list) and command else str(command).split()[0]
        if first != PYTHON_PLACEHOLDER:
            return ()
        import arena

        return (Path(arena.__file__).resolve().parent,)

    def read_only(self, data: Mapping[str, object]) -> tuple[Path, ...]:
        table = data.get("sandbox", {})
        if not isinstance(table, dict):
            raise self.error("sandbox", f"must be a table, got {table!r}")
        for key in table:
            if key != "read_only":
                raise self.error(f"sandbox.{key}", "is not a sandbox setting (expected read_only)")
        paths = table.get("read_only", [])
        if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
            raise self.error("sandbox.read_only", f"must be a list of paths, got {paths!r}")
        resolved = []
        for text in paths:
            path = (self.path.parent / text).resolve()
            if not path.exists():
                raise self.error(
                    "sandbox.read_only", f"names {text!r}, which does not exist ({path})"
                )
            resolved.append(path)
        return tuple(resolved)

    def env(self, data: Mapping[str, object]) -> dict[str, str]:
        table = data.get("env", {})
        if not isinstance(table, dict):
            raise self.error("env", f"must be a table, got {table!r}")
        env: dict[str, str] = {}
        for key, value in table.items():
            if not _ENV_NAME.fullmatch(key):
                raise self.error(f"env.{key}", "is not a valid environment variable name")
            if key.startswith(RESERVED_ENV_PREFIX):
                raise self.error(
                    f"env.{key}",
                    f"is reserved: variables starting with {RESERVED_ENV_PREFIX} are set by the arena",
                )
            if not isinstance(value, str):
                raise self.error(f"env.{key}", f"must be a string, got {value!r}")
            env[key] = value
        return env
