"""What a sandboxed bot may see of the host's filesystem: an allow-list, not the host's ``/``.

Under bwrap a bot's root is empty but for:

* the read-only system runtime: ``/usr`` and the ``/bin``, ``/sbin``, ``/lib*`` links or
  folders beside it, and the few ``/etc`` files programs need to start
  (:data:`ETC_FILES`; ``/etc/passwd`` and ``/etc/group`` are written for the sandbox and
  name only the bot's own user);
* the runtime its command resolves to (:func:`runtime_paths`): for a virtual
  environment, the environment and the Python it was made from;
* for a registered Python bot, the packages its process imports (:func:`python_import_roots`);
* its own folder and any extra read-only paths its manifest names;
* its own writable work dir, socket dir and a private ``/tmp``, ``/proc`` and ``/dev``.

No other bot's folders, sockets or logs, no replays, ladder databases or configs, no
referee files and no home directories are in it.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

__all__ = ["ETC_FILES", "SYSTEM_DIRS", "python_import_roots", "runtime_paths", "system_binds"]

#: The system runtime every bot gets, read-only (links are recreated as links).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: The /etc entries a program may need to start: the dynamic linker's cache and
#: configuration, name-service switch, time zone, hosts, the alternatives links, and
#: OpenSSL's configuration and CA certificates (Node.js will not start without the
#: first); not /etc/ssl/private.
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "nsswitch.conf",
    "localtime",
    "hosts",
    "alternatives",
    "ssl/openssl.cnf",
    "ssl/certs",
)


def system_binds() -> list[str]:
    """bwrap arguments for the system runtime and the allowed /etc entries."""
    args: list[str] = []
    for top in SYSTEM_DIRS:
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    # Made explicitly searchable: bwrap would create it 0700 for its binds below, and a
    # bot that has dropped to its own uid could then read none of them.
    args += ["--perms", "0755", "--dir", "/etc"]
    made = set()
    for name in ETC_FILES:
        path = Path("/etc", name)
        if path.exists():
            if path.parent != Path("/etc") and path.parent not in made:  # e.g. /etc/ssl
                args += ["--perms", "0755", "--dir", str(path.parent)]
                made.add(path.parent)
            args += ["--ro-bind", str(path), str(path)]
    return args


def _is_system(path: Path) -> bool:
    return any(path.is_relative_to(top) for top in SYSTEM_DIRS)


def runtime_paths(program: str, cwd: Path, search_path: str) -> list[Path]:
    """The folders outside the system runtime that ``program`` needs to run.

    A program inside a virtual environment needs the environment and the Python it
    was made from (``home`` in ``pyvenv.cfg``); a Python interpreter installed under
    some prefix needs that prefix (its standard library); any other program outside
    the system folders needs itself.  Paths are given both as named and resolved, so
    links keep working inside the sandbox.
    """
    found = (cwd / program) if os.sep in program else shutil.which(program, path=search_path)
    if found is None:
        return []
    needed: list[Path] = []
    for candidate in dict.fromkeys([Path(os.path.abspath(found)), Path(found).resolve()]):
        if _is_system(candidate):
            continue
        venv = candidate.parent.parent
        config = venv / "pyvenv.cfg"
        if config.is_file():
            needed.append(venv)
            home = _venv_home(config)
            if home is not None and not _is_system(home):
                needed.append(home.parent)  # the base Python's prefix: its stdlib
                needed.append(home.resolve().parent)
        elif candidate.name.startswith("python") and candidate.parent.name == "bin":
            needed.append(candidate.parent.parent)  # the stdlib lives beside bin/
        else:
            needed.append(candidate)
    return needed


def _venv_home(config: Path) -> Path | None:
    for line in config.read_text(errors="replace").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home":
            return Path(value.strip())
    return None


def python_import_roots() -> list[Path]:
    """Where the modules this process has imported live: its Python prefixes (the
    environment and the Python it was made from), and outside them the top-level
    package folder (or single module file) of each.

    A registered Python bot runs the same packages as the referee (the arena, the
    plugins that registered it), often from a source checkout (an editable install),
    so those folders are bound read-only; the checkout around them is not.
    """
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    inside = tuple(prefix.rstrip(os.sep) + os.sep for prefix in prefixes)
    roots: set[str] = set()
    for top in {name.partition(".")[0] for name in list(sys.modules)}:
        if top not in _locations:  # where a package lives does not change: look once
            _locations[top] = _where(sys.modules.get(top))
        roots.update(path for path in _locations[top] if not path.startswith(inside))
    return sorted(Path(path) for path in roots | prefixes)


_locations: dict[str, list[str]] = {}


def _where(module: object) -> list[str]:
    file = getattr(module, "__file__", None)
    if file:
        path = os.path.realpath(file)
        package = os.path.basename(path).startswith("__init__.")  # .py, .pyc or compiled
        return [os.path.dirname(path) if package else path]
    # A namespace package: every folder it spans.
    return [os.path.realpath(entry) for entry in getattr(module, "__path__", None) or ()]
