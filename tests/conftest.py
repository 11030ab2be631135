"""Session-wide settings for the tests.

With ``ARENA_EXPECT_COMPILED=FILE`` (make test's pass over ``build/compiled``), the
modules listed in FILE must be the compiled ones: a pass that quietly imported the
pure modules again would prove nothing.

As root, bots run as uids of their own, and outside bwrap they must be able to reach
their interpreter; this machine's Python may live under root's home (mode 700).  Then
:data:`BOT_PYTHON` is a virtual environment made from the system's Python of the same
version that sees this environment's packages, and registered Python bots are served
by it (``ARENA_BOT_PYTHON``), as the README tells an operator to do.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from arena.hosting.identity import DEFAULT_SEAT_UIDS, path_problem


def _bot_python() -> str:
    me = os.path.realpath(sys.executable)
    uid = DEFAULT_SEAT_UIDS[0]
    if os.geteuid() != 0 or path_problem(Path(me), uid, uid) is None:
        return sys.executable
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = shutil.which(version, path="/usr/bin:/usr/local/bin")
    if system is None or path_problem(Path(system), uid, uid) is not None:
        return sys.executable  # the tests that need it skip, saying why
    venv = Path(f"/tmp/rummy-arena-test-python-{version}")
    site = Path(sysconfig.get_paths()["purelib"])
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([system, "-m", "venv", "--without-pip", str(venv)], check=True)
        (venv / "lib" / version / "site-packages" / "arena_tests.pth").write_text(
            f"import site; site.addsitedir({str(site)!r})\n"
        )
    return str(python)


BOT_PYTHON = _bot_python()
os.environ.setdefault("ARENA_BOT_PYTHON", BOT_PYTHON)


def pytest_configure(config: pytest.Config) -> None:
    listing = os.environ.get("ARENA_EXPECT_COMPILED")
    if not listing:
        return
    for name in Path(listing).read_text().split():
        origin = importlib.import_module(name).__file__ or ""
        if not origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            raise pytest.UsageError(f"{name} is not the compiled module: it came from {origin}")
