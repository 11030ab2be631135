"""The pages in headless Chromium (Debian's package, driven by Playwright): the
leaderboard's rows, the rating plot's series, the replay viewer stepped forward and
back by buttons and keys with the cards it shows checked against the replay file, one
seat's view hiding the other hands; any console error fails the test.  Screenshots go
to test-artifacts/web/ (look at them)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena.games.registry import find_game
from arena.replays.files import read_replay
from arena.replays.records import Record
from arena.replays.seat_view import dealt_hands
from tests.web.browsers import ARTIFACTS, leave
from tests.web.conftest import ARENA, HOSTILE, Ladders, serving

pytestmark = pytest.mark.slow  # a browser and a server for every test

sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="[chromium] playwright is not installed (pip install -e '.[test]')",
)


def shot(tab: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def api(server: str, path: str) -> Any:
    with urllib.request.urlopen(server + path) as response:
        return json.load(response)


def test_leaderboard_rows(page: Any, server: str) -> None:
    body = api(server, "/api/ladders/gin-web/leaderboard")
    page.goto(server + "/ladders/gin-web/")
    active = page.locator("#active tbody tr")
    expected = [bot for bot in body["bots"] if bot["place"] is not None]
    assert active.count() == len(expected)
    for row, bot in zip(active.all(), expected, strict=True):
        cells = row.locator("td").all_inner_texts()
        assert cells[0] == str(bot["place"]) and cells[1] == bot["name"]
        assert cells[3] == f"{bot['score']:.2f}" and cells[6] == str(bot["matches"])
    assert HOSTILE in page.locator("#active").inner_text()  # shown as text, not run
    assert page.locator("#apart tbody tr").all_inner_texts()[0].split("\t")[1] == "illegal"
    shot(page, "leaderboard")


def test_live_leaderboard_polls_progress(page: Any, server: str) -> None:
    page.goto(server + "/ladders/gin-web/")
    page.wait_for_selector("#board[data-finished='6']")  # live.js has read /api/.../progress


LIVE = """\
name = "live"
game = "gin-rummy/standard"
[schedule]
repeat = 2
[match]
games = 2
hands_only = true
[run]
concurrency = 1
sandbox = "none"
replays = "replays"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""


def test_leaderboard_updates_live_while_the_ladder_runs(page: Any, tmp_path: Path) -> None:
    (tmp_path / "live.toml").write_text(LIVE)
    db = tmp_path / "live.sqlite"
    subprocess.run(
        [str(ARENA), "ladder", "create", str(tmp_path / "live.toml"), "--db", str(db)], check=True
    )
    with serving(db) as url:
        page.goto(url + "/")
        assert "0 / 0 matches done" in page.locator("#progress").inner_text()
        assert page.locator("#active tbody tr").count() == 2
        runner = subprocess.Popen(
            [str(ARENA), "ladder", "run", str(db), "--quiet"], stdout=subprocess.DEVNULL
        )
        try:
            # No reload: live.js sees the progress move and swaps in the fresh board.
            sync_api.expect(page.locator("#progress")).to_contain_text(
                "4 / 4 matches done", timeout=120_000
            )
            assert runner.wait(timeout=60) == 0
        finally:
            runner.kill()
            runner.wait()
        rows = page.locator("#active tbody tr td:nth-child(7)").all_inner_texts()
        assert rows == ["4", "4"]  # each bot's matches, as the board now shows them
        shot(page, "live")
        leave(page)


def test_rating_plot_drew_its_series(page: Any, server: str) -> None:
    history = api(server, "/api/ladders/gin-web/bots/greedy")["history"]
    page.goto(server + "/ladders/gin-web/bots/greedy")
    mu = page.locator("svg#rating polyline[data-series='mu']")
    box = mu.bounding_box()
    assert box is not None and box["width"] > 100 and box["height"] > 1
    assert len(mu.get_attribute("points").split()) == len(history)
    band = page.locator("svg#rating polygon.band").bounding_box()
    assert band is not None and band["height"] > box["height"]  # the band is wider than the line
    shot(page, "bot")


def test_field_plot_and_crosstable(page: Any, server: str) -> None:
    page.goto(server + "/ladders/gin-web/field")
    series = page.locator("svg#field polyline.series")
    assert series.count() == 4
    assert all((series.nth(i).bounding_box() or {}).get("width", 0) > 100 for i in range(4))
    shot(page, "field")
    page.goto(server + "/ladders/gin-web/crosstable")
    assert page.locator("table.crosstable tbody tr").count() == 4
    shot(page, "crosstable")


# -- the replay viewer ----------------------------------------------------------------


def replay_of(db: Path, match_id: int) -> list[Record]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        path = connection.execute(
            "SELECT replay FROM matches WHERE id = ?", (match_id,)
        ).fetchone()[0]
    return read_replay(Path(path)).records


def shown(page: Any, seat: int) -> list[str]:
    return page.locator(f".seat-box[data-seat='{seat}'] .hand [data-card]").evaluate_all(
        "nodes => nodes.map(n => n.dataset.card)"
    )


def pile(page: Any) -> list[str]:
    return page.locator("#discard [data-card]").evaluate_all(
        "nodes => nodes.map(n => n.dataset.card)"
    )


def position(page: Any) -> int:
    return int(page.locator("#position").inner_text().split()[1]) - 1


def open_viewer(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#viewer[data-ready='true']")
    assert page.locator("#listing").is_hidden()  # the scripts-off listing gives way


def check_stepping(page: Any, server: str, ladder: str, db: Path, match_id: int, name: str) -> None:
    records = replay_of(db, match_id)
    seats = len(records[0]["players"])
    deals = dealt_hands(records, find_game)
    steps = api(server, f"/api/ladders/{ladder}/matches/{match_id}/replay")["steps"]
    open_viewer(page, f"{server}/ladders/{ladder}/matches/{match_id}")
    # Step 0 is the first deal: every hand as the replay's deck dealt it.
    first = next(r for r in records if r["type"] == "deal")
    dealt = deals[first["game"], first["hand"]]
    for seat in range(seats):
        assert sorted(shown(page, seat)) == sorted(dealt.hands[seat]), seat
    assert pile(page) == [dealt.upcard]
    # Games and hands as a person counts them, from 1 (the JSON's are 0-based).
    where = f"game {first['game'] + 1}, hand {first['hand'] + 1}:"
    assert page.locator("#step-where").inner_text() == where
    assert page.locator("#step-text").inner_text().startswith(f"hand {first['hand'] + 1}: ")
    # Forward with the button to the first discard of the replay.
    actions = [r for r in records if r["type"] == "action"]
    discard_at = next(i for i, r in enumerate(actions) if r["action"].startswith("discard "))
    discard = actions[discard_at]
    card = discard["action"].split()[1]
    for _ in range(discard_at + 1):
        page.click("#next")
    assert steps[position(page)]["kind"] == "action"
    assert pile(page)[-1] == card
    assert card not in shown(page, discard["seat"])
    assert page.locator(".seat-box.acting").get_attribute("data-seat") == str(discard["seat"])
    shot(page, f"{name}-after-discard")
    # Back with the keyboard: the card is in the hand again and off the pile.
    page.keyboard.press("ArrowLeft")
    assert card in shown(page, discard["seat"])
    assert not pile(page) or pile(page)[-1] != card or pile(page).count(card) < 2
    # Every hand: Page Down lands on its deal, whose cards are the replay's.
    hand_deals = [r for r in records if r["type"] == "deal"]
    page.keyboard.press("Home")
    assert position(page) == 0
    for record in hand_deals[1:]:
        page.keyboard.press("PageDown")
        step = steps[position(page)]
        assert step["kind"] == "deal" and (step["game"], step["hand"]) == (
            record["game"],
            record["hand"],
        )
        dealt = deals[record["game"], record["hand"]]
        for seat in range(seats):
            assert sorted(shown(page, seat)) == sorted(dealt.hands[seat]), (record["hand"], seat)
    # Back a hand with the button, and to the end: the last hand's reveal and totals.
    page.click("#prev-hand")
    assert steps[position(page)]["kind"] == "deal"
    page.click("#last-step")
    assert position(page) == len(steps) - 1
    end = next(r for r in reversed(records) if r["type"] == "hand_end")
    assert f"hand over: {end['result']['termination']}" in page.locator("#hand-end").inner_text()
    shot(page, f"{name}-end")


def first_match(db: Path, seats: int) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        for match_id, seats_json in connection.execute(
            "SELECT id, seats FROM matches WHERE status = 'finished' ORDER BY id"
        ):
            names = json.loads(seats_json)
            if len(names) == seats and "illegal" not in names:
                return int(match_id)
    raise AssertionError(f"no {seats}-seat match")


def test_gin_replay_steps_forward_and_back(page: Any, server: str, ladders: Ladders) -> None:
    check_stepping(page, server, "gin-web", ladders.gin, first_match(ladders.gin, 2), "gin")


def test_rummy_four_seat_replay_steps_forward_and_back(
    page: Any, server: str, ladders: Ladders
) -> None:
    check_stepping(page, server, "rummy-web", ladders.rummy, first_match(ladders.rummy, 4), "rummy")


def test_one_seats_view_hides_the_other_hands(page: Any, server: str, ladders: Ladders) -> None:
    match_id = first_match(ladders.rummy, 4)
    steps = api(server, f"/api/ladders/rummy-web/matches/{match_id}/replay")["steps"]
    open_viewer(page, f"{server}/ladders/rummy-web/matches/{match_id}")
    page.select_option("#view-as", "1")
    # Walk a stretch of the hand: at each step seat 1 sees its own cards, and of the
    # others only their number and the cards they are known to hold.
    for _ in range(12):
        state = steps[position(page)]["state"]
        assert sorted(shown(page, 1)) == sorted(state["hands"][1])
        for seat in (0, 2, 3):
            assert sorted(shown(page, seat)) == sorted(state["known"][seat])
            backs = page.locator(f".seat-box[data-seat='{seat}'] .hand .card.back").count()
            assert backs == state["sizes"][seat] - len(state["known"][seat])
        step = steps[position(page)]
        private = page.locator("#step-private").inner_text()
        assert (private != "") == bool(step["private"] and step["seat"] == 1)
        page.keyboard.press("ArrowRight")
    shot(page, "rummy-seat-view")
    page.select_option("#view-as", "-1")
    state = steps[position(page)]["state"]
    for seat in range(4):
        assert sorted(shown(page, seat)) == sorted(state["hands"][seat])


def test_replay_listing_works_with_scripts_off(browser: Any, server: str, ladders: Ladders) -> None:
    context = browser.new_context(java_script_enabled=False)
    tab = context.new_page()
    match_id = first_match(ladders.gin, 2)
    tab.goto(f"{server}/ladders/gin-web/matches/{match_id}")
    assert tab.locator("#viewer").is_hidden()
    assert tab.locator("ol.steps li.step-deal").count() == 3
    context.close()
