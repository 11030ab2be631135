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

The same allow-list is one :class:`Jail` value whichever mechanism enforces it: bwrap
builds a new root from it; at ``limits`` Landlock allows exactly its paths on the host's
own tree (:func:`landlock_paths`), with a private tmp folder in place of ``/tmp``.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEVICES",
    "ETC_FILES",
    "SYSTEM_DIRS",
    "Jail",
    "landlock_paths",
    "python_import_roots",
    "runtime_paths",
    "system_binds",
]

#: The system runtime every bot gets, read-only (links are recreated as links).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: The /etc entries a program may need to start: the dynamic linker's cache and
#: configuration, name-service switch, time zone, hosts, the alternatives links,
#: OpenSSL's configuration (Node.js will not start without reading it).
ETC_FILES = (
    "ssl/openssl.cnf",
    "ssl/certs",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "nsswitch.conf",
    "localtime",
    "hosts",
    "alternatives",
)


#: The devices a bot may open (read and write) at ``limits``; bwrap gives the same set
#: in its own ``/dev``.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


@dataclass(frozen=True)
class Jail:
    """What one confined bot may reach beyond the system runtime: ``read_only`` paths
    (its runtime, its own folder, its manifest's extra paths), ``writable`` ones (its
    work dir and socket dir) and ``tmp``, its private tmp folder at ``limits`` (bwrap
    mounts a private tmpfs at ``/tmp`` instead)."""

    read_only: tuple[Path, ...]
    writable: tuple[Path, ...]
    tmp: Path | None = None

    def __post_init__(self) -> None:
        for path in (*self.read_only, *self.writable):
            if not path.is_absolute():
                raise ValueError(f"a jail's paths must be absolute, not {str(path)!r}")


def landlock_paths(jail: Jail) -> list[tuple[str, str]]:
    """The ``(kind, path)`` rules Landlock enforces for ``jail`` (kinds as
    :mod:`arena.hosting.confine` reads them: ``ro``, ``rw``, ``dev``), existing paths only:
    the system runtime and the /etc entries bwrap binds, the allowed devices, the bot's
    own ``/proc/PID``, then the jail's own paths."""
    rules: list[tuple[str, str]] = []
    for top in SYSTEM_DIRS:
        if Path(top).is_dir() and not Path(top).is_symlink():
            rules.append(("ro", top))  # a link such as /lib -> usr/lib is inside /usr
    for name in ETC_FILES:
        if Path("/etc", name).exists():
            rules.append(("ro", f"/etc/{name}"))
    rules += [("dev", device) for device in DEVICES if Path(device).exists()]
    # Its own /proc/PID (the launcher's pid is the bot's after the exec), as bwrap's
    # private /proc shows; not the host's /proc, where every process's command line is.
    rules.append(("ro", "/proc/self"))
    rules += [("ro", str(path)) for path in dict.fromkeys(jail.read_only) if path.exists()]
    writable = [*jail.writable, *([jail.tmp] if jail.tmp is not None else [])]
    rules += [("rw", str(path)) for path in dict.fromkeys(writable) if path.exists()]
    return rules


def system_binds() -> list[str]:
    """bwrap arguments for the system runtime and the allowed /etc entries."""
    args: list[str] = []
    for top in SYSTEM_DIRS:
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    made = {Path("/")}
    for name in ETC_FILES:
        path = Path("/etc", name)
        if not path.exists():
            continue
        for folder in reversed(path.parents):
            if folder not in made:  # made searchable: bwrap would make them root-only
                args += ["--perms", "0755", "--dir", str(folder)]
                made.add(folder)
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
    if found is None or not os.path.exists(found):
        return []
    needed: list[Path] = []
    for candidate in dict.fromkeys([Path(os.path.abspath(found)), Path(found).resolve()]):
        if _is_system(candidate):
            continue
        venv = candidate.parent.parent
        config = venv / "pyvenv.cfg"
        if config.is_file():
            needed.append(venv)
            needed += _editable_sources(venv)
            home = _venv_home(config)
            if home is not None and not _is_system(home):
                needed.append(home.parent)  # the base Python's prefix: its stdlib
                needed.append(home.resolve().parent)
        elif candidate.name.startswith("python") and candidate.parent.name == "bin":
            needed.append(candidate.parent.parent)  # the stdlib lives beside bin/
        else:
            needed.append(candidate)
    return list(dict.fromkeys(needed))


def _editable_sources(venv: Path) -> list[Path]:
    """Folders outside a virtual environment that it imports from: packages installed
    in development mode (``pip install -e``) live in their checkout, and are part of
    the environment's runtime.  Read from ``*.pth`` path lines, setuptools'
    ``__editable__`` finders' ``MAPPING``, and ``site.addsitedir`` lines (the bots' copy
    of the arena's Python, :mod:`arena.hosting.shared_python`, sees the arena's
    packages that way), whose site folders are read the same way in turn."""
    found: set[Path] = set()
    sites = list(venv.glob("lib/python*/site-packages"))
    seen: set[Path] = set()
    while sites:
        site = sites.pop()
        if site in seen:
            continue
        seen.add(site)
        for pth in site.glob("*.pth"):
            for line in pth.read_text(errors="replace").splitlines():
                if line.startswith("/") and Path(line.strip()).is_dir():
                    found.add(Path(line.strip()))
                elif line.startswith("import") and "addsitedir" in line:
                    added = [Path(a or b) for a, b in _QUOTED.findall(line)]
                    found.update(added)
                    sites += [path for path in added if path.is_dir()]
        for finder in site.glob("__editable__*finder.py"):
            for line in finder.read_text(errors="replace").splitlines():
                if line.startswith("MAPPING"):
                    found.update(Path(a or b) for a, b in _QUOTED.findall(line))
    return sorted(path for path in found if path.exists())


_QUOTED = re.compile(r"'(/[^']*)'|\"(/[^\"]*)\"")


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
