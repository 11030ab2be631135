"""The process table, as tests of "no process left behind" read it (Linux ``/proc``)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["parent_pid", "processes_with", "processes_with_environ", "zombie_children"]


def _stat_fields(pid: str) -> list[str]:
    """``/proc/PID/stat`` after the command name (which may hold spaces): state, ppid..."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def processes_with(*words: str) -> list[tuple[int, str]]:
    """Live processes whose command line holds every word, with that command line
    (zombies have an empty one, so they are never listed)."""
    needles = [word.encode() for word in words]
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:  # it ended while we looked
                continue
            if cmdline and all(needle in cmdline for needle in needles):
                found.append((int(entry), cmdline.replace(b"\0", b" ").decode(errors="replace")))
    return found


def processes_with_environ(*words: str) -> list[int]:
    """Live processes (not zombies) whose environment holds every word: a forked
    process shares its parent's command line and environment, which only a word of
    the environment set for one template or referee tells apart."""
    needles = [word.encode() for word in words]
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
                state = _stat_fields(entry)[0]
            except (OSError, IndexError):  # it ended while we looked
                continue
            if state != "Z" and all(needle in environ for needle in needles):
                found.append(int(entry))
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
