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

from arena.submissions.cleanup import remove_tree, walk_folders
from arena.submissions.unpack import (
    ArchiveError,
    UnpackLimits,
    UnpackSummary,
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
