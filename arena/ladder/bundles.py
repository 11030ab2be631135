"""Manifest bots as content-addressed archives, so workers need no shared folder.

The runner packs a manifest bot's folder (the manifest's own folder, widened to its
``working_directory`` when that lies elsewhere) into a gzipped tar that is the same
bytes for the same files, named by its SHA-256.  A worker checks the digest, unpacks
the archive once into its cache (``CACHE/SHA256/``) and runs the manifest from there.

An archive is hostile until unpacked: only regular files, folders and links that stay
inside are accepted (no absolute names, no ``..``, no devices, no hard links), and it
is unpacked beside the cache under a temporary name, then renamed into place, so a
half-unpacked bot is never run.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.errors import ArenaError
from arena.hosting.manifest import load_manifest

__all__ = ["MAX_BUNDLE_BYTES", "Bundle", "BundleError", "pack_manifest", "unpack"]

MAX_BUNDLE_BYTES = 64 * 1024 * 1024  # per bot, packed (each match task carries it)


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
    # mtime 0 and sorted names: the same files always give the same bytes, hence digest.
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path in _walk(root):
            info = tar.gettarinfo(str(path), arcname=path.relative_to(root).as_posix())
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if info.issym():
                target = (path.parent / os.readlink(path)).resolve()
                if not target.is_relative_to(root):
                    raise BundleError(f"{path}: a link out of the bot's folder ({root})")
                tar.addfile(info)
            elif info.isdir():
                tar.addfile(info)
            elif info.isfile():
                with path.open("rb") as handle:
                    tar.addfile(info, handle)
            else:
                raise BundleError(f"{path}: not a file, folder or link; cannot be shipped")
            if buffer.tell() > MAX_BUNDLE_BYTES:
                raise BundleError(
                    f"{root}: the bot's folder packs to more than {MAX_BUNDLE_BYTES // 2**20} MiB"
                )
    data = buffer.getvalue()
    inside = manifest_path.relative_to(root).as_posix()
    return Bundle(hashlib.sha256(data).hexdigest(), inside, data)


def _walk(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):  # does not follow links to folders
        dirs.sort()
        base = Path(folder)
        for name in sorted([*dirs, *files]):
            found.append(base / name)
    return found


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
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            members = tar.getmembers()
            for member in members:
                _check_member(member, sha256)
            # The "data" filter refuses again what _check_member refused, and drops
            # set-uid bits and ownership.
            tar.extractall(staging, members=members, filter="data")
        staging.chmod(0o755)  # mkdtemp's 0700 would close it to the bots' own uids
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():  # not another thread's copy that won the race
                raise
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _check_member(member: tarfile.TarInfo, sha256: str) -> None:
    name = PurePosixPath(member.name)
    where = f"bot archive {sha256[:12]}: {member.name!r}"
    if name.is_absolute() or ".." in name.parts:
        raise BundleError(f"{where}: a name outside the archive's folder")
    if member.islnk() or not (member.isfile() or member.isdir() or member.issym()):
        raise BundleError(f"{where}: only files, folders and inner links may be shipped")
    if member.issym():
        link = PurePosixPath(member.linkname)
        resolved = _normalise(name.parent / link)
        if link.is_absolute() or resolved is None:
            raise BundleError(f"{where}: a link out of the archive's folder")


def _normalise(path: PurePosixPath) -> PurePosixPath | None:
    """``path`` with ``..`` folded in, or None if it climbs above the top."""
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part != ".":
            parts.append(part)
    return PurePosixPath(*parts)
