"""Every route of ``arena serve`` over HTTP, against ladders played for real: pages and
their JSON twins, 404s, escaping of hostile names, paths that try to climb out,
security headers, and the JSON shapes the API documents."""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from arena.replays.files import read_replay
from arena.web import SECURITY_HEADERS, create_app, open_ladders
from tests.web.conftest import HOSTILE, Ladders


@pytest.fixture(scope="module")
def client(ladders: Ladders) -> Iterator[TestClient]:
    """The app over the Gin ladder alone: the short routes address it."""
    with TestClient(create_app(open_ladders([ladders.gin]))) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def both(ladders: Ladders) -> Iterator[TestClient]:
    with TestClient(create_app(open_ladders([ladders.gin, ladders.rummy]))) as test_client:
        yield test_client


def rows(db: Path, query: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return connection.execute(query, args).fetchall()


def test_leaderboard_json_matches_the_database(client: TestClient, ladders: Ladders) -> None:
    body = client.get("/api/leaderboard").json()
    assert body["ladder"] == "gin-web"
    assert body["game"] == "gin-rummy/standard"
    expected = rows(
        ladders.gin, "SELECT name, mu, sigma, matches, games, game_wins, faults, status FROM bots"
    )
    by_name = {bot["name"]: bot for bot in body["bots"]}
    assert set(by_name) == {row[0] for row in expected}
    for name, mu, sigma, matches, games, game_wins, faults, status in expected:
        bot = by_name[name]
        assert bot["mu"] == pytest.approx(mu) and bot["sigma"] == pytest.approx(sigma)
        assert bot["score"] == pytest.approx(mu - 3 * sigma)
        assert (bot["matches"], bot["games"], bot["game_wins"], bot["faults"], bot["status"]) == (
            matches, games, game_wins, faults, status,
        )  # fmt: skip
        assert bot["version"] == "1.0"  # what the builtin bots report in their handshake
    active = [bot for bot in body["bots"] if bot["place"] is not None]
    assert [bot["place"] for bot in active] == list(range(1, len(active) + 1))
    scores = [bot["score"] for bot in active]
    assert scores == sorted(scores, reverse=True)  # best first
    progress = body["progress"]
    finished = rows(ladders.gin, "SELECT COUNT(*) FROM matches WHERE status = 'finished'")[0][0]
    assert progress["finished"] == finished == 6  # the gauntlet: 3 pairs, both seatings
    assert progress["planned"] == finished and progress["eta_seconds"] is None


def test_a_disabled_bot_is_listed_apart(client: TestClient) -> None:
    body = client.get("/api/leaderboard").json()
    bots = {bot["name"]: bot for bot in body["bots"]}
    assert bots["illegal"]["faults"] > 0 and bots["illegal"]["status"] == "disabled"
    assert bots["illegal"]["place"] is None and body["bots"][-1]["name"] == "illegal"
    html = client.get("/").text
    active, _, apart = html.partition("Suspended, disabled and removed")
    assert 'data-bot="illegal"' in apart and 'data-bot="illegal"' not in active


def test_leaderboard_pages(client: TestClient) -> None:
    body = client.get("/api/leaderboard?offset=1&limit=1").json()
    active = [bot for bot in body["bots"] if bot["place"] is not None]
    assert [bot["place"] for bot in active] == [2] and body["active"] == 3 and body["offset"] == 1
    assert [bot["name"] for bot in body["bots"] if bot["place"] is None] == ["illegal"]
    assert client.get("/?page=1").status_code == 200
    assert client.get("/?page=2").status_code == 404  # three active bots: one page
    assert client.get("/?page=0").status_code == 422


def test_leaderboard_page_shows_every_column(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    for heading in (
        "\u03bc\u22123\u03c3",
        "\u03bc",
        "\u03c3",
        "matches",
        "games won",
        "points / game",
        "faults",
        "status",
        "version",
    ):
        assert f">{heading}<" in html
    assert "TrueSkill skill estimate" in html  # the one-line legend
    assert "6 / 6 matches done" in " ".join(html.split())
    assert '<script src="/static/live.js"></script>' in html


def test_hostile_bot_name_is_escaped_everywhere(client: TestClient) -> None:
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    pages = ["/", "/crosstable", "/field", "/matches"]
    bot = client.get("/api/bots/" + urllib.parse.quote(HOSTILE, safe="")).json()
    pages.append("/bots/" + urllib.parse.quote(HOSTILE, safe=""))
    pages += [f"/matches/{match['id']}" for match in bot["recent"]]
    for page in pages:
        html = client.get(page).text
        assert HOSTILE not in html, page
        assert escaped in html, page
    # Scripts on the pages are only the package's own files.
    assert "alert(1)</script>" not in client.get("/").text


def test_bot_page_and_its_json(client: TestClient, ladders: Ladders) -> None:
    body = client.get("/api/bots/greedy").json()
    assert body["bot"]["name"] == "greedy"
    history = rows(
        ladders.gin,
        "SELECT h.mu_after, h.sigma_after FROM rating_history h JOIN bots b ON b.id = h.bot_id "
        "WHERE b.name = 'greedy' ORDER BY h.id",
    )
    assert [p["mu"] for p in body["history"]] == pytest.approx([mu for mu, _ in history])
    assert [p["sigma"] for p in body["history"]] == pytest.approx([s for _, s in history])
    assert [p["matches"] for p in body["history"]] == [2, 4, 6]  # duplicate units: 2 matches each
    opponents = {row["name"]: row for row in body["opponents"]}
    assert set(opponents) == {"random", "illegal", HOSTILE}
    for row in opponents.values():
        assert row["matches"] == 2 and row["games"] == 6
        assert (
            0 <= row["low"] <= row["win_rate"] + 1e-9
            and row["win_rate"] <= row["high"] + 1e-9 <= 1 + 1e-9
        )
    assert len(body["recent"]) == 6
    html = client.get("/bots/greedy").text
    assert 'data-series="mu"' in html and 'class="band"' in html
    assert html.count("<tr data-opponent=") == 3


def test_faults_are_shown_with_their_reasons(client: TestClient, ladders: Ladders) -> None:
    body = client.get("/api/bots/illegal").json()
    assert body["faults"], "the illegal bot made no fault"
    results = [
        json.loads(r[0])
        for r in rows(ladders.gin, "SELECT result FROM matches WHERE result IS NOT NULL")
    ]
    reasons = {fault["reason"] for result in results for fault in result["faults"]}
    assert {fault["reason"] for fault in body["faults"]} <= reasons
    html = client.get("/bots/illegal").text
    for fault in body["faults"]:
        assert f'href="/matches/{fault["match"]}"' in html  # the replay of each
    match = client.get(f"/api/matches/{body['faults'][0]['match']}").json()
    assert match["faults"] and match["faults"][0]["status"] == body["faults"][0]["status"]


def test_matches_newest_first_and_by_bot(client: TestClient) -> None:
    everything = client.get("/api/matches").json()["matches"]
    assert len(everything) == 6
    finished = [(match["finished"], match["id"]) for match in everything]
    assert finished == sorted(finished, reverse=True)
    assert len(client.get("/api/matches?limit=2").json()["matches"]) == 2
    of_random = client.get("/api/matches?bot=random").json()
    assert of_random["bot"] == "random" and len(of_random["matches"]) == 2
    assert all("random" in [seat["name"] for seat in m["seats"]] for m in of_random["matches"])
    assert client.get("/api/matches?bot=nobody").status_code == 404
    assert client.get("/api/matches?limit=0").status_code == 422
    assert client.get("/matches?bot=random").status_code == 200


def test_match_page_and_replay(client: TestClient, ladders: Ladders) -> None:
    match_id = client.get("/api/matches?bot=random").json()["matches"][0]["id"]
    detail = client.get(f"/api/matches/{match_id}").json()
    assert detail["id"] == match_id and detail["game"] == "gin-rummy/standard"
    assert [seat["sandbox"] for seat in detail["seats"]] == ["none", "none"]
    replay = client.get(f"/api/matches/{match_id}/replay").json()
    assert replay["drawable"] and replay["problem"] is None
    assert [p["name"] for p in replay["players"]] == [s["name"] for s in detail["seats"]]
    kinds = [step["kind"] for step in replay["steps"]]
    assert kinds.count("deal") == 3 and kinds.count("hand_end") == 3  # 3 one-hand games
    assert kinds[-1] == "match_end"
    path = Path(rows(ladders.gin, "SELECT replay FROM matches WHERE id = ?", match_id)[0][0])
    records = list(read_replay(path).lines)  # decks come back from the closing reveal
    deals = [r for r in records if r["type"] == "deal"]
    first = replay["steps"][kinds.index("deal")]["state"]
    # Gin's deal: the non-dealer gets deck cards 0, 2, .., 18, the dealer 1, 3, .., 19.
    dealer = deals[0]["dealer"]
    deck = deals[0]["deck"]
    assert sorted(first["hands"][1 - dealer]) == sorted(deck[0:20:2])
    assert sorted(first["hands"][dealer]) == sorted(deck[1:20:2])
    assert first["discard"] == [deck[20]] and first["stock"] == 31
    html = client.get(f"/matches/{match_id}").text
    assert 'id="viewer"' in html and f'data-replay="/api/matches/{match_id}/replay"' in html
    assert '<ol class="steps">' in html  # the listing for scripts off
    assert html.count('class="step-action"') == kinds.count("action")


def test_people_read_games_and_hands_from_1(client: TestClient) -> None:
    """The replay's JSON keeps the file's 0-based games and hands; its step texts, the
    match page's list of steps and its games table count from 1 (docs/WEB.md)."""
    match_id = client.get("/api/matches?bot=random").json()["matches"][0]["id"]
    steps = client.get(f"/api/matches/{match_id}/replay").json()["steps"]
    deals = [step for step in steps if step["kind"] == "deal"]
    assert [(step["game"], step["hand"]) for step in deals] == [(0, 0), (1, 0), (2, 0)]
    assert all(step["text"].startswith("hand 1: ") for step in deals), deals
    ends = [step["text"] for step in steps if step["kind"] in ("hand_end", "game_end")]
    assert [text.split(":")[0].split(" (")[0] for text in ends] == [
        "hand 1 ends", "game 1 over", "hand 1 ends", "game 2 over", "hand 1 ends", "game 3 over",
    ]  # fmt: skip
    page = client.get(f"/matches/{match_id}").text
    assert "game 1 hand 1</span>" in page and "game 3 hand 1</span>" in page
    assert "game 0" not in page and "hand 0" not in page
    games = page.split('<table class="games">')[1].split("</table>")[0]
    assert [int(n) for n in re.findall(r'<tr><td class="num">(\d+)</td>', games)] == [1, 2, 3]


def test_every_match_replays_in_the_viewer(both: TestClient, ladders: Ladders) -> None:
    """What ``arena serve`` promises for any ladder: a drawable replay for every
    finished match (forfeits by the illegal bot included), ending with the match's end."""
    for key, db in (("gin-web", ladders.gin), ("rummy-web", ladders.rummy)):
        ids = [row[0] for row in rows(db, "SELECT id FROM matches WHERE status = 'finished'")]
        assert ids
        for match_id in ids:
            replay = both.get(f"/api/ladders/{key}/matches/{match_id}/replay").json()
            assert replay["drawable"] and replay["problem"] is None, (key, match_id)
            assert replay["steps"][-1]["kind"] == "match_end", (key, match_id)
            assert all(step["state"] is not None for step in replay["steps"][1:])


def test_field_and_crosstable(client: TestClient) -> None:
    field = client.get("/api/field").json()
    assert {series["name"] for series in field["series"]} == {
        "greedy",
        "random",
        "illegal",
        HOSTILE,
    }
    assert field["matches"] == 6
    greedy = next(s for s in field["series"] if s["name"] == "greedy")
    assert [x for x, _ in greedy["points"]] == [0, 2, 4, 6]
    html = client.get("/field").text
    assert html.count('class="series"') == 4
    table = client.get("/api/crosstable").json()
    index = {name: i for i, name in enumerate(table["bots"])}
    greedy_row = table["cells"][index["greedy"]]
    random_row = table["cells"][index["random"]]
    assert greedy_row[index["greedy"]] is None
    assert greedy_row[index["random"]]["games"] == 6
    assert random_row[index["illegal"]] is None  # a gauntlet: they never met
    assert greedy_row[index["random"]]["game_wins"] + random_row[index["greedy"]]["game_wins"] <= 6
    assert client.get("/crosstable").status_code == 200


def test_404s(client: TestClient) -> None:
    for path in ("/bots/nobody", "/matches/999999", "/nope", "/ladders/nope/", "/static/nope.js"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.headers["content-type"].startswith("text/html"), path
    for path in (
        "/api/bots/nobody",
        "/api/matches/999999",
        "/api/matches/999999/replay",
        "/api/nope",
        "/api/ladders/nope/leaderboard",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "detail" in response.json(), path
    assert client.get("/matches/abc").status_code == 404
    assert client.get("/api/matches/-1").status_code == 404


def test_paths_that_try_to_climb_out_reach_no_file(client: TestClient) -> None:
    secret = Path("/etc/passwd").read_text() if Path("/etc/passwd").exists() else "root:"
    attempts = [
        "/static/../../../../etc/passwd",
        "/static/..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "/static/%2e%2e/%2e%2e/etc/passwd",
        "/static/....//....//etc/passwd",
        "/bots/..%2F..%2F..%2Fetc%2Fpasswd",
        "/api/bots/../../etc/passwd",
        "/api/matches/..%2F..%2Fetc%2Fpasswd/replay",
        "/api/matches/1%2F..%2F..%2Fetc%2Fpasswd/replay",
        "/ladders/..%2F..%2Fetc/",
        "/ladders/%2e%2e/api/leaderboard",
    ]
    for path in attempts:
        response = client.get(path)
        assert response.status_code in (404, 422), path
        assert secret[:20] not in response.text, path


def test_only_the_replay_the_database_names_is_served(ladders: Ladders, tmp_path: Path) -> None:
    """A database whose replay column points at a file that is not a replay: nothing
    of it reaches the visitor."""
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(ladders.gin) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE matches SET replay = '/etc/passwd' WHERE id = 1")
        db.execute("UPDATE matches SET replay = ? WHERE id = 2", (str(tmp_path / "gone.jsonl"),))
    with TestClient(create_app(open_ladders([copy]))) as client:
        for match_id in (1, 2):
            assert client.get(f"/api/matches/{match_id}/replay").status_code == 404
            page = client.get(f"/matches/{match_id}")
            assert page.status_code == 200 and "has no replay here" in page.text
            assert "root:" not in page.text


def test_seed_commitment_is_shown_where_the_replay_has_one(
    ladders: Ladders, tmp_path: Path
) -> None:
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(ladders.gin) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    original = Path(rows(copy, "SELECT replay FROM matches WHERE id = 1")[0][0])
    lines = original.read_text().splitlines()
    header = json.loads(lines[0])
    header["seed_commitment"] = "sha256:<b>c0ffee</b>"
    replay = tmp_path / "committed.jsonl"
    replay.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    # An older replay (version 1) has no commitment at all.
    second = Path(rows(copy, "SELECT replay FROM matches WHERE id = 2")[0][0])
    old_lines = second.read_text().splitlines()
    old_header = {k: v for k, v in json.loads(old_lines[0]).items() if "commit" not in k}
    older = tmp_path / "older.jsonl"
    older.write_text("\n".join([json.dumps(old_header), *old_lines[1:]]) + "\n")
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE matches SET replay = ? WHERE id = 1", (str(replay),))
        db.execute("UPDATE matches SET replay = ? WHERE id = 2", (str(older),))
    with TestClient(create_app(open_ladders([copy]))) as client:
        assert client.get("/api/matches/1/replay").json()["header"]["seed_commitment"] == (
            "sha256:<b>c0ffee</b>"
        )
        assert "seed commitment" not in client.get("/matches/2").text  # older replays: none
        page = client.get("/matches/1").text
        assert "sha256:&lt;b&gt;c0ffee&lt;/b&gt;" in page


def test_wild_cards_show_what_they_stand_for(ladders: Ladders, tmp_path: Path) -> None:
    """A Basic Rummy replay with jokers: the table's melds carry the natural card each
    joker stands for, and the page's reveal says it."""
    from arena.cli.main import main

    replays = tmp_path / "replays"
    assert main([
        "match", "greedy-rummy", "greedy-rummy", "greedy-rummy", "--game", "rummy",
        "--rules", "jokers", "--hands", "--games", "6", "--seed", "3",
        "--replays", str(replays), "--in-process",
    ]) == 0  # fmt: skip
    replay = next(replays.glob("*.jsonl"))
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(ladders.gin) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE matches SET replay = ? WHERE id = 1", (str(replay),))
    with TestClient(create_app(open_ladders([copy]))) as client:
        steps = client.get("/api/matches/1/replay").json()["steps"]
        wild = [
            meld
            for step in steps
            if step["state"]
            for meld in step["state"]["table"]
            if "JK" in meld["cards"]
        ]
        assert wild, "no joker was melded in this replay"
        for meld in wild:
            assert len(meld["stands_for"]) == meld["cards"].count("JK")
            assert all(len(card) == 2 and card != "JK" for card in meld["stands_for"])
        assert "(wild for " in client.get("/matches/1").text


def test_security_headers_on_every_kind_of_response(client: TestClient) -> None:
    for path in (
        "/",
        "/api/leaderboard",
        "/static/replay.js",
        "/nope",
        "/api/nope",
        "/api/matches?limit=x",
    ):
        response = client.get(path)
        for name, value in SECURITY_HEADERS.items():
            assert response.headers.get(name) == value, (path, name)
    policy = SECURITY_HEADERS["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy


def test_pages_have_no_inline_script_or_style(client: TestClient) -> None:
    """The CSP forbids them: anything inline would silently not run."""
    match_id = client.get("/api/matches").json()["matches"][0]["id"]
    for path in ("/", "/bots/greedy", "/field", "/crosstable", "/matches", f"/matches/{match_id}"):
        html = client.get(path).text
        assert "<script>" not in html and " style=" not in html and "<style" not in html, path
        assert " on" + "click=" not in html, path


def test_static_assets_are_served_from_the_package(client: TestClient) -> None:
    for name, kind in (
        ("style.css", "text/css"),
        ("replay.js", "javascript"),
        ("live.js", "javascript"),
    ):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and kind in response.headers["content-type"]
        again = client.get(f"/static/{name}", headers={"if-none-match": response.headers["etag"]})
        assert again.status_code == 304


def test_openapi_documents_the_api(client: TestClient) -> None:
    spec = client.get("/api/openapi.json").json()
    for path in (
        "/api/leaderboard",
        "/api/matches",
        "/api/matches/{match_id}",
        "/api/matches/{match_id}/replay",
        "/api/bots/{name}",
        "/api/ladders/{ladder}/leaderboard",
    ):
        assert path in spec["paths"], path
    schema = spec["components"]["schemas"]["LeaderboardBot"]["properties"]
    assert {"name", "mu", "sigma", "score", "matches", "games", "wins", "faults", "status"} <= set(
        schema
    )
    assert client.get("/docs").status_code == 404  # its page would load scripts from a CDN


def test_several_ladders_get_an_index(both: TestClient) -> None:
    index = both.get("/").text
    assert 'href="/ladders/gin-web/"' in index and 'href="/ladders/rummy-web/"' in index
    ladders = both.get("/api/ladders").json()["ladders"]
    assert [entry["key"] for entry in ladders] == ["gin-web", "rummy-web"]
    rummy = both.get("/api/ladders/rummy-web/leaderboard").json()
    assert rummy["ladder"] == "rummy-web" and len(rummy["bots"]) == 4
    page = both.get("/ladders/rummy-web/").text
    assert 'href="/ladders/rummy-web/bots/greedy-2"' in page
    assert both.get("/ladders/rummy-web/bots/greedy-2").status_code == 200
    match_id = both.get("/api/ladders/rummy-web/matches").json()["matches"][0]["id"]
    replay = both.get(f"/api/ladders/rummy-web/matches/{match_id}/replay").json()
    assert replay["drawable"] and len(replay["players"]) == 4
    assert len(replay["steps"][1]["state"]["hands"]) == 4


def test_plugin_game_replay_shows_the_event_list(ladders: Ladders) -> None:
    """A game the server cannot re-play (a plugin's game without its plugin) gets the
    records as a list and a sentence saying why, not an error."""

    def knows_nothing(game_id: str) -> Any:
        raise LookupError(f"unknown game {game_id!r}")

    with TestClient(create_app(open_ladders([ladders.gin]), find=knows_nothing)) as client:
        replay = client.get("/api/matches/1/replay").json()
        assert not replay["drawable"] and "cannot draw the game" in replay["problem"]
        assert replay["steps"] == [] and replay["events"][0].startswith("match:")
        page = client.get("/matches/1").text
        assert "cannot draw the game" in page and '<ol class="events">' in page
        assert 'id="viewer"' not in page


@pytest.mark.slow
def test_arena_serve_over_a_real_socket(server: str) -> None:
    """The command itself: both ladders over loopback, with the headers."""
    with urllib.request.urlopen(server + "/api/ladders") as response:
        assert response.status == 200
        assert response.headers["x-content-type-options"] == "nosniff"
        assert len(json.load(response)["ladders"]) == 2
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(server + "/ladders/gin-web/bots/nobody")
    assert error.value.code == 404


def test_serve_refuses_what_is_not_a_ladder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.cli.main import main

    assert main(["serve", str(tmp_path / "missing.sqlite")]) == 2
    assert "no such ladder database" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database at all, just text" * 20)
    assert main(["serve", str(junk)]) == 2
    assert "not a ladder database" in capsys.readouterr().err


@pytest.mark.parametrize("prefix", ["arena", "/a b", "/arena/../x", "//arena", "/arena?x=1"])
def test_serve_refuses_a_root_path_that_is_not_a_url_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], prefix: str
) -> None:
    """``--root-path`` is checked before anything is opened: one line, exit 2."""
    from arena.cli.main import main

    assert main(["serve", str(tmp_path / "any.sqlite"), "--root-path", prefix]) == 2
    error = capsys.readouterr().err.strip()
    assert "--root-path" in error and len(error.splitlines()) == 1, error
