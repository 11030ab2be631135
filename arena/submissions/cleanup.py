"""Removing a folder whatever a stranger put in it.

:func:`shutil.rmtree` recurses once per level, so a folder 2,000 deep stops it with a
``RecursionError`` half-way, and it names each entry by its whole path, which past
4,096 bytes the kernel refuses.  :func:`remove_tree` holds one open folder at a time
and names entries relative to it, so neither depth nor length can stop it; a folder
it may not enter (mode 000) it opens up first.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

__all__ = ["remove_tree", "walk_folders"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: Path) -> None:
    """Remove ``path`` and everything under it (links themselves, never what they point
    to); nothing there is not an error."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(path)
        return
    fd = _open_folder(str(path), None)
    below: list[str] = []  # the names from ``path`` down to the open folder
    try:
        while True:
            child = _empty_but_folders(fd)
            if child is not None:
                inner = _open_folder(child, fd)
                os.close(fd)
                fd = inner
                below.append(child)
                continue
            if not below:
                break
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            os.rmdir(below.pop(), dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(path)


def _open_folder(name: str, dir_fd: int | None) -> int:
    """Open a folder to empty it, first opening up one its owner closed (mode 000 or
    without write permission: the server owns what it removes)."""
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=dir_fd)
        fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    with contextlib.suppress(PermissionError):
        os.fchmod(fd, 0o700)
    return fd


def _empty_but_folders(fd: int) -> str | None:
    """Unlink every non-folder in the open folder ``fd``; the name of a folder left in it
    (None: it is empty now)."""
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                return entry.name
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.name, dir_fd=fd)
    return None


def walk_folders(top: Path, visit: Callable[[int, str], object]) -> None:
    """Call ``visit(folder_fd, name)`` for every entry under ``top`` (links are not
    followed), holding one open folder at a time, so any depth is walked; a folder that
    cannot be entered is passed over."""
    fd = os.open(top, _DIR_FLAGS)
    pending = [_visit_all(fd, visit)]  # per open level: its folders not yet entered
    try:
        while pending:
            if pending[-1]:
                child = pending[-1].pop()
                try:
                    inner = os.open(child, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    continue
                os.close(fd)
                fd = inner
                pending.append(_visit_all(fd, visit))
                continue
            pending.pop()
            if pending:
                parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = parent
    finally:
        os.close(fd)


def _visit_all(fd: int, visit: Callable[[int, str], object]) -> list[str]:
    folders = []
    with os.scandir(fd) as entries:
        for entry in entries:
            visit(fd, entry.name)
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.name)
    return folders
