"""The process table, as tests of "no process left behind" read it (Linux ``/proc``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["parent_pid", "processes_with", "processes_with_environ", "zombie_children"]


def _stat_fields(pid: str) -> list[str]:
    """``/proc/PID/stat`` after the command name (which may hold spaces): state, ppid..."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _proc_files(name: str, words: tuple[str, ...]) -> Iterator[tuple[int, bytes]]:
    """``(pid, /proc/PID/NAME)`` of the processes whose file holds every word (a zombie's
    command line and environment are empty, so it is never listed)."""
    needles = [word.encode() for word in words]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                content = Path(f"/proc/{entry}/{name}").read_bytes()
            except OSError:  # it ended while we looked
                continue
            if content and all(needle in content for needle in needles):
                yield int(entry), content


def processes_with(*words: str) -> list[tuple[int, str]]:
    """Live processes whose command line holds every word, with that command line."""
    return [
        (pid, cmdline.replace(b"\0", b" ").decode(errors="replace"))
        for pid, cmdline in _proc_files("cmdline", words)
    ]


def processes_with_environ(*words: str) -> list[int]:
    """Live processes (not zombies) whose environment holds every word: a forked
    process shares its parent's command line and environment, which only a word of
    the environment set for one template or referee tells apart."""
    found = []
    for pid, _ in _proc_files("environ", words):
        try:
            state = _stat_fields(str(pid))[0]
        except (OSError, IndexError):  # it ended while we looked
            continue
        if state != "Z":
            found.append(pid)
    return found


def zombie_children() -> list[int]:
    """This process's children that exited and were never reaped."""
    me = str(os.getpid())
    zombies = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                state, ppid = _stat_fields(entry)[:2]
            except OSError:
                continue
            if state == "Z" and ppid == me:
                zombies.append(int(entry))
    return zombies


def parent_pid(pid: int) -> int:
    return int(_stat_fields(str(pid))[1])
