"""Where a ladder's submissions live on disk: ``DB.data/`` beside the database.

``archives/SHA256/`` an accepted version: ``archive`` (as uploaded), ``bot.tar.gz`` (the
tree that was vetted, built and checked, packed) and ``bot/`` (unpacked from it), named by
``bot.tar.gz``'s SHA-256; ``staging/ID/`` a submission being checked (removed when its
check ends, and all of ``staging/`` when the server starts); ``submissions/ID/logs/`` its
check's logs, for its author.  Every folder is the server's own, mode 0700: bots reach
theirs only through the sandbox.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from arena.submissions.cleanup import remove_tree

__all__ = ["DataLayout"]


@dataclass(frozen=True)
class DataLayout:
    root: Path

    @classmethod
    def of(cls, db_path: Path) -> DataLayout:
        root = Path(f"{Path(db_path).resolve()}.data")
        layout = cls(root)
        for folder in (root, root / "archives", root / "staging", root / "submissions"):
            folder.mkdir(mode=0o700, exist_ok=True)
            os.chmod(folder, 0o700)
        return layout

    def archive(self, sha256: str) -> Path:
        return self.root / "archives" / sha256

    def staging(self, submission_id: int) -> Path:
        return self.root / "staging" / str(submission_id)

    def sweep_staging(self) -> int:
        """Remove everything in ``staging/`` (when the server starts, no check runs):
        what a server killed in a check left there.  Returns how many entries went."""
        swept = 0
        for entry in os.listdir(self.root / "staging"):
            remove_tree(self.root / "staging" / entry)
            swept += 1
        return swept

    def logs(self, submission_id: int) -> Path:
        return self.root / "submissions" / str(submission_id) / "logs"
