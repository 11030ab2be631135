"""With ``ARENA_EXPECT_COMPILED=FILE`` (make test's pass over ``build/compiled``), the
modules listed in FILE must be the compiled ones: a pass that quietly imported the
pure modules again would prove nothing."""

from __future__ import annotations

import importlib
import importlib.machinery
import os
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    listing = os.environ.get("ARENA_EXPECT_COMPILED")
    if not listing:
        return
    for name in Path(listing).read_text().split():
        origin = importlib.import_module(name).__file__ or ""
        if not origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            raise pytest.UsageError(f"{name} is not the compiled module: it came from {origin}")
