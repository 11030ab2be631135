"""Hostile archives, each built here, each refused with its reason, none writing outside."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import FrozenInstanceError, replace
from pathlib import Path, PurePosixPath

import pytest

from arena.archives import (
    ArchiveError,
    Entry,
    Kind,
    UnpackLimits,
    UnpackSummary,
    archive_kind,
    check_tree,
    unpack,
)
from arena.submissions.cleanup import remove_tree, walk_folders


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


def _not_an_archive(d: Path) -> Path:
    (d / "a.bin").write_bytes(b"hello" * 200)
    return d / "a.bin"


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
        _not_an_archive,
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# -- every entry judged before anything is written -------------------------------------


def _zip(path: Path, members: list[tuple[str, bytes, int]]) -> Path:
    """A zip of (name, data, st_mode) entries; st_mode 0 leaves the mode unset."""
    with zipfile.ZipFile(path, "w") as zipped:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            zipped.writestr(info, data)
    return path


def _refused_untouched(box: Path, archive: Path, reason: str, **limits: int) -> None:
    """Refused with ``reason``, and nothing written at all, not even inside."""
    _refused(box, archive, reason, UnpackLimits(**limits))
    assert list((box / "dest").iterdir()) == []


def test_a_plain_tar_unpacks(box: Path, tmp_path: Path) -> None:
    archive = tmp_path / "plain.tar"
    with tarfile.open(archive, "w") as tar:
        info, data = _file("bot.toml", b"name = 'x'\n")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    assert archive_kind(archive.read_bytes()[:512]) == "tar"
    summary = unpack(archive, box / "dest")
    assert (summary.files, summary.bytes) == (1, 11)
    assert (box / "dest" / "bot.toml").read_bytes() == b"name = 'x'\n"


def test_a_tar_bomb_is_refused_before_its_first_file_is_written(box: Path, tmp_path: Path) -> None:
    bomb = _tar(
        tmp_path / "bomb.tar.gz",
        [_file("first", b"small"), _file("zeros", b"\0" * (20 * 1024 * 1024))],
    )
    _refused_untouched(
        box, bomb, r"unpacks to more than 100 times its size \(a zip bomb\?\) \(at 'zeros'\)"
    )
    data = os.urandom(300 * 1024)
    big = _tar(tmp_path / "big.tar.gz", [_file("a", data), _file("b", data)])
    _refused_untouched(box, big, r"more than 0 MiB unpacked \(at 'b'\)", unpacked_bytes=400 * 1024)


def test_a_zip_bomb_is_refused_by_its_headers_before_writing(box: Path, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("first", b"small")
        zipped.writestr("zeros", b"\0" * (20 * 1024 * 1024))
    _refused_untouched(
        box, bomb, r"unpacks to more than 100 times its size \(a zip bomb\?\) \(at 'zeros'\)"
    )


@pytest.mark.parametrize(
    ("kind", "mode"),
    [("char-device", stat.S_IFCHR), ("block-device", stat.S_IFBLK), ("fifo", stat.S_IFIFO),
     ("socket", stat.S_IFSOCK)],
)  # fmt: skip
def test_a_zip_entry_whose_mode_says_special_is_refused(
    kind: str, mode: int, box: Path, tmp_path: Path
) -> None:
    archive = _zip(tmp_path / f"{kind}.zip", [("ok", b"x", 0), (kind, b"", mode | 0o644)])
    _refused_untouched(box, archive, f"entry '{kind}': a device, fifo or other special file")


def test_zip_modes_folders_and_executable_bits(box: Path, tmp_path: Path) -> None:
    archive = _zip(
        tmp_path / "modes.zip",
        [
            ("run", b"#!/bin/sh\n", stat.S_IFREG | 0o4755),
            ("data", b"12", stat.S_IFREG | 0o600),
            ("plain", b"3", 0),  # no mode at all (a zip made on Windows)
            ("lib", b"", stat.S_IFDIR | 0o700),  # a folder by its mode, without a slash
            ("sub/", b"", 0),
        ],
    )
    summary = unpack(archive, box / "dest")
    dest = box / "dest"
    assert (summary.files, summary.bytes) == (5, 13)
    assert stat.S_IMODE((dest / "run").stat().st_mode) == 0o755
    assert stat.S_IMODE((dest / "data").stat().st_mode) == 0o644
    assert stat.S_IMODE((dest / "plain").stat().st_mode) == 0o644
    for folder in ("lib", "sub"):
        assert (dest / folder).is_dir()
        assert stat.S_IMODE((dest / folder).stat().st_mode) == 0o755


NAME_CLASHES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "zip-file-then-under-it": (
        lambda d: _zip(d / "a.zip", [("a", b"1", 0), ("a/b", b"2", 0)]),
        "entry 'a/b': lies under 'a', a file",
    ),
    "zip-under-then-file": (
        lambda d: _zip(d / "a.zip", [("a/b", b"2", 0), ("a", b"1", 0)]),
        "entry 'a/b': lies under 'a', a file",
    ),
    "zip-folder-then-file": (
        lambda d: _zip(d / "a.zip", [("a/", b"", 0), ("a", b"1", 0)]),
        "entry 'a': repeats an earlier entry",
    ),
    "zip-file-twice": (
        lambda d: _zip(d / "a.zip", [("a", b"1", 0), ("./a", b"2", 0)]),
        "entry 'a': repeats an earlier entry",
    ),
    "tar-file-then-link": (
        lambda d: _tar(d / "a.tar.gz", [_file("a"), _special("a", tarfile.SYMTYPE, "b")]),
        "entry 'a': repeats an earlier entry",
    ),
    "tar-link-then-file": (
        lambda d: _tar(d / "a.tar.gz", [_special("a", tarfile.SYMTYPE, "b"), _file("a")]),
        "entry 'a': repeats an earlier entry",
    ),
    "tar-link-twice": (
        lambda d: _tar(
            d / "a.tar.gz",
            [_special("a", tarfile.SYMTYPE, "b"), _special("a", tarfile.SYMTYPE, "c")],
        ),
        "entry 'a': repeats an earlier entry",
    ),
    "tar-file-then-folder": (
        lambda d: _tar(d / "a.tar.gz", [_file("a"), _special("a", tarfile.DIRTYPE)]),
        "entry 'a': repeats an earlier entry",
    ),
    "tar-under-a-later-link": (
        lambda d: _tar(d / "a.tar.gz", [_file("l/x"), _special("l", tarfile.SYMTYPE, "sub")]),
        "entry 'l/x': goes through the link 'l'",
    ),
    "tar-link-under-a-file": (
        lambda d: _tar(d / "a.tar.gz", [_file("f"), _special("f/l", tarfile.SYMTYPE, "..")]),
        "entry 'f/l': lies under 'f', a file",
    ),
    "tar-root-as-a-file": (
        lambda d: _tar(d / "a.tar.gz", [_file("./")]),
        "entry '.': the folder itself must be a folder",
    ),
}


@pytest.mark.parametrize("case", sorted(NAME_CLASHES))
def test_names_that_clash_are_refused_with_a_reason_before_writing(
    case: str, box: Path, tmp_path: Path
) -> None:
    build, reason = NAME_CLASHES[case]
    _refused_untouched(box, build(tmp_path), reason)


def test_a_folder_may_be_named_twice_and_the_root_too(box: Path, tmp_path: Path) -> None:
    archive = _tar(
        tmp_path / "a.tar.gz",
        [
            _special("./", tarfile.DIRTYPE),
            _special("a", tarfile.DIRTYPE),
            _special("a/", tarfile.DIRTYPE),
            _file("a/b", b"12"),
        ],
    )
    assert unpack(archive, box / "dest") == UnpackSummary(4, 2)
    assert (box / "dest" / "a" / "b").read_bytes() == b"12"


def test_a_link_target_is_judged_before_writing(box: Path, tmp_path: Path) -> None:
    for target in ("/etc/passwd", ""):
        archive = _tar(
            tmp_path / "a.tar.gz", [_file("first"), _special("l", tarfile.SYMTYPE, target)]
        )
        _refused_untouched(box, archive, "link 'l': points outside the folder")
        archive.unlink()


# -- paths too deep or too long: refused before anything is written ---------------------

DEEP = "/".join(["d"] * 2100) + "/x"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        (DEEP, "2101 names deep, more than 64"),
        ("/".join(["d"] * 65), "65 names deep, more than 64"),
        ("n" * 256, "a name longer than 255 bytes"),
        ("/".join(["n" * 200] * 6), "a path of 1205 bytes, longer than 1024"),
    ],
)
def test_paths_too_deep_or_too_long_are_refused_before_writing(
    name: str, reason: str, box: Path, tmp_path: Path
) -> None:
    tar = _tar(tmp_path / "a.tar.gz", [_file("first"), _file(name)])
    _refused_untouched(box, tar, reason)
    zipped = _zip(tmp_path / "a.zip", [("first", b"x", 0), (name, b"x", 0)])
    _refused_untouched(box, zipped, reason)


def test_a_refusal_shows_a_long_name_cut_short(box: Path, tmp_path: Path) -> None:
    tar = _tar(tmp_path / "a.tar.gz", [_file(DEEP)])
    with pytest.raises(ArchiveError) as refused:
        unpack(tar, box / "dest")
    assert len(str(refused.value)) < 200
    assert "'d/d/d/d" in str(refused.value) and "...'" in str(refused.value)


def test_the_depth_and_length_limits_are_inclusive(box: Path, tmp_path: Path) -> None:
    deepest = "/".join(["d"] * 63) + "/f"  # 64 names
    longest = "/".join(["n" * 255, "m" * 255, "o" * 255, "p" * 255])[:1024]
    archive = _tar(tmp_path / "a.tar.gz", [_file(deepest), _file(longest)])
    assert unpack(archive, box / "dest").files == 2
    assert (box / "dest" / deepest).is_file() and (box / "dest" / longest).is_file()


def test_a_broken_archive_is_refused_with_a_reason(box: Path, tmp_path: Path) -> None:
    good = _tar(tmp_path / "good.tar.gz", [_file("a", os.urandom(4096))])
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(good.read_bytes()[:600])
    _refused(box, cut, "a broken tar archive")
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04" + b"\0" * 100)
    _refused(box, broken, "a broken zip archive")


# -- what a build leaves ----------------------------------------------------------------


def test_check_tree_counts_and_resets_the_root(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "a").write_bytes(b"123")
    (tree / "sub" / "b").write_bytes(b"45")
    os.symlink("../a", tree / "sub" / "link")
    os.chmod(tree / "sub", 0o700)
    os.chmod(tree, 0o700)
    assert check_tree(tree, UnpackLimits()) == UnpackSummary(4, 5)
    assert stat.S_IMODE(tree.stat().st_mode) == 0o755
    assert stat.S_IMODE((tree / "sub").stat().st_mode) == 0o755
    assert stat.S_IMODE((tree / "a").stat().st_mode) == 0o644


def test_check_tree_limits(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    for n in range(3):
        (tree / f"f{n}").write_bytes(b"x" * 600 * 1024)
    with pytest.raises(ArchiveError, match="the build left more than 2 entries"):
        check_tree(tree, UnpackLimits(files=2))
    assert check_tree(tree, UnpackLimits(files=3)).files == 3
    with pytest.raises(ArchiveError, match="the build left more than 1 MiB"):
        check_tree(tree, UnpackLimits(unpacked_bytes=1024 * 1024))
    assert check_tree(tree, UnpackLimits(unpacked_bytes=3 * 600 * 1024)).bytes == 3 * 600 * 1024


@pytest.mark.slow
def test_check_tree_refuses_a_tree_too_deep_or_too_long_without_walking_it(
    tmp_path: Path,
) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    fd = os.open(tree, os.O_RDONLY)
    try:
        for _ in range(3000):  # deeper than a recursive walk and than PATH_MAX
            os.mkdir("d" * 100, dir_fd=fd)
            inner = os.open("d" * 100, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
    with pytest.raises(ArchiveError, match="a path longer than 1024 bytes"):
        check_tree(tree, UnpackLimits())
    with pytest.raises(ArchiveError, match=r"more than 5 names deep"):
        check_tree(tree, UnpackLimits(depth=5))
    remove_tree(tree)
    assert not tree.exists()


def test_check_tree_accepts_links_that_stay_inside(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    os.symlink("..", tree / "sub" / "up")  # the folder itself: inside
    os.symlink("missing", tree / "dangling")
    assert check_tree(tree, UnpackLimits()).files == 3


# -- removing whatever a stranger wrote -------------------------------------------------


@pytest.mark.slow
def test_remove_tree_removes_any_depth_any_length_and_closed_folders(tmp_path: Path) -> None:
    top = tmp_path / "top"
    top.mkdir()
    (tmp_path / "kept").write_text("outside")
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(2500):
            os.mkdir("d" * 200, dir_fd=fd)
            os.mkdir("side", dir_fd=fd)
            os.mkfifo("fifo", dir_fd=fd)
            os.symlink(str(tmp_path / "kept"), "link", dir_fd=fd)
            inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.fchmod(fd, 0)  # a folder closed by its owner
    finally:
        os.close(fd)
    os.chmod(top / "side", 0o500)
    remove_tree(top)
    assert not top.exists()
    assert (tmp_path / "kept").read_text() == "outside"  # links removed, not followed
    remove_tree(top)  # nothing there: not an error
    (tmp_path / "file").write_text("x")
    remove_tree(tmp_path / "file")
    assert not (tmp_path / "file").exists()


@pytest.mark.slow
def test_walk_folders_visits_every_entry_at_any_depth(tmp_path: Path) -> None:
    top = tmp_path / "top"
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(1500):
            os.mkdir("d", dir_fd=fd)
            os.mkdir("e", dir_fd=fd)
            os.close(os.open("f", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
    os.symlink("/", top / "root")  # not followed
    seen: list[str] = []
    walk_folders(top, lambda _fd, name: seen.append(name))
    assert len(seen) == 3 * 1500 + 1
    assert sorted(set(seen)) == ["d", "e", "f", "root"]
    remove_tree(top)  # (pytest's own clean-up of old runs uses shutil.rmtree)


# -- the limits exactly ----------------------------------------------------------------


def test_the_default_limits() -> None:
    mib = 1024 * 1024
    assert UnpackLimits() == UnpackLimits(64 * mib, 256 * mib, 20_000, 100, 64, 1024, 255)


def test_every_count_is_inclusive(box: Path, tmp_path: Path) -> None:
    data = os.urandom(1000)
    archive = _tar(tmp_path / "a.tar.gz", [_file("a", data), _file("b", data), _file("c", data)])
    size = archive.stat().st_size
    exact = UnpackLimits(compressed_bytes=size, unpacked_bytes=3000, files=3)
    assert unpack(archive, box / "dest", exact) == UnpackSummary(3, 3000)
    for fewer, reason in (
        ({"compressed_bytes": size - 1}, "larger than 0 MiB"),
        ({"unpacked_bytes": 2999}, r"more than 0 MiB unpacked \(at 'c'\)"),
        ({"files": 2}, r"more than 2 entries \(at 'c'\)"),
    ):
        remove_tree(box / "dest")
        (box / "dest").mkdir()
        _refused(box, archive, reason, replace(exact, **fewer))


def test_the_ratio_is_inclusive(box: Path, tmp_path: Path) -> None:
    archive = _tar(tmp_path / "a.tar.gz", [_file("zeros", b"\0" * 100_000)])
    size = archive.stat().st_size
    assert unpack(archive, box / "dest", UnpackLimits(ratio=-(-100_000 // size))).bytes == 100_000
    remove_tree(box / "dest")
    (box / "dest").mkdir()
    _refused(box, archive, "more than 1 times its size", UnpackLimits(ratio=1))


def test_a_reason_shows_a_name_of_80_characters_whole(box: Path, tmp_path: Path) -> None:
    for length, shown in ((80, "n" * 80), (81, "n" * 80 + "...")):
        archive = _tar(tmp_path / f"{length}.tar.gz", [_file("n" * length)] * 2)
        with pytest.raises(ArchiveError) as refused:
            unpack(archive, box / "dest")
        assert str(refused.value) == f"entry {shown!r}: repeats an earlier entry"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("a\\b", "a name with a NUL or a backslash, or empty"),
        ("a\x00b", "a name with a NUL or a backslash, or empty"),
        ("", "a name with a NUL or a backslash, or empty"),
    ],
)
def test_names_with_a_nul_or_a_backslash_or_none(
    name: str, reason: str, box: Path, tmp_path: Path
) -> None:
    info = tarfile.TarInfo(name)
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tar:
        info.pax_headers = {"path": name}
        tar.addfile(info, io.BytesIO(b""))
    _refused(box, archive, reason)


def test_dots_and_empty_names_do_not_count_as_depth(box: Path, tmp_path: Path) -> None:
    name = "./" + "//".join(["d"] * 63) + "/./f"  # 64 names once tidied
    archive = _tar(tmp_path / "a.tar.gz", [_file(name)])
    assert unpack(archive, box / "dest").files == 1
    assert (box / "dest" / "/".join(["d"] * 63) / "f").is_file()


def test_a_path_of_exactly_1024_bytes_is_accepted(box: Path, tmp_path: Path) -> None:
    name = "/".join(["a" * 255, "b" * 255, "c" * 255, "d" * 254, "e"])
    assert len(name) == 1024
    archive = _tar(tmp_path / "a.tar.gz", [_file(name)])
    assert unpack(archive, box / "dest").files == 1
    longer = _tar(tmp_path / "b.tar.gz", [_file(name + "e")])
    _refused(box, longer, "a path of 1025 bytes, longer than 1024")


def test_a_name_that_is_not_utf8_is_measured_in_bytes(box: Path, tmp_path: Path) -> None:
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, "w", format=tarfile.USTAR_FORMAT) as tar:
        info, data = _file("caf\udce9")  # b"caf\xe9": Latin-1, not UTF-8
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    assert unpack(archive, box / "dest").files == 1
    assert os.listdir(os.fsencode(box / "dest")) == [b"caf\xe9"]
    wide = "é" * 128  # 128 characters, 256 bytes
    _refused(box, _zip(tmp_path / "w.zip", [(wide, b"x", 0)]), "a name longer than 255 bytes")


def test_an_empty_zip_unpacks_to_nothing(box: Path, tmp_path: Path) -> None:
    archive = tmp_path / "empty.zip"
    with zipfile.ZipFile(archive, "w"):
        pass
    assert archive.read_bytes().startswith(b"PK\x05\x06")
    assert unpack(archive, box / "dest") == UnpackSummary(0, 0)


def test_links_with_a_nul_are_refused(box: Path, tmp_path: Path) -> None:
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("l")
        info.type = tarfile.SYMTYPE
        info.pax_headers = {"linkpath": "a\x00b"}
        tar.addfile(info)
    _refused(box, archive, "link 'l': points outside the folder")
    assert list((box / "dest").iterdir()) == []


# -- broken zips: each failure of zipfile is a reason --------------------------------


def _patched(data: bytes, signature: bytes, offset: int, value: bytes) -> bytes:
    """``data`` with ``value`` written at ``offset`` of every header with ``signature``."""
    out = bytearray(data)
    at = out.find(signature)
    while at >= 0:
        out[at + offset : at + offset + len(value)] = value
        at = out.find(signature, at + 4)
    return bytes(out)


def _deflated(name: str = "a", data: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("first", b"written first")
        zipped.writestr(name, data or os.urandom(4000))
    return buffer.getvalue()


def _stored_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        zipped.writestr("first", b"written first")
        zipped.writestr("a", b"stored bytes")
    return buffer.getvalue()


def _last_data_patched(data: bytes, value: bytes) -> bytes:
    """``data`` with the first bytes of its last entry ("a") replaced by ``value``."""
    at = data.rindex(b"PK\x03\x04") + 30 + len("a")
    return data[:at] + value + data[at + len(value) :]


def test_broken_zips_are_refused_with_a_reason(box: Path, tmp_path: Path) -> None:
    cases = {
        # An unknown compression method (99), in both headers: NotImplementedError.
        "method": _patched(
            _patched(_deflated(), b"PK\x01\x02", 10, b"\x63\x00"), b"PK\x03\x04", 8, b"\x63\x00"
        ),
        # A stored entry whose sizes say 1 MiB: the file ends first (EOFError).
        "short": _patched(
            _patched(_stored_zip(), b"PK\x01\x02", 20, (1 << 20).to_bytes(4, "little") * 2),
            b"PK\x03\x04",
            18,
            (1 << 20).to_bytes(4, "little") * 2,
        ),
        # A deflate stream whose first block has the reserved type (zlib.error).
        "data": _last_data_patched(_deflated(), b"\xff\xff"),
        # Stored bytes changed: their CRC fails (BadZipFile).
        "crc": _last_data_patched(_stored_zip(), b"XX"),
    }
    for case, data in cases.items():
        archive = tmp_path / f"{case}.zip"
        archive.write_bytes(data)
        with pytest.raises(ArchiveError, match=r"^a broken zip archive: ") as refused:
            unpack(archive, box / "dest", UnpackLimits(ratio=10_000))
        assert "\n" not in str(refused.value), case
        remove_tree(box / "dest")
        (box / "dest").mkdir()


def test_a_broken_tar_gz_is_one_line(box: Path, tmp_path: Path) -> None:
    good = _tar(tmp_path / "good.tar.gz", [_file("a", os.urandom(4096))])
    raw = bytearray(good.read_bytes())
    raw[30] ^= 0xFF  # inside the deflate stream's first block
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(bytes(raw))
    with pytest.raises(ArchiveError, match=r"^a broken tar archive: ") as refused:
        unpack(broken, box / "dest")
    assert "\n" not in str(refused.value)


# -- modes, whatever the umask ---------------------------------------------------------


def test_modes_do_not_depend_on_the_umask_or_on_which_execute_bit(
    box: Path, tmp_path: Path
) -> None:
    tar = _tar(
        tmp_path / "a.tar.gz",
        [_file("t/others", mode=0o641), _file("t/owner", mode=0o700), _file("t/none", mode=0o666)],
    )
    zipped = _zip(
        tmp_path / "a.zip",
        [("z/others", b"x", stat.S_IFREG | 0o641), ("z/group", b"x", stat.S_IFREG | 0o610),
         ("z/none", b"x", stat.S_IFREG | 0o666), ("z/sub/", b"", 0)],
    )  # fmt: skip
    old = os.umask(0o077)
    try:
        unpack(tar, box / "dest")
        remove_tree(box / "dest")
        (box / "dest").mkdir()
        unpack(zipped, box / "dest")
    finally:
        os.umask(old)
    dest = box / "dest"
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (dest / "z").iterdir()}
    assert modes == {"others": 0o755, "group": 0o755, "none": 0o644, "sub": 0o755}
    assert stat.S_IMODE((dest / "z").stat().st_mode) == 0o755


def test_tar_modes_keep_any_execute_bit(box: Path, tmp_path: Path) -> None:
    tar = _tar(
        tmp_path / "a.tar.gz",
        [_file("others", mode=0o641), _file("owner", mode=0o700), _file("none", mode=0o666)],
    )
    unpack(tar, box / "dest")
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (box / "dest").iterdir()}
    assert modes == {"others": 0o755, "owner": 0o755, "none": 0o644}


def test_check_tree_keeps_any_execute_bit_and_its_limits_are_inclusive(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    deep = tree / "d" / "d" / "d"
    deep.mkdir(parents=True)
    (deep / "x").write_text("1")
    os.chmod(deep / "x", 0o601)
    assert check_tree(tree, UnpackLimits(depth=4, path_bytes=7)).files == 4
    assert stat.S_IMODE((deep / "x").stat().st_mode) == 0o755
    with pytest.raises(ArchiveError, match="the build made 'd/d/d/x', more than 3 names deep"):
        check_tree(tree, UnpackLimits(depth=3))
    with pytest.raises(ArchiveError, match="'d/d/d/x', a path longer than 6 bytes"):
        check_tree(tree, UnpackLimits(path_bytes=6))


def test_limits_summaries_and_entries_are_values() -> None:
    """Frozen: a limit cannot be changed by whoever holds it."""
    entry = Entry(PurePosixPath("a"), Kind.FILE, False)
    for value, name in ((UnpackLimits(), "files"), (UnpackSummary(1, 2), "bytes"), (entry, "kind")):
        with pytest.raises(FrozenInstanceError):
            setattr(value, name, 0)


def test_remove_tree_and_walk_folders_leave_no_descriptor_open(tmp_path: Path) -> None:
    top = tmp_path / "top"
    (top / "a" / "b").mkdir(parents=True)
    (top / "a" / "f").write_text("x")
    before = len(os.listdir("/proc/self/fd"))
    walk_folders(top, lambda _fd, _name: None)
    remove_tree(top)
    assert len(os.listdir("/proc/self/fd")) == before


_CLOSED_FOLDERS = """
import os, sys
from pathlib import Path
from arena.submissions.cleanup import remove_tree
if os.geteuid() == 0:
    os.setgid(65534)
    os.setuid(65534)
top = Path(sys.argv[1]) / "mine"
(top / "closed" / "in").mkdir(parents=True)
(top / "closed" / "in" / "f").write_text("x")
(top / "readonly").mkdir()
(top / "readonly" / "g").write_text("x")
os.chmod(top / "closed" / "in", 0o500)  # no write: its file cannot be unlinked as it is
os.chmod(top / "closed", 0)  # not even searchable
os.chmod(top / "readonly", 0o500)
remove_tree(top)
print("gone" if not top.exists() else "left")
"""


@pytest.mark.slow
def test_remove_tree_opens_folders_their_owner_closed() -> None:
    """As their owner, not root (root passes every permission): folders of mode 000 and
    without write permission are opened up and removed."""
    import subprocess
    import sys
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="arena-closed-"))  # (pytest's folders are 0700)
    try:
        os.chmod(base, 0o777)
        done = subprocess.run(
            [sys.executable, "-c", _CLOSED_FOLDERS, str(base)],
            capture_output=True, text=True, timeout=60, check=False,
            cwd=Path(__file__).resolve().parents[2],
        )  # fmt: skip
        assert done.stdout.strip() == "gone", done.stderr
    finally:
        remove_tree(base)
