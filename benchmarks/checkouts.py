"""The other side of a before/after benchmark: an earlier commit's ``arena`` package,
unpacked from git into a scratch folder and byte-compiled as an install would be."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent


def checkout(commit: str, into: Path) -> Path:
    """``into/base-COMMIT`` holding that commit's ``arena`` (put it first on PYTHONPATH)."""
    archive = subprocess.run(
        ["git", "-C", str(TOP), "archive", commit, "arena"], capture_output=True, check=True
    ).stdout
    folder = into / f"base-{commit}"
    folder.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    compiled(folder)
    return folder


def compiled(folder: Path) -> None:
    """Byte-compile ``folder``'s ``arena`` as an install does: a machine that sets
    PYTHONDONTWRITEBYTECODE would otherwise compile every module in every process."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder / "arena")], check=True)
