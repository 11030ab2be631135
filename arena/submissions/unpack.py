"""Unpacking a stranger's archive without letting it reach outside its folder.

Accepted: a ``.tar.gz`` (or plain ``.tar``) or a ``.zip``, told apart by their first
bytes.  Refused, each with a one-line :class:`ArchiveError`:

* more than ``compressed_bytes`` of archive, ``unpacked_bytes`` once unpacked,
  ``files`` entries, or an unpacked size over ``ratio`` times the archive's (zip bombs);
  entries are counted (and a tar's sizes added up) before anything is written, and
  sizes are counted again as bytes are written, never trusted from a zip's headers;
* a name that is absolute, holds ``..``, a backslash or a NUL, or repeats an earlier one;
* devices, fifos and hard links; symbolic links in zips; in tars, a symbolic link whose
  target, once every link is resolved, is not inside the folder, and any entry whose
  path passes through a link.

Files are written owner-writable and readable by all (executable bits kept), folders
searchable by all, so a bot's own uid can read them; no set-uid or sticky bits.  The
caller unpacks into a fresh folder and throws the folder away on error: nothing of a
rejected archive is left, and nothing is ever written outside the folder.
"""

from __future__ import annotations

import os
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

__all__ = ["ArchiveError", "UnpackLimits", "UnpackSummary", "archive_kind", "check_tree", "unpack"]

_MB = 1024 * 1024
_CHUNK = 64 * 1024


class ArchiveError(ValueError):
    """An archive that is refused: says which entry and which rule."""


@dataclass(frozen=True)
class UnpackLimits:
    compressed_bytes: int = 64 * _MB
    unpacked_bytes: int = 256 * _MB
    files: int = 20_000
    ratio: int = 100  # unpacked size / archive size


@dataclass(frozen=True)
class UnpackSummary:
    files: int
    bytes: int


def archive_kind(head: bytes) -> str:
    """``"tar.gz"``, ``"tar"`` or ``"zip"`` from the first 512 bytes; ArchiveError otherwise."""
    if head.startswith(b"\x1f\x8b"):
        return "tar.gz"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    raise ArchiveError("not a .tar.gz, .tar or .zip archive")


def _safe_name(raw: str) -> PurePosixPath:
    if not raw or "\x00" in raw or "\\" in raw:
        raise ArchiveError(f"entry {raw!r}: a name with a NUL or a backslash, or empty")
    if raw.startswith("/"):
        raise ArchiveError(f"entry {raw!r}: an absolute path")
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"entry {raw!r}: a path with '..'")
    if not parts:
        return PurePosixPath(".")
    return PurePosixPath(*parts)


class _Budget:
    def __init__(self, limits: UnpackLimits, archive_bytes: int) -> None:
        self.limits = limits
        self.most = min(limits.unpacked_bytes, max(archive_bytes, 1) * limits.ratio)
        self.files = 0
        self.bytes = 0

    def entry(self, name: str) -> None:
        self.files += 1
        if self.files > self.limits.files:
            raise ArchiveError(f"more than {self.limits.files} entries (at {name!r})")

    def add(self, count: int, name: str) -> None:
        self.bytes += count
        if self.bytes > self.most:
            if self.most == self.limits.unpacked_bytes:
                why = f"more than {self.limits.unpacked_bytes // _MB} MiB unpacked"
            else:
                why = f"unpacks to more than {self.limits.ratio} times its size (a zip bomb?)"
            raise ArchiveError(f"{why} (at {name!r})")


def unpack(archive: Path, destination: Path, limits: UnpackLimits | None = None) -> UnpackSummary:
    """Unpack ``archive`` into the empty folder ``destination`` (see the module docstring)."""
    limits = limits or UnpackLimits()
    size = archive.stat().st_size
    if size > limits.compressed_bytes:
        raise ArchiveError(f"the archive is larger than {limits.compressed_bytes // _MB} MiB")
    with open(archive, "rb") as file:
        kind = archive_kind(file.read(512))
    root = destination.resolve()
    budget = _Budget(limits, size)
    if kind == "zip":
        _unpack_zip(archive, root, budget)
    else:
        _unpack_tar(archive, root, budget)
    return UnpackSummary(budget.files, budget.bytes)


def _target(root: Path, name: PurePosixPath, links: set[PurePosixPath]) -> Path:
    """Where an entry goes; refuses a path through an earlier link or an existing entry."""
    for parent in [*reversed(name.parents), name]:
        if parent in links:
            raise ArchiveError(f"entry {str(name)!r}: goes through the link {str(parent)!r}")
    return root.joinpath(*name.parts)


def _make_parents(root: Path, path: Path) -> None:
    for folder in reversed(path.relative_to(root).parents):
        here = root / folder
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            raise ArchiveError(f"entry {str(path.relative_to(root))!r}: a parent is not a folder")
        if not here.exists():
            here.mkdir(mode=0o755)


def _write(source: IO[bytes], path: Path, executable: bool, budget: _Budget, name: str) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o755 if executable else 0o644)
    except FileExistsError:
        raise ArchiveError(f"entry {name!r}: repeats an earlier entry") from None
    with os.fdopen(fd, "wb") as out:
        while chunk := source.read(_CHUNK):
            budget.add(len(chunk), name)
            out.write(chunk)
    os.chmod(path, 0o755 if executable else 0o644)  # whatever the umask


def _unpack_zip(archive: Path, root: Path, budget: _Budget) -> None:
    try:
        with zipfile.ZipFile(archive) as zipped:
            if len(zipped.infolist()) > budget.limits.files:  # the central directory, unread
                raise ArchiveError(f"more than {budget.limits.files} entries")
            for info in zipped.infolist():
                budget.entry(info.filename)
                name = _safe_name(info.filename)
                mode = info.external_attr >> 16
                kind = stat.S_IFMT(mode)
                if kind == stat.S_IFLNK:
                    raise ArchiveError(f"entry {info.filename!r}: links are not accepted in zips")
                if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                    raise ArchiveError(f"entry {info.filename!r}: not a file or a folder")
                path = _target(root, name, set())
                if info.is_dir():
                    _make_parents(root, path / "x")
                    continue
                _make_parents(root, path)
                with zipped.open(info) as source:
                    _write(source, path, bool(mode & 0o111), budget, info.filename)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as error:
        raise ArchiveError(f"a broken zip archive: {error}") from None


def _count_tar(archive: Path, limits: UnpackLimits) -> None:
    """A first pass over the headers alone, so that an archive of too many entries is
    refused before a single file is written."""
    budget = _Budget(limits, archive.stat().st_size)
    with tarfile.open(archive, "r:*") as tar:
        for member in _members(tar, budget):
            if member.isfile():
                budget.add(member.size, member.name)


def _unpack_tar(archive: Path, root: Path, budget: _Budget) -> None:
    links: dict[PurePosixPath, str] = {}
    try:
        _count_tar(archive, budget.limits)
        with tarfile.open(archive, "r:*") as tar:
            for member in _members(tar, budget):
                name = _safe_name(member.name)
                path = _target(root, name, set(links))
                if member.isdir():
                    _make_parents(root, path / "x")
                elif member.isfile():
                    _make_parents(root, path)
                    source = tar.extractfile(member)
                    assert source is not None
                    _write(source, path, bool(member.mode & 0o111), budget, member.name)
                elif member.issym():
                    links[name] = member.linkname
                elif member.islnk():
                    raise ArchiveError(f"entry {member.name!r}: hard links are not accepted")
                else:
                    raise ArchiveError(
                        f"entry {member.name!r}: a device, fifo or other special file"
                    )
    except (tarfile.TarError, EOFError, OSError) as error:
        if isinstance(error, ArchiveError):
            raise
        raise ArchiveError(f"a broken tar archive: {error}") from None
    # Links last, once every file is in place, and only if they stay inside.
    for name, target in links.items():
        path = root.joinpath(*name.parts)
        _make_parents(root, path)
        if os.path.lexists(path):
            raise ArchiveError(f"entry {str(name)!r}: repeats an earlier entry")
        if target.startswith("/") or "\x00" in target:
            raise ArchiveError(f"link {str(name)!r} -> {target!r}: points outside the folder")
        os.symlink(target, path)
    for name, target in links.items():
        resolved = Path(os.path.realpath(root.joinpath(*name.parts)))
        if not resolved.is_relative_to(root):
            raise ArchiveError(f"link {str(name)!r} -> {target!r}: points outside the folder")


def _members(tar: tarfile.TarFile, budget: _Budget) -> Iterator[tarfile.TarInfo]:
    """Members one at a time (``getmembers`` would read 100,000 headers before a count)."""
    while True:
        member = tar.next()
        if member is None:
            return
        budget.entry(member.name)
        yield member


def check_tree(root: Path, limits: UnpackLimits) -> UnpackSummary:
    """After a build wrote into ``root``: refuse what an archive could not hold (links out,
    hard links, special files, too much) and reset ownership-independent modes."""
    root = root.resolve()
    files = 0
    total = 0
    for folder, dirs, names in os.walk(root, followlinks=False):
        for entry in [*dirs, *names]:
            path = Path(folder, entry)
            info = path.lstat()
            files += 1
            where = str(path.relative_to(root))
            if files > limits.files:
                raise ArchiveError(f"the build left more than {limits.files} entries")
            if stat.S_ISLNK(info.st_mode):
                if not Path(os.path.realpath(path)).is_relative_to(root):
                    raise ArchiveError(
                        f"the build made a link {where!r} pointing outside the folder"
                    )
            elif stat.S_ISDIR(info.st_mode):
                os.chmod(path, 0o755)
            elif stat.S_ISREG(info.st_mode):
                if info.st_nlink > 1:
                    raise ArchiveError(f"the build made a hard link {where!r}")
                total += info.st_size
                if total > limits.unpacked_bytes:
                    raise ArchiveError(
                        f"the build left more than {limits.unpacked_bytes // _MB} MiB"
                    )
                os.chmod(path, 0o755 if info.st_mode & 0o111 else 0o644)
            else:
                raise ArchiveError(f"the build made a special file {where!r}")
    os.chmod(root, 0o755)
    return UnpackSummary(files, total)
