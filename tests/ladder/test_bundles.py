"""Manifest bots packed as content-addressed archives, and hostile archives refused."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
from pathlib import Path

import pytest

from arena.hosting.manifest import load_manifest
from arena.ladder.bundles import BundleError, pack_manifest, unpack


def make_bot(folder: Path, working_directory: str = ".") -> Path:
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "lib" / "data.txt").write_text("weights\n")
    os.symlink("lib/data.txt", folder / "data")  # a link that stays inside
    manifest = folder / "bot.toml"
    manifest.write_text(
        f'name = "b"\ncommand = "sh run.sh"\nworking_directory = "{working_directory}"\n'
    )
    return manifest


def test_the_same_files_give_the_same_digest(tmp_path: Path) -> None:
    first = pack_manifest(make_bot(tmp_path / "one"))
    second = pack_manifest(make_bot(tmp_path / "two"))
    assert first.sha256 == second.sha256 == hashlib.sha256(first.data).hexdigest()
    (tmp_path / "two" / "bot.py").write_text("print('changed')\n")
    assert pack_manifest(tmp_path / "two" / "bot.toml").sha256 != first.sha256


def test_unpacked_bot_runs_from_the_cache(tmp_path: Path) -> None:
    bundle = pack_manifest(make_bot(tmp_path / "src"))
    cache = tmp_path / "cache"
    folder = unpack(bundle.data, bundle.sha256, cache)
    assert folder == cache / bundle.sha256
    assert (folder / "lib" / "data.txt").read_text() == "weights\n"
    assert (folder / "data").is_symlink() and (folder / "data").read_text() == "weights\n"
    assert os.access(folder / "run.sh", os.X_OK)
    command = load_manifest(folder / bundle.manifest)
    assert command.cwd == folder
    assert unpack(b"not read again", bundle.sha256, cache) == folder  # cached by digest


def test_working_directory_outside_widens_the_archive(tmp_path: Path) -> None:
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "engine").write_text("x")
    manifest = make_bot(tmp_path / "bot", working_directory="../common")
    bundle = pack_manifest(manifest)
    assert bundle.manifest == "bot/bot.toml"
    folder = unpack(bundle.data, bundle.sha256, tmp_path / "cache")
    assert load_manifest(folder / bundle.manifest).cwd == folder / "common"


def test_a_link_out_of_the_folder_is_not_packed(tmp_path: Path) -> None:
    manifest = make_bot(tmp_path / "bot")
    os.symlink("/etc/passwd", tmp_path / "bot" / "secret")
    with pytest.raises(BundleError, match="secret: a link out of the folder"):
        pack_manifest(manifest)


def archive(*members: tuple[tarfile.TarInfo, bytes]) -> tuple[bytes, str]:
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb") as zipped,
        tarfile.open(fileobj=zipped, mode="w") as tar,
    ):
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data else None)
    return buffer.getvalue(), hashlib.sha256(buffer.getvalue()).hexdigest()


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


@pytest.mark.parametrize(
    ("hostile", "problem"),
    [
        (member("/tmp/owned"), "an absolute path"),
        (member("../owned"), "a path with '..'"),
        (member("a/../../owned"), "a path with '..'"),
        (member("up", tarfile.SYMTYPE, "../../etc"), "points outside the folder"),
        (member("abs", tarfile.SYMTYPE, "/etc/passwd"), "points outside the folder"),
        (member("hard", tarfile.LNKTYPE, "/etc/passwd"), "hard links are not accepted"),
        (member("dev", tarfile.CHRTYPE), "a device, fifo or other special file"),
        (member("fifo", tarfile.FIFOTYPE), "a device, fifo or other special file"),
    ],
)
def test_hostile_archives_are_refused_and_leave_nothing(
    tmp_path: Path, hostile: tarfile.TarInfo, problem: str
) -> None:
    data, digest = archive((member("ok.txt"), b"fine"), (hostile, b""))
    cache = tmp_path / "cache"
    with pytest.raises(BundleError, match=problem):
        unpack(data, digest, cache)
    assert list(cache.iterdir()) == []  # no half-unpacked bot
    assert not (tmp_path / "owned").exists()


def test_an_archive_whose_content_is_not_its_name_is_refused(tmp_path: Path) -> None:
    data, digest = archive((member("ok.txt"), b"fine"))
    other = hashlib.sha256(b"something else").hexdigest()
    with pytest.raises(BundleError, match=f"content has digest {digest[:12]}"):
        unpack(data, other, tmp_path / "cache")
    with pytest.raises(BundleError, match="is not a SHA-256 digest"):
        unpack(data, "../../etc", tmp_path / "cache")
