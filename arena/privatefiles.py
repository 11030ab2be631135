"""Files and folders only their owner can open: replays, ladder databases, bots' logs.

Bots run as other users (docs/SANDBOX.md), so owner-only modes keep them out of
what the referee writes: a replay names the cards played, a ladder's database holds
the secret its deals come from.  Modes are set explicitly rather than through the
umask, which is the whole process's and the user's to choose.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO

__all__ = ["FILE_MODE", "FOLDER_MODE", "make_private", "open_private", "private_folder"]

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def private_folder(path: Path) -> Path:
    """Create ``path`` and any missing parents, each owner-only; a folder that already
    exists keeps its mode (it may be the user's own, shared on purpose)."""
    missing: list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=FOLDER_MODE)
        except FileExistsError:  # made meanwhile by another process
            continue
        os.chmod(folder, FOLDER_MODE)  # mkdir's mode is filtered by the umask
    return path


def open_private(path: Path) -> IO[str]:
    """Open ``path`` for writing as text (created or truncated), owner-only.  A symlink
    there is refused: it could point the write elsewhere."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # an existing file keeps its old mode otherwise
        return os.fdopen(fd, "w", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def make_private(path: Path) -> None:
    """Make an existing file owner-only (if it exists)."""
    with contextlib.suppress(FileNotFoundError):
        os.chmod(path, FILE_MODE)
