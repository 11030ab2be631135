"""An interpreter the bots' own uids can run, for tests and benchmarks run as root.

As root, bots run as uids of their own, and outside bwrap they must reach their
interpreter with that uid's rights; a Python installed under root's home (mode 700)
they cannot.  :func:`unprivileged_python` then makes (once) a virtual environment from
the system's Python of the same version that sees this environment's packages: what
the README tells an operator to point ``ARENA_BOT_PYTHON`` at.
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


def unprivileged_python() -> str:
    """This interpreter if the bots' uids can run it, else one they can; this
    interpreter again where the system has none of the same version."""
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
    venv = Path(f"/tmp/rummy-arena-bot-python-{version}-{tag}")
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([system, "-m", "venv", "--without-pip", str(venv)], check=True)
        (venv / "lib" / version / "site-packages" / "arena_packages.pth").write_text(
            f"import site; site.addsitedir({str(site)!r})\n"
        )
    return str(python)
