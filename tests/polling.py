"""Waiting, in tests, for something another process does: the one ``wait_until``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["wait_until"]

T = TypeVar("T")


def wait_until(what: str, predicate: Callable[[], T | None], seconds: float = 90) -> T:
    """Call ``predicate`` every 50 ms until it returns something true, and return that;
    fail the test naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
