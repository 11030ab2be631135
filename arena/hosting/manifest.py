"""Bot manifests: a small TOML file saying how to start a bot.

```toml
name = "greedy-gin"                 # required, [A-Za-z0-9._-]+
command = "python bot.py --fast"    # required: a shell-like string (shlex.split) or a list
working_directory = "."             # optional, relative to this file's folder
[limits]                            # optional, any of the Limits fields
memory_mb = 1024
[env]                               # optional, extra environment variables
GREEDY_DEPTH = "3"
```

Without ``working_directory`` a bot starts in an empty temporary directory, so a
command that names files next to the manifest needs ``working_directory = "."``.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from arena.hosting.errors import ManifestError
from arena.hosting.limits import Limits

__all__ = ["RESERVED_ENV_PREFIX", "BotCommand", "load_manifest"]

#: Variables with this prefix are set by the arena and cannot come from a manifest.
RESERVED_ENV_PREFIX = "ARENA_"

_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOP_LEVEL = ("name", "command", "working_directory", "limits", "env")
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
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read manifest: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{path}: manifest is not valid UTF-8: {exc}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}:{_toml_error_line(exc, text)}: invalid TOML: {exc}") from exc
    return _Reader(path, text).command(data)


class _Reader:
    """Validates parsed TOML, turning each problem into a located ManifestError."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def error(self, key: str, problem: str) -> ManifestError:
        line = _find_key_line(self.lines, key)
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        return ManifestError(f"{where}: field {key!r} {problem}")

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
        return tuple(argv)

    def working_directory(self, data: Mapping[str, object]) -> Path | None:
        if "working_directory" not in data:
            return None
        value = data["working_directory"]
        if not isinstance(value, str) or not value:
            raise self.error("working_directory", f"must be a non-empty string, got {value!r}")
        directory = (self.path.parent / value).resolve()
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


def _toml_error_line(exc: tomllib.TOMLDecodeError, text: str) -> int:
    # Python 3.11's TOMLDecodeError has no lineno attribute; the position is in the message.
    match = re.search(r"at line (\d+)", str(exc))
    if match:
        return int(match.group(1))
    return max(1, len(text.splitlines()))  # "at end of document"


def _find_key_line(lines: list[str], dotted: str) -> int | None:
    """Best-effort line number (1-based) of ``dotted`` ("name" or "limits.memory_mb")."""
    table = dotted.rpartition(".")[0]
    current = ""
    header_line: int | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        header = re.fullmatch(r"\[\s*([^\[\]]+?)\s*\]\s*(#.*)?", line)
        if header:
            current = header.group(1).replace('"', "").replace(" ", "")
            if current == table:
                header_line = number
            continue
        assignment = re.match(r'("?)([A-Za-z0-9_.\- "]+?)\1\s*=', line)
        if not assignment:
            continue
        name = assignment.group(2).replace('"', "").replace(" ", "")
        qualified = f"{current}.{name}" if current else name
        if qualified == dotted:
            return number
        if table and qualified == table:  # inline table: limits = { ... }
            header_line = number
    return header_line
