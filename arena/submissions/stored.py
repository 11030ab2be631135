"""An accepted version is one archive: the tree that was vetted, built and checked.

:func:`pack_tree` packs a vetted tree into a gzipped tar that is the same bytes for the
same files (:func:`arena.archives.pack`), named by its SHA-256.  The check runs the
bot unpacked from that archive, and :func:`open_version` is how a match starts it: the
archive's digest is checked against the one recorded, and a mismatch is refused.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path

from arena.archives import UnpackLimits, pack, unpack
from arena.errors import ArenaError
from arena.submissions.cleanup import remove_tree
from arena.submissions.layout import DataLayout

__all__ = [
    "PACKED",
    "StoredVersionError",
    "open_version",
    "pack_tree",
    "sha256_of",
    "unpack_packed",
]

#: The vetted tree of a version, in its folder ``archives/SHA256/``.
PACKED = "bot.tar.gz"


class StoredVersionError(ArenaError, ValueError):
    """A stored version that must not be started (its archive is not what was vetted)."""


def pack_tree(tree: Path, archive: Path) -> str:
    """Pack ``tree`` (already checked: no links out, no special files) into ``archive``;
    its SHA-256."""
    with open(archive, "xb") as raw:
        pack(tree, raw)
    return sha256_of(archive)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


def unpack_packed(archive: Path, destination: Path, limits: UnpackLimits) -> None:
    """Unpack a packed tree by the rules of any archive.  Its size was checked as a tree
    (``limits.unpacked_bytes``): packed, it may not compress as an upload must."""
    own = replace(limits, compressed_bytes=2 * limits.unpacked_bytes, ratio=limits.unpacked_bytes)
    unpack(archive, destination, own)


def open_version(layout: DataLayout, sha256: str, limits: UnpackLimits | None = None) -> Path:
    """The manifest of the stored version ``sha256``, to start it for a match.

    Refuses (:class:`StoredVersionError`) when its archive's digest is not ``sha256``;
    unpacks it again (into ``bot/``) when that folder is missing."""
    folder = layout.archive(sha256)
    packed = folder / PACKED
    try:
        actual = sha256_of(packed)
    except FileNotFoundError:
        raise StoredVersionError(f"version {sha256[:12]}: its archive is missing") from None
    if actual != sha256:
        raise StoredVersionError(
            f"version {sha256[:12]}: its archive has digest {actual[:12]}, not the one vetted"
        )
    tree = folder / "bot"
    if not tree.is_dir():
        partial = folder / "bot.partial"
        remove_tree(partial)
        partial.mkdir(mode=0o755)
        try:
            unpack_packed(packed, partial, limits or UnpackLimits())
            os.replace(partial, tree)
        finally:
            remove_tree(partial)
    return tree / "bot.toml"
