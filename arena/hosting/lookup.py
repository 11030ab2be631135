"""Finding bots' manifests by name, in the folders the user names.

A folder of manifests holds ``*.toml`` files and folders with a ``bot.toml`` (a
starter kit's layout: ``sample_bots/js/bot.toml``).  The folders are those given
with ``--manifests DIR`` (repeatable), then those of ``ARENA_MANIFESTS`` (separated
by ``:``), then any the command adds (a ladder's ``bots/`` folder beside its config).
The first manifest of a name wins; a later one of the same name is a problem,
reported by ``arena bots``, as is a manifest that does not load.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.hosting.errors import ManifestError
from arena.hosting.manifest import BotCommand, load_manifest

__all__ = [
    "MANIFESTS_ENV",
    "ManifestCatalog",
    "ManifestEntry",
    "is_address",
    "looks_like_path",
    "manifest_folders",
]

#: Folders of manifests to look names up in, as a ``PATH``-like list.
MANIFESTS_ENV = "ARENA_MANIFESTS"
#: How an address starts: a bot already running, reached rather than started.
ADDRESS_PREFIXES = ("grpc://", "unix:")
#: The manifest's file name in a bot's own folder.
BOT_MANIFEST = "bot.toml"


def is_address(reference: str) -> bool:
    """A reference that is a running bot's address (``grpc://HOST:PORT``, ``unix:PATH``)."""
    return reference.startswith(ADDRESS_PREFIXES)


def looks_like_path(reference: str) -> bool:
    """A reference meant as a file (``dir/bot.toml``, ``bot.toml``), not a bot's name."""
    return "/" in reference or os.sep in reference or reference.endswith(".toml")


def manifest_folders(
    given: Sequence[Path], environ: Mapping[str, str] = os.environ
) -> list[tuple[Path, str]]:
    """The folders to look in, each with where it was named (for errors and listings).
    A folder that does not exist is a ``ManifestError``."""
    folders = [(Path(folder), "--manifests") for folder in given]
    folders += [
        (Path(entry), MANIFESTS_ENV)
        for entry in environ.get(MANIFESTS_ENV, "").split(os.pathsep)
        if entry
    ]
    for folder, origin in folders:
        if not folder.is_dir():
            raise ManifestError(f"{folder} (from {origin}): not a folder of manifests")
    return folders


@dataclass(frozen=True)
class ManifestEntry:
    """A manifest found in a folder: the bot's name, the file and the command it gives."""

    name: str
    path: Path
    command: BotCommand


class ManifestCatalog:
    """The manifests of some folders, by name, with what could not be used.  The
    folders are read the first time a name is looked up (most commands name only
    registered bots)."""

    def __init__(self, folders: Iterable[Path] = ()) -> None:
        self.folders = list(folders)
        self._entries: dict[str, ManifestEntry] | None = None
        self._problems: list[str] = []

    @property
    def entries(self) -> dict[str, ManifestEntry]:
        if self._entries is None:
            self._entries = {}
            for folder in self.folders:
                files = sorted(folder.glob("*.toml")) + sorted(folder.glob(f"*/{BOT_MANIFEST}"))
                for path in files:
                    self._add(self._entries, path)
        return self._entries

    @property
    def problems(self) -> list[str]:
        """Manifests that do not load, and names found twice."""
        _ = self.entries
        return self._problems

    def _add(self, entries: dict[str, ManifestEntry], path: Path) -> None:
        try:
            command = load_manifest(path)
        except ManifestError as error:
            self._problems.append(str(error))
            return
        earlier = entries.get(command.name)
        if earlier is not None:
            if earlier.path.resolve() != path.resolve():
                self._problems.append(
                    f"{path}: bot {command.name!r} is also in {earlier.path}, which is used"
                )
            return
        entries[command.name] = ManifestEntry(command.name, path, command)

    def path(self, name: str) -> Path | None:
        entry = self.entries.get(name)
        return entry.path if entry is not None else None
