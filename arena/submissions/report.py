"""What the check of one submission found, step by step, as its author reads it.

Filled in as the pipeline goes (a rejection keeps what was found up to the step that
failed) and stored as JSON with the submission (with the version and ladder name it was
accepted as); the author's page and ``arena submit
--wait`` show it.  No field holds a server path: the check's logs are read through the
web page, and every text a step produced (a build's output, a check's details, the
command the arena resolved) goes through a :class:`HostPaths` that turns the server's
folders into the submission's own terms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.conformance.report import CheckReport
from arena.submissions.build import BuildResult

__all__ = ["ArchiveFacts", "HostPaths", "SubmissionReport"]

# A temporary folder's path (a bot's socket or tmp folder, a build's), whatever follows.
_TEMPORARY = re.compile(r"/tmp/[^\s'\"),;:]*")


@dataclass(frozen=True)
class HostPaths:
    """The server's paths a submission's texts may hold, each with what its author
    reads instead: the submission's own folder becomes relative paths, the rest a
    name in parentheses.  Longer paths are replaced first."""

    pairs: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, pairs: Iterable[tuple[Path | str, str]]) -> HostPaths:
        """``pairs`` of a server path and its replacement; each path is also taken as
        it resolves (through links), and with a trailing ``/`` to leave a relative path."""
        found: dict[str, str] = {}
        for path, shown in pairs:
            for form in {str(path), str(Path(path).resolve())}:
                if len(form) > 1:
                    found.setdefault(form + "/", "" if shown == "." else f"{shown}/")
                    found.setdefault(form, shown)
        return cls(tuple(sorted(found.items(), key=lambda pair: -len(pair[0]))))

    def __call__(self, text: str) -> str:
        for path, shown in self.pairs:
            text = text.replace(path, shown)
        return _TEMPORARY.sub("(a temporary folder)", text)

    def json(self, value: Any) -> Any:
        """``value`` (JSON: dicts, lists, strings...) with every string gone through."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, list):
            return [self.json(item) for item in value]
        if isinstance(value, dict):
            return {key: self.json(item) for key, item in value.items()}
        return value


@dataclass(frozen=True)
class ArchiveFacts:
    sha256: str
    files: int
    bytes: int


@dataclass
class SubmissionReport:
    archive: ArchiveFacts | None = None
    manifest_name: str | None = None
    command: tuple[str, ...] = ()
    build: BuildResult | None = None
    stored_sha256: str | None = None
    check: CheckReport | None = None
    check_file: str = "bot.toml"  # the manifest the check ran, inside the submission
    host_paths: HostPaths = field(default_factory=HostPaths)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.archive is not None:
            archive = self.archive
            data["archive"] = {
                "sha256": archive.sha256,
                "files": archive.files,
                "bytes": archive.bytes,
            }
        if self.manifest_name is not None:
            data["manifest"] = {"name": self.manifest_name, "command": list(self.command)}
        if self.build is not None:
            data["build"] = self.build.to_json()
        if self.stored_sha256 is not None:
            data["stored"] = {"sha256": self.stored_sha256}
        if self.check is not None:
            # The submission's own file, not the server's path; no log folder either.
            data["check"] = replace(self.check, bot=self.check_file, logs=None).to_json()
        scrubbed: dict[str, Any] = self.host_paths.json(data)
        return scrubbed
