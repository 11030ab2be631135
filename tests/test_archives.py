"""Packing a folder: the same files give the same bytes, links follow the policy asked
for, and what is packed unpacks to the same tree."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest

from arena.archives import ArchiveError, OuterLinks, pack, unpack


def tree(root: Path) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "bot.toml").write_text('name = "b"\ncommand = ["./run"]\n')
    (root / "run").write_text("#!/bin/sh\n")
    (root / "run").chmod(0o755)
    (root / "lib" / "a.py").write_text("A = 1\n")
    os.symlink("lib/a.py", root / "alias.py")
    return root


def packed(root: Path, **options: Any) -> bytes:
    buffer = io.BytesIO()
    pack(root, buffer, **options)
    return buffer.getvalue()


def test_the_same_files_pack_to_the_same_bytes(tmp_path: Path) -> None:
    first = packed(tree(tmp_path / "one"))
    second_root = tree(tmp_path / "two")
    os.utime(second_root / "lib" / "a.py", (1, 1))  # other times, same files
    assert packed(second_root) == first
    (second_root / "lib" / "a.py").write_text("A = 2\n")
    assert packed(second_root) != first


def test_a_packed_tree_unpacks_to_the_same_tree(tmp_path: Path) -> None:
    root = tree(tmp_path / "bot")
    archive = tmp_path / "bot.tar.gz"
    archive.write_bytes(packed(root))
    out = tmp_path / "out"
    out.mkdir()
    summary = unpack(archive, out)
    assert summary.files == 5
    assert (out / "lib" / "a.py").read_text() == "A = 1\n"
    assert os.readlink(out / "alias.py") == "lib/a.py"
    assert os.access(out / "run", os.X_OK)


def test_a_link_out_is_refused_or_followed_as_asked(tmp_path: Path) -> None:
    root = tree(tmp_path / "bot")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "util.py").write_text("U = 1\n")
    os.symlink(tmp_path / "shared", root / "shared")
    with pytest.raises(ArchiveError, match="shared: a link out of the folder"):
        packed(root)
    archive = tmp_path / "bot.tar.gz"
    archive.write_bytes(packed(root, outer_links=OuterLinks.FOLLOW))
    out = tmp_path / "out"
    out.mkdir()
    unpack(archive, out)
    assert (out / "shared" / "util.py").read_text() == "U = 1\n"
    assert not (out / "shared").is_symlink()  # a copy of what it pointed to


def test_skipped_entries_and_the_size_cap(tmp_path: Path) -> None:
    root = tree(tmp_path / "bot")
    (root / "big.bin").write_bytes(os.urandom(300_000))
    archive = tmp_path / "bot.tar.gz"
    archive.write_bytes(packed(root, skip=lambda name, is_dir: name == "big.bin"))
    out = tmp_path / "out"
    out.mkdir()
    unpack(archive, out)
    assert not (out / "big.bin").exists() and (out / "run").exists()
    with pytest.raises(ArchiveError, match="packs to more than 100,000 bytes"):
        packed(root, max_bytes=100_000)
