"""What the check of one submission found, step by step, as its author reads it.

Filled in as the pipeline goes (a rejection keeps what was found up to the step that
failed) and stored as JSON with the submission (with the version and ladder name it was
accepted as); the author's page and ``arena submit
--wait`` show it.  No field holds a server path: the check's logs are read through the
web page.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from arena.conformance.report import CheckReport
from arena.submissions.build import BuildResult

__all__ = ["ArchiveFacts", "SubmissionReport"]


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
        return data
