"""A Python the bots' own uids can run, for Python bots outside bwrap under a root referee.

As root, bots run as uids of their own, and outside bwrap they reach their interpreter
with that uid's rights: a Python installed under root's home (mode 700, as pyenv puts
it) they cannot.  :func:`unprivileged_python` then makes (once) a virtual environment
from the system's Python of the same version that sees this environment's packages,
in the arena's own folder under /tmp (mode 0711, never anybody else's), and bots run on
that.  ``ARENA_BOT_PYTHON`` names another one.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from arena.hosting.identity import DEFAULT_SEAT_UIDS, path_problem

__all__ = ["unprivileged_python"]


def unprivileged_python(base: Path) -> str:
    """This interpreter if the bots' uids can run it, else one they can (made under
    ``base`` once); this interpreter again where the system has none of the version."""
    me = os.path.realpath(sys.executable)
    uid = DEFAULT_SEAT_UIDS[0]
    if os.geteuid() != 0 or path_problem(Path(me), uid, uid) is None:
        return sys.executable
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = shutil.which(version, path="/usr/bin:/usr/local/bin")
    if system is None or path_problem(Path(system), uid, uid) is not None:
        return sys.executable
    site = Path(sysconfig.get_paths()["purelib"])
    tag = hashlib.sha256(str(site).encode()).hexdigest()[:12]  # one per environment
    venv = base / f"python-{version}-{tag}"
    python = venv / "bin" / "python"
    if not python.exists():
        partial = Path(f"{venv}.{os.getpid()}")  # others may be making it at once
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run([system, "-m", "venv", "--without-pip", str(partial)], check=True)
        (partial / "lib" / version / "site-packages" / "arena_packages.pth").write_text(
            f"import site; site.addsitedir({str(site)!r})\n"
        )
        try:
            partial.rename(venv)
        except OSError:  # another process made it first
            shutil.rmtree(partial, ignore_errors=True)
    return str(python)
