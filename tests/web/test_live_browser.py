"""A match watched while it is played, in headless Chromium: the leaderboard lists it under
"Playing now", its page follows it in the replay viewer step after step with the hands
as card backs, and when it ends the page loads again as the finished match's."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.web.browsers import ARTIFACTS
from tests.web.test_live import Competition, competition, first_live  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow  # a browser, a server and a runner


def steps(viewer: Any) -> int:
    return int(viewer.get_attribute("data-steps") or "0")


# A bot that thinks 150 ms a decision: a match lasts long enough to be watched.
@pytest.mark.parametrize("competition", [{"delay_ms": "150"}], indirect=True)
def test_a_match_in_play_is_followed_in_the_viewer(competition: Competition, page: Any) -> None:  # noqa: F811
    match = first_live(competition)
    page.goto(competition.url + "/")
    link = page.locator(f"#playing a[href$='/matches/{match['id']}']")
    link.wait_for(timeout=30_000)
    link.click()
    # (The page's CSP allows no eval: conditions are read from Python, not evaluated there.)
    viewer = page.locator("#viewer[data-live][data-ready='true']")
    viewer.wait_for(timeout=30_000)
    first = steps(viewer)
    deadline = time.monotonic() + 30
    while steps(viewer) <= first:
        assert time.monotonic() < deadline, "the viewer did not follow the match"
        time.sleep(0.1)
    # While a hand is in play the hands are card backs (the ladder keeps them hidden).
    backs_seen = False
    deadline = time.monotonic() + 30
    while not backs_seen and time.monotonic() < deadline:
        backs = page.locator("#seats .hand .card.back").count()
        faces = page.locator("#seats .hand .card:not(.back)").count()
        backs_seen = backs > 0 and faces == 0
        time.sleep(0.1)
    assert backs_seen, "never saw a hand in play drawn as card backs"
    assert "in play" in page.locator("#live-status").inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "live-match.png"), full_page=True)

    # The match ends: the page loads again, as the finished match's.
    page.locator("#live-status").wait_for(state="detached", timeout=120_000)
    assert "finished" in page.locator(".facts").inner_text()
