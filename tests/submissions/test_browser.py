"""In headless Chromium: sign in with the token, upload the JS kit through the form,
see the report."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.submissions.client import pack_folder
from tests.submissions.conftest import JS_KIT, add_author, needs_bwrap, needs_js_kit, serve

pytestmark = pytest.mark.slow  # every test here starts processes or servers

CHROMIUM = "/usr/bin/chromium"


def _browser_or_skip() -> None:
    pytest.importorskip("playwright.sync_api", reason="[chromium] playwright is not installed")
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"[chromium] no browser at {CHROMIUM} (Debian: apt-get install chromium)")


def test_sign_in_upload_and_read_the_report(
    ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _browser_or_skip()
    needs_bwrap()
    needs_js_kit()
    from playwright.sync_api import sync_playwright

    token = add_author(ladder, "carol", capsys)
    archive = tmp_path / "js-starter.tar.gz"
    archive.write_bytes(pack_folder(JS_KIT))
    with serve(ladder) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
            ],
        )  # fmt: skip
        try:
            page = browser.new_page()
            console_errors: list[str] = []
            page.on(
                "console", lambda m: console_errors.append(m.text) if m.type == "error" else None
            )
            page.goto(f"{server.url}/my")  # an author's page: sign in first
            assert page.url.endswith("/signin")
            page.fill("#token", "not-the-token")
            page.click("#signin")
            assert page.text_content("#problem") == "that token is not valid"
            page.fill("#token", token)
            page.click("#signin")
            page.wait_for_url(f"{server.url}/my")
            assert "Signed in as carol" in (page.text_content("body") or "")
            console_errors.clear()  # the refused token's 401 was one
            page.set_input_files("#archive", str(archive))
            page.click("#upload")
            page.wait_for_url(f"{server.url}/my/submissions/*")
            for _ in range(240):  # the check takes a while: reload until it is done
                if page.text_content("#status") != "checking":
                    break
                page.wait_for_timeout(1000)
                page.reload()
            assert page.text_content("#status") == "accepted", page.content()
            assert "js-starter.v1" in (page.text_content("#version") or "")
            checks = page.locator("#checks tr").all_text_contents()
            assert any("handshake" in row and "pass" in row for row in checks)
            page.click("text=my submissions")
            assert "js-starter.v1" in (page.text_content("#bots") or "")
            assert console_errors == []  # e.g. the CSP blocking something a page uses
        finally:
            browser.close()
