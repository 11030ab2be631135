"""Hostile archives, each built here, each refused with its reason, none writing outside."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.submissions.unpack import (
    ArchiveError,
    UnpackLimits,
    archive_kind,
    check_tree,
    unpack,
)


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str, data: bytes = b"x", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info, data


def _special(name: str, kind: bytes, target: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


@pytest.fixture
def box(tmp_path: Path) -> Path:
    """A folder holding only the destination; anything else appearing in it (or above
    it) after a refused archive means something was written outside."""
    (tmp_path / "box" / "dest").mkdir(parents=True)
    return tmp_path / "box"


def _outside(box: Path) -> set[str]:
    """Every path under the test's folder but the destination's contents."""
    top = box.parent
    return {
        str(path.relative_to(top))
        for path in top.rglob("*")
        if not path.is_relative_to(box / "dest") or path == box / "dest"
    }


def _refused(box: Path, archive: Path, reason: str, limits: UnpackLimits | None = None) -> None:
    before = _outside(box)
    with pytest.raises(ArchiveError, match=reason):
        unpack(archive, box / "dest", limits)
    assert _outside(box) == before, f"written outside: {sorted(_outside(box) - before)}"
    assert not Path("/x").exists()


HOSTILE: dict[str, tuple[Callable[[Path], Path], str]] = {
    "dot-dot": (lambda d: _tar(d / "a.tar.gz", [_file("../x")]), r"a path with '\.\.'"),
    "dot-dot-deep": (
        lambda d: _tar(d / "a.tar.gz", [_file("ok/../../x")]),
        r"a path with '\.\.'",
    ),
    "absolute": (lambda d: _tar(d / "a.tar.gz", [_file("/x")]), "an absolute path"),
    "symlink-to-etc-passwd": (
        lambda d: _tar(d / "a.tar.gz", [_special("passwd", tarfile.SYMTYPE, "/etc/passwd")]),
        "points outside the folder",
    ),
    "symlink-up": (
        lambda d: _tar(d / "a.tar.gz", [_special("up", tarfile.SYMTYPE, "../../x")]),
        "points outside the folder",
    ),
    "symlink-chain-escape": (
        # Each link looks inside on its own; resolved, "t" is the folder's parent.
        lambda d: _tar(
            d / "a.tar.gz",
            [_special("s", tarfile.SYMTYPE, "."), _special("t", tarfile.SYMTYPE, "s/..")],
        ),
        "points outside the folder",
    ),
    "write-through-link": (
        lambda d: _tar(d / "a.tar.gz", [_special("l", tarfile.SYMTYPE, "sub"), _file("l/x")]),
        "goes through the link",
    ),
    "hard-link": (
        lambda d: _tar(d / "a.tar.gz", [_special("h", tarfile.LNKTYPE, "/etc/passwd")]),
        "hard links are not accepted",
    ),
    "device": (
        lambda d: _tar(d / "a.tar.gz", [_special("null", tarfile.CHRTYPE)]),
        "a device, fifo or other special file",
    ),
    "fifo": (
        lambda d: _tar(d / "a.tar.gz", [_special("pipe", tarfile.FIFOTYPE)]),
        "a device, fifo or other special file",
    ),
    "repeated-entry": (
        lambda d: _tar(d / "a.tar.gz", [_file("a", b"1"), _file("a", b"2")]),
        "repeats an earlier entry",
    ),
    "not-an-archive": (
        lambda d: (d / "a.bin").write_bytes(b"hello" * 200) and d / "a.bin",
        "not a .tar.gz, .tar or .zip archive",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_tar_is_refused_and_writes_nothing_outside(
    case: str, box: Path, tmp_path: Path
) -> None:
    build, reason = HOSTILE[case]
    archives = tmp_path / "archives"
    archives.mkdir()
    _refused(box, build(archives), reason)


def test_zip_bomb_is_refused_by_its_ratio(box: Path, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("bot.toml", b"name = 'x'\n")
        zipped.writestr("zeros", b"\0" * (50 * 1024 * 1024))  # 50 MiB in about 50 KiB
    assert bomb.stat().st_size < 200 * 1024
    _refused(box, bomb, "unpacks to more than 100 times its size")


def test_gzip_bomb_in_a_tar_is_refused(box: Path, tmp_path: Path) -> None:
    bomb = _tar(tmp_path / "bomb.tar.gz", [_file("zeros", b"\0" * (40 * 1024 * 1024))])
    _refused(box, bomb, "unpacks to more than 100 times its size")


def test_unpacked_size_cap(box: Path, tmp_path: Path) -> None:
    data = os.urandom(300 * 1024)  # incompressible: the ratio stays near 1
    archive = _tar(tmp_path / "big.tar.gz", [_file("a", data), _file("b", data)])
    _refused(box, archive, "more than 0 MiB unpacked", UnpackLimits(unpacked_bytes=512 * 1024))


def test_compressed_size_cap(box: Path, tmp_path: Path) -> None:
    archive = _tar(tmp_path / "big.tar.gz", [_file("a", os.urandom(2 * 1024 * 1024))])
    _refused(box, archive, "larger than 1 MiB", UnpackLimits(compressed_bytes=1024 * 1024))


def test_a_hundred_thousand_tiny_files_are_refused_early(box: Path, tmp_path: Path) -> None:
    archive = tmp_path / "many.tar.gz"
    with (
        gzip.open(archive, "wb", compresslevel=1) as packed,
        tarfile.open(fileobj=packed, mode="w", format=tarfile.USTAR_FORMAT) as tar,
    ):
        for n in range(100_000):
            tar.addfile(tarfile.TarInfo(f"f{n}"))
    _refused(box, archive, "more than 20000 entries")
    assert not any((box / "dest").iterdir())  # counted before anything was written


def test_a_hundred_thousand_tiny_files_in_a_zip(box: Path, tmp_path: Path) -> None:
    archive = tmp_path / "many.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for n in range(100_000):
            zipped.writestr(f"f{n}", b"")
    _refused(box, archive, "more than 20000 entries")
    assert not any((box / "dest").iterdir())


def test_zip_with_a_symlink_is_refused(box: Path, tmp_path: Path) -> None:
    archive = tmp_path / "link.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        info = zipfile.ZipInfo("passwd")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zipped.writestr(info, "/etc/passwd")
    _refused(box, archive, "links are not accepted in zips")


def test_zip_dot_dot_and_absolute_are_refused(box: Path, tmp_path: Path) -> None:
    for name, reason in (("../x", r"'\.\.'"), ("/x", "absolute")):
        archive = tmp_path / "bad.zip"
        with zipfile.ZipFile(archive, "w") as zipped:
            zipped.writestr(name, b"x")
        _refused(box, archive, reason)


def test_a_good_archive_unpacks_with_safe_modes_and_inside_links(box: Path, tmp_path: Path) -> None:
    setuid = _file("bin/run", b"#!/bin/sh\n", mode=0o4755)
    archive = _tar(
        tmp_path / "good.tar.gz",
        [
            _file("bot.toml", b"name = 'x'\n", mode=0o600),
            setuid,
            _special("node_modules/.bin/run", tarfile.SYMTYPE, "../../bin/run"),
        ],
    )
    summary = unpack(archive, box / "dest")
    dest = box / "dest"
    assert summary.files == 3
    assert stat.S_IMODE((dest / "bot.toml").stat().st_mode) == 0o644  # readable by the bot's uid
    assert stat.S_IMODE((dest / "bin/run").stat().st_mode) == 0o755  # no set-uid bit
    assert os.readlink(dest / "node_modules/.bin/run") == "../../bin/run"
    assert (dest / "node_modules/.bin/run").read_bytes() == b"#!/bin/sh\n"


def test_archive_kind_by_content() -> None:
    assert archive_kind(gzip.compress(b"x")) == "tar.gz"
    assert archive_kind(b"PK\x03\x04rest") == "zip"
    with pytest.raises(ArchiveError):
        archive_kind(b"#!/bin/sh")


def test_check_tree_refuses_what_a_build_could_leave(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "out").write_text("x")
    os.symlink("/etc/shadow", tree / "shadow")
    with pytest.raises(ArchiveError, match="pointing outside"):
        check_tree(tree, UnpackLimits())
    os.unlink(tree / "shadow")
    os.link(tree / "out", tree / "hard")
    with pytest.raises(ArchiveError, match="hard link"):
        check_tree(tree, UnpackLimits())
    os.unlink(tree / "hard")
    os.mkfifo(tree / "fifo")
    with pytest.raises(ArchiveError, match="special file"):
        check_tree(tree, UnpackLimits())
    os.unlink(tree / "fifo")
    os.chmod(tree / "out", 0o6777)
    check_tree(tree, UnpackLimits())
    assert stat.S_IMODE((tree / "out").stat().st_mode) == 0o755
