"""Session-wide settings for the tests.

With ``ARENA_EXPECT_COMPILED=FILE`` (make test's pass over ``build/compiled``), the
modules listed in FILE must be the compiled ones: a pass that quietly imported the
pure modules again would prove nothing.

As root, bots run as uids of their own, and outside bwrap they must be able to reach
their interpreter; this machine's Python may live under root's home (mode 700).  Then
:data:`BOT_PYTHON` is one they can run (:mod:`arena.testing.bot_python`), and
registered Python bots are served by it (``ARENA_BOT_PYTHON``), as the README tells an
operator to do.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
from pathlib import Path

import pytest

from arena.testing.bot_python import unprivileged_python

BOT_PYTHON = unprivileged_python()
os.environ.setdefault("ARENA_BOT_PYTHON", BOT_PYTHON)


def pytest_configure(config: pytest.Config) -> None:
    listing = os.environ.get("ARENA_EXPECT_COMPILED")
    if not listing:
        return
    for name in Path(listing).read_text().split():
        origin = importlib.import_module(name).__file__ or ""
        if not origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            raise pytest.UsageError(f"{name} is not the compiled module: it came from {origin}")
