"""``arena serve DB --submissions`` is one site: the author's pages in the view's frame
(same header, navigation and stylesheet), reachable from each other by links; and
``--root-path /arena`` behind a reverse proxy that strips the prefix, with every link,
form, redirect, asset and script URL carrying it.

Real processes and sockets: ``arena serve`` on a loopback port, a tiny proxy in front
(:mod:`tests.web.proxy`), urllib with a cookie jar as the client, and Debian's Chromium
driven by Playwright for the pages."""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena.storage import LadderStore
from arena.storage.submissions_store import SubmissionStore
from tests.submissions.web import WebSession
from tests.web.browsers import ARTIFACTS, leave
from tests.web.conftest import Ladders, serving
from tests.web.proxy import prefix_proxy

pytestmark = pytest.mark.slow  # every test starts a server

PREFIX = "/arena"
URLS = re.compile(r'(?:href|src|action)="([^"]*)"')
DATA_URLS = re.compile(r'data-[a-z-]+="(/[^"]*)"')  # what the scripts fetch


@pytest.fixture
def ladder(ladders: Ladders, tmp_path: Path) -> tuple[Path, str]:
    """A copy of the Gin ladder (its matches and replays) with an author: the database
    and alice's token."""
    copy = tmp_path / "gin.sqlite"
    with sqlite3.connect(ladders.gin) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    store = LadderStore.open(copy)
    token = SubmissionStore(store).add_author("alice")
    store.close()
    return copy, token


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _answer(url: str, data: bytes | None = None) -> tuple[int, dict[str, str]]:
    """The status and headers of one request, redirects not followed."""
    opener = urllib.request.build_opener(_NoRedirects)
    try:
        with opener.open(urllib.request.Request(url, data=data), timeout=60) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers)


def _shape(path: str) -> str:
    """Pages that differ only in an id or a name: one shape (a few of each are read)."""
    path = re.sub(r"\d+", "N", path.split("?")[0])
    return re.sub(r"/bots/[^/]+", "/bots/NAME", path)


def test_every_url_carries_the_prefix_behind_a_proxy(ladder: tuple[Path, str]) -> None:
    """Signed in through the proxy, every page reachable by links from the leaderboard
    and the author's pages: each href, src, form action and script data URL starts with
    the prefix, and each GET link answers through the proxy."""
    db, token = ladder
    options = ("--submissions", "--root-path", PREFIX)
    with serving(db, options=options) as backend, prefix_proxy(backend, PREFIX) as site:
        # Redirects carry the prefix: the proxy does not rewrite them.
        status, headers = _answer(f"{site}/my")
        assert (status, headers["location"]) == (303, f"{PREFIX}/signin")
        web = WebSession(site)
        assert web.sign_in(token)[0] == 200  # the redirect to /arena/my, followed
        cookies = {cookie.name: cookie.path for cookie in web.jar}
        assert cookies == {"arena_session": f"{PREFIX}/"}

        seen: dict[str, int] = {}
        shapes: dict[str, int] = {}
        queue = [f"{PREFIX}/", f"{PREFIX}/my", f"{PREFIX}/signin", f"{PREFIX}/no-such-page"]
        pages = 0
        while queue:
            path = queue.pop(0)
            if path in seen or shapes.get(_shape(path), 0) >= 2:
                continue
            shapes[_shape(path)] = shapes.get(_shape(path), 0) + 1
            status, body = web.get(path.removeprefix(PREFIX))
            seen[path] = status
            expected = 404 if path.endswith("/no-such-page") else 200
            assert status == expected, (path, status, body[:300])
            if "<html" not in body[:200]:
                continue  # JSON, a stylesheet, a script, a log
            pages += 1
            for url in URLS.findall(body):
                url = url.replace("&amp;", "&")
                assert url.startswith(f"{PREFIX}/"), (path, url)
                if "/signout" not in url and "/my/upload" not in url:
                    queue.append(url)
            for url in DATA_URLS.findall(body):
                assert url.startswith(f"{PREFIX}/"), (path, url)
                if url.endswith(("/progress", "/replay")):  # not a stream that stays open
                    queue.append(url)
        assert pages >= 10, seen
        for wanted in ("/static/style.css", "/static/live.js", "/api/progress", "/my", "/field"):
            assert f"{PREFIX}{wanted}" in seen, (wanted, sorted(seen))
        assert any(re.fullmatch(rf"{PREFIX}/api/matches/\d+/replay", path) for path in seen)
        # The JSON's URLs too.
        status, body = web.get("/api/ladders")
        assert status == 200
        for entry in json.loads(body)["ladders"]:
            assert entry["url"].startswith(f"{PREFIX}/ladders/"), entry
            assert entry["api"].startswith(f"{PREFIX}/api/ladders/"), entry

        # Signing out: a 303 to the prefixed sign-in page, the session's cookie gone.
        csrf = web.form_csrf()
        opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(web.jar), _NoRedirects
        )
        request = urllib.request.Request(
            f"{site}/signout", data=f"csrf={csrf}".encode(), method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as answer:
            opener.open(request, timeout=60)
        assert answer.value.code == 303
        assert answer.value.headers["location"] == f"{PREFIX}/signin"


# -- in the browser -----------------------------------------------------------------------


def _frame(page: Any) -> dict[str, Any]:
    """What makes a page look like the site: its stylesheets, its navigation's links,
    and the styles the stylesheet gives the header, the navigation and the body."""
    frame: dict[str, Any] = page.evaluate(
        """() => {
        const style = (selector, name) =>
            getComputedStyle(document.querySelector(selector)).getPropertyValue(name);
        return {
            sheets: Array.from(document.querySelectorAll("link[rel=stylesheet]"), (l) => l.href),
            rules: Array.from(document.styleSheets, (s) => s.cssRules.length),
            links: Array.from(document.querySelectorAll("header nav a"), (a) => a.textContent.trim()),
            header: [style("header", "background-color"), style("header", "border-bottom")],
            nav: style("nav", "display"),
            font: style("body", "font-family"),
        };
    }"""
    )
    return frame


def _sign_in(page: Any, token: str) -> None:
    page.fill("#token", "not-the-token")
    page.click("#signin")
    assert page.text_content("#problem") == "that token is not valid"
    page.problems.clear()  # the refused token's 401 is a console error
    page.fill("#token", token)
    page.click("#signin")


def test_the_author_pages_are_the_sites_pages(page: Any, ladder: tuple[Path, str]) -> None:
    db, token = ladder
    with serving(db, options=("--submissions",)) as url:
        page.goto(f"{url}/")
        board = _frame(page)
        assert board["sheets"] == [f"{url}/static/style.css"]
        assert all(board["rules"]), board  # the stylesheet loaded
        assert board["links"][:5] == [
            "Rummy Arena",
            "Leaderboard",
            "Field",
            "Crosstable",
            "Matches",
        ]
        assert board["links"][-1] == "Sign in"

        page.click("#nav-signin")
        page.wait_for_url(f"{url}/signin")
        assert _frame(page) == board  # same frame, signed out
        _sign_in(page, token)
        page.wait_for_url(f"{url}/my")
        mine = _frame(page)
        assert page.text_content("#signed-in") == "Signed in as alice"
        assert mine["links"] == [*board["links"][:-1], "My submissions"]
        assert {k: v for k, v in mine.items() if k != "links"} == {
            k: v for k, v in board.items() if k != "links"
        }
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "my-submissions.png"), full_page=True)

        # From /my to the leaderboard and back, by the navigation's links.
        page.click("header nav >> text=Leaderboard")
        page.wait_for_url(f"{url}/")
        assert page.text_content("h1") == "Leaderboard"
        assert page.text_content("#signed-in") == "Signed in as alice"
        assert _frame(page)["links"] == mine["links"]
        page.click("#nav-my")
        page.wait_for_url(f"{url}/my")
        assert page.text_content("h1") == "My submissions"
        page.click("header nav >> text=Matches")
        page.wait_for_url(f"{url}/matches")
        page.click("#nav-my")
        page.wait_for_url(f"{url}/my")

        page.click("#signout")
        page.wait_for_url(f"{url}/signin")
        assert _frame(page)["links"][-1] == "Sign in"
        leave(page)


def test_under_a_prefix_in_the_browser(page: Any, ladder: tuple[Path, str]) -> None:
    """Behind the proxy: styles and scripts load, the replay viewer fetches its replay,
    signing in lands on the prefixed /my."""
    db, token = ladder
    options = ("--submissions", "--root-path", PREFIX)
    with serving(db, options=options) as backend, prefix_proxy(backend, PREFIX) as site:
        page.goto(f"{site}/")
        frame = _frame(page)
        assert frame["sheets"] == [f"{site}/static/style.css"] and all(frame["rules"])
        page.wait_for_selector("#board[data-finished]")  # live.js read the progress
        page.click("header nav >> text=Matches")
        page.wait_for_url(f"{site}/matches")
        page.click("table.matches a[href*='/matches/'] >> nth=0")
        page.wait_for_selector("#viewer[data-ready='true']")  # replay.js fetched the replay
        assert page.url.startswith(f"{site}/matches/")
        page.click("#nav-signin")
        page.wait_for_url(f"{site}/signin")
        _sign_in(page, token)
        page.wait_for_url(f"{site}/my")
        assert page.text_content("#signed-in") == "Signed in as alice"
        page.click("header nav >> text=Leaderboard")
        page.wait_for_url(f"{site}/")
        leave(page)
