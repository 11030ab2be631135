"""Bot folders as archives: packed the same bytes for the same files, unpacked safely.

Accepted: a ``.tar.gz`` (or plain ``.tar``) or a ``.zip``, told apart by their first
bytes.  Refused, each with a one-line :class:`ArchiveError` naming the entry and the rule:

* more than ``compressed_bytes`` of archive, ``unpacked_bytes`` once unpacked,
  ``files`` entries, or an unpacked size over ``ratio`` times the archive's (zip bombs);
* a name that is absolute, holds ``..``, a backslash or a NUL, is more than ``depth``
  names deep, longer than ``path_bytes`` bytes or has a name longer than ``name_bytes``;
* a name that repeats an earlier one, lies under a file, or lies under a link;
* devices, fifos and hard links (in a zip too, whatever its mode bits say); symbolic
  links in zips; in tars, a symbolic link whose target, once every link is resolved, is
  not inside the folder.

Every entry is read and judged (:func:`plan`) before anything is written: a refusal
on those rules leaves the folder as it was.  Sizes are counted again as bytes are
written, never trusted from a zip's headers; a refusal then leaves a partial folder,
which the caller removes (:func:`arena.submissions.cleanup.remove_tree` cannot fail on
it: nothing is deeper or longer than the limits above).

Files are written owner-writable and readable by all (executable bits kept), folders
searchable by all, so a bot's own uid can read them; no set-uid or sticky bits.
"""

from __future__ import annotations

import enum
import gzip
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from arena.errors import ArenaError

__all__ = [
    "ArchiveError",
    "Entry",
    "Kind",
    "OuterLinks",
    "UnpackLimits",
    "UnpackSummary",
    "archive_kind",
    "check_tree",
    "pack",
    "plan",
    "unpack",
]

_MB = 1024 * 1024
_CHUNK = 64 * 1024
_SHOWN = 80  # characters of a hostile name a reason shows


class ArchiveError(ArenaError, ValueError):
    """An archive that is refused: says which entry and which rule."""


@dataclass(frozen=True)
class UnpackLimits:
    compressed_bytes: int = 64 * _MB
    unpacked_bytes: int = 256 * _MB
    files: int = 20_000
    ratio: int = 100  # unpacked size / archive size
    depth: int = 64  # names in an entry's path (node_modules and vendor/ need about 12)
    path_bytes: int = 1024  # an entry's path, in UTF-8 (the kernel's limit is 4096)
    name_bytes: int = 255  # one name in it (the kernel's limit)


@dataclass(frozen=True)
class UnpackSummary:
    files: int
    bytes: int


class Kind(enum.Enum):
    FILE = enum.auto()
    FOLDER = enum.auto()
    LINK = enum.auto()


FILE, FOLDER, LINK = Kind.FILE, Kind.FOLDER, Kind.LINK


@dataclass(frozen=True)
class Entry:
    """One entry of an archive, judged safe on its own and among the others."""

    name: PurePosixPath
    kind: Kind
    executable: bool
    target: str = ""  # a link's


def archive_kind(head: bytes) -> str:
    """``"tar.gz"``, ``"tar"`` or ``"zip"`` from the first 512 bytes; ArchiveError otherwise."""
    if head.startswith(b"\x1f\x8b"):
        return "tar.gz"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if head[257:262] == b"ustar":
        return "tar"
    raise ArchiveError("not a .tar.gz, .tar or .zip archive")


def _show(name: str) -> str:
    """A name for a reason: quoted, and cut short when a hostile one is long."""
    return repr(name if len(name) <= _SHOWN else name[:_SHOWN] + "...")


def _safe_name(raw: str, limits: UnpackLimits) -> PurePosixPath:
    where = f"entry {_show(raw)}"
    if not raw or "\x00" in raw or "\\" in raw:
        raise ArchiveError(f"{where}: a name with a NUL or a backslash, or empty")
    if raw.startswith("/"):
        raise ArchiveError(f"{where}: an absolute path")
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"{where}: a path with '..'")
    if len(parts) > limits.depth:
        raise ArchiveError(f"{where}: {len(parts)} names deep, more than {limits.depth}")
    encoded = "/".join(parts).encode(errors="surrogateescape")
    if len(encoded) > limits.path_bytes:
        raise ArchiveError(
            f"{where}: a path of {len(encoded)} bytes, longer than {limits.path_bytes}"
        )
    for part in parts:
        if len(part.encode(errors="surrogateescape")) > limits.name_bytes:
            raise ArchiveError(f"{where}: a name longer than {limits.name_bytes} bytes")
    return PurePosixPath(*parts)


class _Budget:
    def __init__(self, limits: UnpackLimits, archive_bytes: int) -> None:
        self.limits = limits
        self.most = min(limits.unpacked_bytes, archive_bytes * limits.ratio)
        self.files = 0
        self.bytes = 0

    def entry(self, name: str) -> None:
        self.files += 1
        if self.files > self.limits.files:
            raise ArchiveError(f"more than {self.limits.files} entries (at {_show(name)})")

    def add(self, count: int, name: str) -> None:
        self.bytes += count
        if self.bytes > self.most:
            if self.most == self.limits.unpacked_bytes:
                why = f"more than {self.limits.unpacked_bytes // _MB} MiB unpacked"
            else:
                why = f"unpacks to more than {self.limits.ratio} times its size (a zip bomb?)"
            raise ArchiveError(f"{why} (at {_show(name)})")


def unpack(archive: Path, destination: Path, limits: UnpackLimits | None = None) -> UnpackSummary:
    """Unpack ``archive`` into the empty folder ``destination`` (see the module docstring)."""
    limits = limits or UnpackLimits()
    size = archive.stat().st_size
    if size > limits.compressed_bytes:
        raise ArchiveError(f"the archive is larger than {limits.compressed_bytes // _MB} MiB")
    entries = plan(archive, limits)  # refuses before anything is written
    root = destination.resolve()
    budget = _Budget(limits, size)
    if archive_kind(_head(archive)) == "zip":
        _write_zip(archive, root, entries, budget)
    else:
        _write_tar(archive, root, entries, budget)
    _make_links(root, entries)
    return UnpackSummary(len(entries), budget.bytes)


def _head(archive: Path) -> bytes:
    with open(archive, "rb") as file:
        return file.read(512)


def plan(archive: Path, limits: UnpackLimits) -> list[Entry]:
    """Every entry of ``archive``, each judged on its own and among the others, reading
    its headers only: ArchiveError at the first that breaks a rule."""
    budget = _Budget(limits, archive.stat().st_size)
    if archive_kind(_head(archive)) == "zip":
        entries = _plan_zip(archive, limits, budget)
    else:
        entries = _plan_tar(archive, limits, budget)
    _check_names(entries)
    return entries


def _plan_zip(archive: Path, limits: UnpackLimits, budget: _Budget) -> list[Entry]:
    try:
        with zipfile.ZipFile(archive) as zipped:
            infos = zipped.infolist()  # the central directory: names, modes, sizes
    except zipfile.BadZipFile as error:  # what reading a central directory raises
        raise _broken("zip", error) from None
    entries = []
    for info in infos:
        budget.entry(info.filename)
        name = _safe_name(info.filename, limits)
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)
        where = f"entry {_show(info.filename)}"
        if kind == stat.S_IFLNK:
            raise ArchiveError(f"{where}: links are not accepted in zips")
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise ArchiveError(f"{where}: a device, fifo or other special file")
        if info.is_dir() or kind == stat.S_IFDIR:
            entries.append(Entry(name, FOLDER, False))
            continue
        # Its header's word: zipfile reads no more than it says (a lie fails the CRC).
        budget.add(info.file_size, info.filename)
        entries.append(Entry(name, FILE, bool(mode & 0o111)))
    return entries


def _plan_tar(archive: Path, limits: UnpackLimits, budget: _Budget) -> list[Entry]:
    entries = []
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in _members(tar, budget):
                name = _safe_name(member.name, limits)
                where = f"entry {_show(member.name)}"
                if member.isdir():
                    entries.append(Entry(name, FOLDER, False))
                elif member.isfile():
                    budget.add(member.size, member.name)
                    entries.append(Entry(name, FILE, bool(member.mode & 0o111)))
                elif member.issym():
                    target = member.linkname
                    if target.startswith("/") or "\x00" in target or not target:
                        raise ArchiveError(f"link {_show(member.name)}: points outside the folder")
                    entries.append(Entry(name, LINK, False, target))
                elif member.islnk():
                    raise ArchiveError(f"{where}: hard links are not accepted")
                else:
                    raise ArchiveError(f"{where}: a device, fifo or other special file")
    except (tarfile.TarError, EOFError, OSError, zlib.error) as error:
        raise _broken("tar", error) from None
    return entries


def _broken(kind: str, error: Exception) -> ArchiveError:
    """One line (tarfile's own message for a file it cannot open has five)."""
    lines = str(error).strip().splitlines() or [type(error).__name__]
    return ArchiveError(f"a broken {kind} archive: {lines[0].rstrip(':')}")


def _members(tar: tarfile.TarFile, budget: _Budget) -> Iterator[tarfile.TarInfo]:
    """Members one at a time (``getmembers`` would read 100,000 headers before a count)."""
    while (member := tar.next()) is not None:
        budget.entry(member.name)
        yield member


def _check_names(entries: list[Entry]) -> None:
    """No name twice (a folder may be named again), none under a file or a link."""
    kinds: dict[PurePosixPath, Kind] = {}
    for entry in entries:
        if entry.name == PurePosixPath(".") and entry.kind != FOLDER:
            raise ArchiveError("entry '.': the folder itself must be a folder")
        seen = kinds.get(entry.name)
        if seen is not None and not (seen == FOLDER and entry.kind == FOLDER):
            raise ArchiveError(f"entry {_show(str(entry.name))}: repeats an earlier entry")
        kinds[entry.name] = entry.kind
    for entry in entries:
        for parent in entry.name.parents:
            kind = kinds.get(parent, FOLDER)
            if kind == LINK:
                raise ArchiveError(
                    f"entry {_show(str(entry.name))}: goes through the link {_show(str(parent))}"
                )
            if kind == FILE:
                raise ArchiveError(
                    f"entry {_show(str(entry.name))}: lies under {_show(str(parent))}, a file"
                )


def _make_parents(root: Path, name: PurePosixPath) -> None:
    for folder in reversed(name.parents):
        path = root / folder
        if not path.is_dir():
            path.mkdir()
            os.chmod(path, 0o755)  # whatever the umask


def _write(source: IO[bytes], path: Path, entry: Entry, budget: _Budget) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    mode = 0o755 if entry.executable else 0o644
    with os.fdopen(os.open(path, flags, mode), "wb") as out:
        while chunk := source.read(_CHUNK):
            budget.add(len(chunk), str(entry.name))
            out.write(chunk)
    os.chmod(path, mode)  # whatever the umask


def _place(root: Path, entry: Entry) -> Path | None:
    """Make an entry's folders; the path its file goes to (None: a folder, or a link,
    made last)."""
    if entry.kind == FOLDER:
        _make_parents(root, entry.name / "x")
        return None
    _make_parents(root, entry.name)
    return root.joinpath(*entry.name.parts) if entry.kind == FILE else None


def _write_zip(archive: Path, root: Path, entries: list[Entry], budget: _Budget) -> None:
    try:
        with zipfile.ZipFile(archive) as zipped:
            for info, entry in zip(zipped.infolist(), entries, strict=True):
                path = _place(root, entry)
                if path is not None:
                    with zipped.open(info) as source:
                        _write(source, path, entry, budget)
    except (zipfile.BadZipFile, NotImplementedError, EOFError, zlib.error) as error:
        raise _broken("zip", error) from None


def _write_tar(archive: Path, root: Path, entries: list[Entry], budget: _Budget) -> None:
    """The second read of a tar read whole by :func:`plan`: what could break did then."""
    with tarfile.open(archive, "r:*") as tar:
        for member, entry in zip(tar, entries, strict=True):
            path = _place(root, entry)
            if path is not None:
                source = tar.extractfile(member)
                assert source is not None  # a regular file's
                _write(source, path, entry, budget)


def _make_links(root: Path, entries: list[Entry]) -> None:
    """Links last, once every file is in place, and only if they stay inside."""
    links = [entry for entry in entries if entry.kind == LINK]
    for entry in links:
        _make_parents(root, entry.name)
        os.symlink(entry.target, root.joinpath(*entry.name.parts))
    for entry in links:
        resolved = Path(os.path.realpath(root.joinpath(*entry.name.parts)))
        if not resolved.is_relative_to(root):
            raise ArchiveError(
                f"link {_show(str(entry.name))} -> {_show(entry.target)}: points outside the folder"
            )


def check_tree(root: Path, limits: UnpackLimits) -> UnpackSummary:
    """After a build wrote into ``root``: refuse what an archive could not hold (links out,
    hard links, special files, paths too deep or too long, too much) and reset modes.

    The walk is iterative and never goes below ``limits.depth`` or past
    ``limits.path_bytes``: a build's folder 100,000 deep is refused, not walked."""
    root = root.resolve()
    files = 0
    total = 0
    stack = [PurePosixPath()]
    while stack:
        folder = stack.pop()
        for entry in sorted(os.listdir(root.joinpath(*folder.parts))):
            name = folder / entry
            where = _show(str(name))
            if len(name.parts) > limits.depth:
                raise ArchiveError(f"the build made {where}, more than {limits.depth} names deep")
            if len(str(name).encode(errors="surrogateescape")) > limits.path_bytes:
                raise ArchiveError(
                    f"the build made {where}, a path longer than {limits.path_bytes} bytes"
                )
            path = root.joinpath(*name.parts)
            info = path.lstat()
            files += 1
            if files > limits.files:
                raise ArchiveError(f"the build left more than {limits.files} entries")
            if stat.S_ISLNK(info.st_mode):
                if not Path(os.path.realpath(path)).is_relative_to(root):
                    raise ArchiveError(f"the build made a link {where} pointing outside the folder")
            elif stat.S_ISDIR(info.st_mode):
                os.chmod(path, 0o755)
                stack.append(name)
            elif stat.S_ISREG(info.st_mode):
                if info.st_nlink > 1:
                    raise ArchiveError(f"the build made a hard link {where}")
                total += info.st_size
                if total > limits.unpacked_bytes:
                    raise ArchiveError(
                        f"the build left more than {limits.unpacked_bytes // _MB} MiB"
                    )
                os.chmod(path, 0o755 if info.st_mode & 0o111 else 0o644)
            else:
                raise ArchiveError(f"the build made a special file {where}")
    os.chmod(root, 0o755)
    return UnpackSummary(files, total)


# -- packing -------------------------------------------------------------------------------


class OuterLinks(enum.Enum):
    """What :func:`pack` does with a link that leads out of the folder."""

    REFUSE = "refuse"  # an error: the folder must stand alone (a ladder's bots, a vetted tree)
    FOLLOW = "follow"  # packed as what it points to (an author's link to code beside the bot)


def pack(
    root: Path,
    out: BinaryIO,
    *,
    outer_links: OuterLinks = OuterLinks.REFUSE,
    skip: Callable[[str, bool], bool] | None = None,
    max_bytes: int | None = None,
) -> None:
    """Write ``root``'s tree to ``out`` as a gzipped tar that is the same bytes for the
    same files (names sorted, times 0, no owners, PAX format), so its SHA-256 names it.

    Links that stay inside are kept as links; one out is refused or followed as
    ``outer_links`` says.  Only files, folders and links are packed (anything else is an
    :class:`ArchiveError`).  ``skip(name, is_folder)`` leaves entries out (an author's
    ignore file); ``max_bytes`` caps the archive."""
    root = root.resolve()
    with (
        gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        _pack_folder(tar, root, root, "", _Packing(out, outer_links, skip, max_bytes))


@dataclass(frozen=True)
class _Packing:
    out: BinaryIO
    outer_links: OuterLinks
    skip: Callable[[str, bool], bool] | None
    max_bytes: int | None


def _pack_folder(
    tar: tarfile.TarFile, folder: Path, root: Path, prefix: str, how: _Packing
) -> None:
    for entry in sorted(os.listdir(folder)):
        path = folder / entry
        name = prefix + entry
        if how.skip is not None and how.skip(name, path.is_dir()):
            continue
        source = path
        if path.is_symlink():
            target = Path(os.path.realpath(path))
            if target.is_relative_to(root):
                tar.addfile(_tar_info(tar, path, name))  # kept as a link
                continue
            if how.outer_links is OuterLinks.REFUSE:
                raise ArchiveError(f"{path}: a link out of the folder {root}")
            if not target.exists():
                raise ArchiveError(f"{path}: a link to {target}, which does not exist")
            source = target
        info = _tar_info(tar, source, name)
        if info.isdir():
            tar.addfile(info)
            _pack_folder(tar, path, root, f"{name}/", how)
        elif info.isfile():
            with open(source, "rb") as data:
                tar.addfile(info, data)
        else:
            raise ArchiveError(f"{path}: not a file, folder or link; it cannot be packed")
        if how.max_bytes is not None and how.out.tell() > how.max_bytes:
            raise ArchiveError(f"{root}: packs to more than {how.max_bytes:,} bytes")


def _tar_info(tar: tarfile.TarFile, path: Path, name: str) -> tarfile.TarInfo:
    info = tar.gettarinfo(str(path), arcname=name)
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info
