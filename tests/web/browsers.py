"""Headless Chromium for the web tests: Debian's chromium driven by Playwright.

``browser`` (one per module) and ``page`` (a tab per test that fails the test on any
console error, uncaught exception or dialog: an ``alert`` would mean a hostile name ran
as script; ``page.problems`` lists them).  tests/web/conftest.py offers both to every
web test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["ARGS", "ARTIFACTS", "CHROMIUM", "browser", "leave", "page"]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",  # the tests run as root on CI
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api",
        reason="[chromium] playwright is not installed (pip install -e '.[test]')",
    )
    if not Path(CHROMIUM).exists():
        pytest.skip(f"[chromium] no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except sync_api.Error as error:
            pytest.skip(f"[chromium] Chromium does not start here: {error.message.splitlines()[0]}")
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    problems: list[str] = []
    tab.on(
        "console",
        lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    tab.on("pageerror", lambda error: problems.append(f"page error: {error}"))

    def on_dialog(dialog: Any) -> None:
        problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    tab.on("dialog", on_dialog)
    tab.problems = problems
    yield tab
    context.close()
    assert not problems, problems


def leave(page: Any) -> None:
    """Send the tab to a blank page before a server the test started goes: a leaderboard
    polls every 2 s, and a poll in flight as the server closes is a reset connection
    that the ``page`` fixture would report as the test's console error."""
    page.goto("about:blank")
