"""Manifest bots as content-addressed archives, so workers need no shared folder.

The runner packs a manifest bot's folder (the manifest's own folder, widened to its
``working_directory`` when that lies elsewhere) with :func:`arena.archives.pack`: the
same bytes for the same files, named by its SHA-256, links out of the folder refused.
A worker checks the digest and unpacks the archive once into its cache
(``CACHE/SHA256/``), by the rules of any stranger's archive (:func:`arena.archives.unpack`),
beside the cache under a temporary name, then renamed into place, so a half-unpacked bot
is never run; it runs the manifest from there.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.archives import ArchiveError, UnpackLimits, pack
from arena.archives import unpack as unpack_archive
from arena.errors import ArenaError
from arena.hosting.manifest import load_manifest

__all__ = ["MAX_BUNDLE_BYTES", "Bundle", "BundleError", "pack_manifest", "unpack"]

MAX_BUNDLE_BYTES = 64 * 1024 * 1024  # per bot, packed (each match task carries it)

#: A ladder's own bots (its operator's), so the limits are wider than an upload's.
BUNDLE_LIMITS = UnpackLimits(
    compressed_bytes=MAX_BUNDLE_BYTES, unpacked_bytes=1024 * 1024 * 1024, files=100_000
)


class BundleError(ArenaError, ValueError):
    """A bot folder that cannot be packed, or an archive that must not be unpacked."""


@dataclass(frozen=True)
class Bundle:
    """A packed bot: the archive's digest, and where the manifest lies inside it."""

    sha256: str
    manifest: str  # POSIX path of the manifest inside the archive
    data: bytes

    @property
    def size(self) -> int:
        return len(self.data)


def pack_manifest(manifest_path: Path) -> Bundle:
    """Pack the folder a manifest bot needs (raises ManifestError, BundleError)."""
    manifest_path = manifest_path.resolve()
    command = load_manifest(manifest_path)
    root = manifest_path.parent
    if command.cwd is not None:
        root = Path(os.path.commonpath([root, command.cwd.resolve()]))
    if root == Path(root.anchor):
        raise BundleError(
            f"{manifest_path}: its working_directory would make the whole filesystem the bot's folder"
        )
    buffer = io.BytesIO()
    try:
        pack(root, buffer, max_bytes=MAX_BUNDLE_BYTES)
    except ArchiveError as error:
        raise BundleError(f"cannot pack the bot's folder: {error}") from None
    data = buffer.getvalue()
    inside = manifest_path.relative_to(root).as_posix()
    return Bundle(hashlib.sha256(data).hexdigest(), inside, data)


def unpack(data: bytes, sha256: str, cache: Path) -> Path:
    """The folder holding the archive's files, unpacked into ``cache`` if not there yet."""
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        raise BundleError(f"bot archive name {sha256!r} is not a SHA-256 digest")
    target = cache / sha256
    if target.is_dir():
        return target
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise BundleError(f"bot archive {sha256[:12]}: its content has digest {actual[:12]}")
    cache.mkdir(parents=True, exist_ok=True)
    cache.chmod(0o711)  # bots of other uids pass through to their own folder
    staging = Path(tempfile.mkdtemp(prefix=f".{sha256[:12]}-", dir=cache))
    try:
        packed = staging / "bundle.tar.gz"
        packed.write_bytes(data)
        tree = staging / "bot"
        tree.mkdir()
        tree.chmod(0o755)  # whatever the umask: the bots' own uids pass through it
        try:
            unpack_archive(packed, tree, BUNDLE_LIMITS)
        except ArchiveError as error:
            raise BundleError(f"bot archive {sha256[:12]}: {error}") from None
        try:
            tree.rename(target)
        except OSError:
            if not target.is_dir():  # not another thread's copy that won the race
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
