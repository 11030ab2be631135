"""Each journey of the README and docs/, run as a new user types it, for the Python SDK
bot written from docs/SDK.md and for every starter kit this machine can build: play it
(`arena match`), check it (`arena check`), replay and verify it (`arena replay`,
`--verify`, `--seat`), debug it in the referee's process (`--in-process`), add it to a
ladder made from docs/LADDERS.md's example and run it, serve the ladder and fetch every
page the leaderboard, a bot page and a match page link to with their JSON twins, and
submit it over HTTP to a ladder's server (`arena ladder author add`, `arena serve DB
--submissions`, `arena submit ... --wait`). What each command must not do is in
helpers.py: fail, print a traceback, or print a path the user never gave it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.journeys.helpers import User, copy_kit, get, ladder_config, write_python_bot
from tests.submissions.conftest import needs_bwrap, serve
from tests.web.conftest import serving

pytestmark = pytest.mark.slow  # every journey starts the arena, bots and servers

BOTS = ["python", "js", "go", "cpp"]


@pytest.fixture(params=BOTS)
def journey(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[User, str]:
    """A fresh folder holding the user's bot in ``mybot/``; the user and the bot's name."""
    user = User(tmp_path)
    kind: str = request.param
    folder = tmp_path / "mybot"
    name = write_python_bot(folder) if kind == "python" else copy_kit(kind, folder)
    return user, name


def _replay(output: str) -> str:
    found = re.search(r"^replay: (\S+\.jsonl)$", output, re.M)
    assert found is not None, output
    return found.group(1)


def test_play_check_replay_and_debug(journey: tuple[User, str]) -> None:
    user, name = journey
    out = user.arena("bots", "--manifests", ".")
    assert re.search(rf"^{name} +manifest mybot/bot.toml ", out, re.M), out
    assert "not built" not in out and "problem" not in out, out
    out = user.arena(
        "match", "mybot", "random", "--hands", "--games", "1", "--seed", "3", "--replays", "replays"
    )
    assert f"Finished game 1 ({name} vs random)" in out, out
    replay = _replay(out)
    assert (user.home / replay).is_file()

    out = user.arena("match", "mybot/bot.toml", "random", "--hands", "--games", "1", "--verbose")
    assert "Finished game 1" in out

    out = user.arena("check", "mybot", "--games", "1")
    assert f"{name}: conforms (" in out and "FAIL " not in out, out

    out = user.arena("replay", replay)
    assert "game 1" in out and "hand 1:" in out, out
    out = user.arena("replay", "--verify", replay)
    assert "verified, the engine agrees with every record" in out, out
    out = user.arena("replay", replay, "--seat", "1", "--hand", "1")
    assert "the view of seat 1 (random)" in out, out

    if name == "take-nothing":  # a Python manifest bot runs in the referee's process
        out = user.arena(
            "match", "mybot/bot.toml", "random", "--hands", "--games", "1", "--in-process"
        )
        assert re.search(rf"^{name} .* in-process$", out, re.M), out
    else:  # any other is refused in one line saying why
        out = user.arena(
            "match", "mybot/bot.toml", "random", "--hands", "--games", "1", "--in-process", status=2
        )
        assert len(out.strip().splitlines()) == 1, out


def _twins(path: str) -> list[str]:
    """The JSON twins docs/WEB.md gives a page's path."""
    if path == "/":
        return ["/api/leaderboard", "/api/progress"]
    twins = [f"/api{path}"]
    if re.fullmatch(r"/matches/\d+", path):
        twins.append(f"/api{path}/replay")
    return twins


def _crawl(user: User, url: str, bot: str) -> set[str]:
    """Every page the leaderboard, the bot's page and a match page link to, and each
    one's JSON twin: all answer 200 with clean bodies. The pages fetched."""
    status, _, board = get(url + "/")
    assert status == 200
    found = re.search(r'href="(/matches/\d+)"', board) or re.search(
        r'href="(/matches/\d+)"', get(url + f"/bots/{bot}")[2]
    )
    assert found is not None, "no match linked from the leaderboard or the bot's page"
    starts = ["/", f"/bots/{bot}", found.group(1)]
    pages: set[str] = set()
    for start in starts:
        status, _, body = get(url + start)
        assert status == 200, start
        links = {start} | {
            link.split("#")[0]
            for link in re.findall(r'href="(/[^"]*)"', body)
            if not link.startswith(("/static/", "//"))
        }
        for link in sorted(links - pages):
            pages.add(link)
            status, kind, text = get(url + link)
            assert status == 200, f"{link}: {status}"
            user.assert_page_clean(text, f"GET {link}")
            if kind.startswith("text/html"):
                for twin in _twins(link.split("?")[0]):
                    status, kind, text = get(url + twin)
                    assert status == 200 and kind.startswith("application/json"), twin
                    json.loads(text)
                    user.assert_page_clean(text, f"GET {twin}")
    return pages


def test_ladder_run_and_serve(journey: tuple[User, str]) -> None:
    user, name = journey
    (user.home / "ladder.toml").write_text(ladder_config("mine"))
    user.arena("ladder", "create", "ladder.toml", "--db", "mine.sqlite")
    user.arena("ladder", "add", "mine.sqlite", name, "--manifest", "mybot/bot.toml")
    user.arena("ladder", "run", "mine.sqlite")
    out = user.arena("ladder", "leaderboard", "mine.sqlite")
    assert name in out and "greedy" in out, out
    with serving(user.home / "mine.sqlite") as url:
        pages = _crawl(user, url, name)
    assert {"/", f"/bots/{name}", "/matches"} <= pages, pages


def test_submitted_over_http(journey: tuple[User, str]) -> None:
    needs_bwrap()
    user, name = journey
    (user.home / "ladder.toml").write_text(ladder_config("open"))
    user.arena("ladder", "create", "ladder.toml", "--db", "open.sqlite")
    token = user.arena("ladder", "author", "add", "open.sqlite", "alice").strip().splitlines()[-1]
    with serve(user.home / "open.sqlite") as server:
        out = user.arena("submit", server.url, "mybot", "--token", token, "--wait", "--poll", "0.5")
    assert f"accepted: {name} version 1, in the ladder as {name}.v1" in out, out
    assert "FAIL " not in out, out
