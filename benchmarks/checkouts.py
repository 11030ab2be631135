"""The other side of a before/after benchmark: an earlier commit's ``arena`` package,
unpacked from git into a scratch folder and byte-compiled as an install would be; and a
ladder run with a given checkout's ``arena``."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class LadderRun:
    played: int  # matches played
    seconds: float  # wall time of ``arena ladder run``
    stdout: str
    stderr: str


def run_ladder(
    code: Path,
    config: Callable[[Path], str],
    scratch: Path,
    *,
    options: Sequence[str] = (),
    wrapper: Sequence[str] = (),
) -> LadderRun:
    """Create a ladder from the TOML ``config(folder)`` gives and run it with ``code``'s arena
    (``arena ladder run DB --quiet OPTIONS``, started through ``wrapper`` if given), in a
    folder of ``scratch`` removed afterwards; exits naming the checkout if it fails."""
    folder = Path(tempfile.mkdtemp(dir=scratch))
    (folder / "ladder.toml").write_text(config(folder))
    env = {**os.environ, "PYTHONPATH": str(code)}
    arena = [sys.executable, "-m", "arena.cli.main"]
    database = str(folder / "ladder.sqlite")
    subprocess.run(
        [*arena, "ladder", "create", str(folder / "ladder.toml"), "--db", database],
        env=env, cwd=code, check=True, capture_output=True,
    )  # fmt: skip
    started = time.perf_counter()
    ran = subprocess.run(
        [*wrapper, *arena, "ladder", "run", database, "--quiet", *options],
        env=env, cwd=code, capture_output=True, text=True,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    shutil.rmtree(folder, ignore_errors=True)
    if ran.returncode != 0:
        sys.exit(f"ladder run failed ({code}): {ran.stderr.strip()[-800:]}")
    played = int(ran.stderr.split(" match")[0].split()[-1])  # "12 matches played ..."
    return LadderRun(played, seconds, ran.stdout, ran.stderr)
