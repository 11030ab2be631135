"""Reading TOML files (manifests, ladder configs) with errors that name file, line and field."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

__all__ = ["TomlDocument", "read_toml"]


class TomlDocument:
    """A parsed TOML file that can say on which line a field is."""

    def __init__(self, path: Path, text: str, data: dict[str, Any]) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.data = data

    def where(self, dotted: str) -> str:
        """``file:line`` of a field such as ``limits.memory_mb`` or ``bots[1].name``."""
        line = self.line_of(dotted)
        return f"{self.path}:{line}" if line is not None else str(self.path)

    def error(self, error: type[ValueError], dotted: str, problem: str) -> ValueError:
        return error(f"{self.where(dotted)}: field {dotted!r} {problem}")

    def line_of(self, dotted: str) -> int | None:
        """Best-effort 1-based line of ``dotted``; the table's header if the key is absent."""
        table = dotted.rpartition(".")[0]
        current = ""
        seen_arrays: dict[str, int] = {}
        header_line: int | None = None
        for number, raw in enumerate(self.lines, start=1):
            line = raw.strip()
            array = re.fullmatch(r"\[\[\s*([^\[\]]+?)\s*\]\]\s*(#.*)?", line)
            header = re.fullmatch(r"\[\s*([^\[\]]+?)\s*\]\s*(#.*)?", line)
            if array:
                name = array.group(1).replace('"', "").replace(" ", "")
                index = seen_arrays.get(name, -1) + 1
                seen_arrays[name] = index
                current = f"{name}[{index}]"
            elif header:
                current = header.group(1).replace('"', "").replace(" ", "")
            if array or header:
                if current == dotted:  # the field is this table: [match] or [[bots]]
                    return number
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
            if table and qualified == table:  # an inline table: limits = { ... }
                header_line = number
        return header_line


def read_toml(path: Path, error: type[ValueError], what: str) -> TomlDocument:
    """Parse the ``what`` (e.g. "manifest") at ``path``; unreadable or invalid TOML
    raises ``error`` naming file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: {what} is not valid UTF-8: {exc.reason}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's TOMLDecodeError has no lineno; the position is in the message.
        found = re.search(r"at line (\d+)", str(exc))
        line = int(found.group(1)) if found else max(1, len(text.splitlines()))
        raise error(f"{path}:{line}: invalid TOML: {exc}") from None
    return TomlDocument(path, text, data)
