"""Every answer of ``arena serve DB --submissions`` is ours: each route, walked with ids
past SQLite's range and with ids that do not exist, answers 404 (never a 500 from an
``OverflowError``), and every answer (404, 413, 422, 500 included) carries the security
headers and a cache policy; each route walked with ids that exist, signed out, signed
in and with a bearer token, carries every promised header: ``no-store`` on an author's
paths and on every answer to a request with credentials, the static assets apart."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from starlette.convertors import Convertor, IntegerConvertor

from arena.storage import LadderStore
from arena.storage.submissions_store import SubmissionStore
from arena.submissions.service import SubmissionService, SubmissionSettings
from arena.web import create_app, open_ladders
from arena.web.security import MAX_ID, SECURITY_HEADERS, IdConvertor, is_private
from tests.web.conftest import Ladders

BAD_IDS = [str(MAX_ID + 1), str(2**64), "9" * 40, str(MAX_ID)]  # the last: in range, absent
NOT_IDS = ["-1", "abc", "1.5", "0x10", "%31"]


@pytest.fixture
def served(ladders: Ladders, tmp_path: Path) -> Iterator[tuple[FastAPI, TestClient, str]]:
    """The app over a copy of the Gin ladder, taking submissions, as ``arena serve DB
    --submissions`` builds it, and an author's token."""
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(ladders.gin) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    store = LadderStore.open(copy)
    token = SubmissionStore(store).add_author("alice")
    store.close()
    service = SubmissionService(copy, SubmissionSettings(per_hour=50))
    app = create_app(open_ladders([copy]), submissions=service)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield app, client, token


def _assert_ours(
    response: Any,  # the test client's (untyped) response
    what: str,
    path: str | None = None,
    credentials: bool = False,
) -> None:
    """The security headers and a cache policy; given the request's ``path``, the
    policy is ``no-store`` on an author's paths and, sent with ``credentials``, on
    everything but the static assets."""
    headers = response.headers
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name) == value, (what, name, headers)
    policy = headers.get("cache-control")
    assert policy, what
    if path is not None:
        route = urlsplit(path).path
        if is_private(route) or (credentials and not route.startswith("/static/")):
            assert policy == "no-store", (what, policy)


def _routes(app: FastAPI) -> Iterator[tuple[str, set[str], dict[str, Convertor[object]]]]:
    """Every route, the included routers' too: its path, methods and parameters."""
    for route in iter_route_contexts(app.routes):
        if route.path is not None:
            yield route.path, set(route.methods or {"GET"}), dict(route.param_convertors)


def _paths(app: FastAPI, value: str) -> Iterator[tuple[str, str]]:
    """Each route's path with ``value`` for every id in it (the ladder's name for a
    ladder, a plain name for the other parameters), with each method it takes."""
    for path, methods, convertors in _routes(app):
        for name, convertor in convertors.items():
            if isinstance(convertor, IdConvertor):
                replacement = value
            else:
                replacement = "gin-web" if name == "ladder" else "x"
            path = re.sub(r"\{" + name + r"(:[a-z]+)?\}", replacement, path)
        for method in sorted(methods - {"HEAD"}):
            yield method, path


@pytest.mark.slow
def test_every_id_is_a_row_id(served: tuple[FastAPI, TestClient, str]) -> None:
    """No route takes a bare ``{...:int}``: an id is ``{...:id}``, within SQLite's range."""
    app, _, _ = served
    ids = 0
    for path, _, convertors in _routes(app):
        for name, convertor in convertors.items():
            assert not isinstance(convertor, IntegerConvertor), (path, name)
            ids += isinstance(convertor, IdConvertor)
    assert ids >= 10  # the view's matches and replays (twice each), submissions, logs


@pytest.mark.slow
@pytest.mark.parametrize("signed_in", [False, True])
def test_every_route_with_bad_ids_answers_404_with_the_headers(
    served: tuple[FastAPI, TestClient, str], signed_in: bool
) -> None:
    app, client, token = served
    if signed_in:
        page = client.get("/signin").text
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
        assert csrf
        reply = client.post("/signin", data={"csrf": csrf.group(1), "token": token})
        assert reply.status_code == 200  # followed to /my
    auth = {"authorization": f"Bearer {token}"} if signed_in else {}
    walked = 0
    for value in BAD_IDS + NOT_IDS:
        for method, path in _paths(app, value):
            response = client.request(method, path, headers=auth, follow_redirects=False)
            what = f"{method} {path}"
            _assert_ours(response, what, path, credentials=signed_in)
            if value in BAD_IDS and method == "GET" and value in path:
                # Past the range: no such route.  In range: no such row (or, before
                # signing in, the sign-in page's redirect or 401).
                expected = {404} if value != str(MAX_ID) or signed_in else {303, 401, 404}
                assert response.status_code in expected, (what, response.status_code)
            elif path == "/healthz":  # 503: no runner's heartbeat on this copy
                assert response.status_code in {200, 503}, (what, response.status_code)
            else:
                assert response.status_code < 500, (what, response.status_code)
            walked += 1
    assert walked > 50


@pytest.mark.slow
@pytest.mark.parametrize("credentials", ["none", "session", "bearer"])
def test_every_route_with_real_ids_sends_every_promised_header(
    served: tuple[FastAPI, TestClient, str], credentials: str
) -> None:
    """Every route of the one app (the view, the submission pages and API, whatever
    else is included), each method, with ids and names that exist: every answer has the
    security headers; an author's paths and every answer to a request with a token or
    a session are ``no-store``; only the static assets may be kept by a cache."""
    app, client, token = served
    store = LadderStore.open(app.state.submissions.db_path)
    try:
        submissions = SubmissionStore(store)
        alice = submissions.authenticate(token)
        assert alice is not None
        slot = submissions.reserve_upload(alice.id, app.state.submissions.settings.quotas)
        assert isinstance(slot, int)
        submission = submissions.add_submission(alice.id, "0" * 64, 1, slot=slot)
        match = store.db.execute("SELECT MIN(id) FROM matches").fetchone()[0]
    finally:
        store.close()
    headers = {}
    if credentials == "session":
        page = client.get("/signin").text
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
        assert csrf
        assert client.post("/signin", data={"csrf": csrf.group(1), "token": token}).is_success
    elif credentials == "bearer":
        headers = {"authorization": f"Bearer {token}"}
    values = {"ladder": "gin-web", "match_id": match, "match": match, "submission_id": submission}
    walked = set()
    for path, methods, convertors in _routes(app):
        for name in convertors:
            value = values.get(name, "style.css" if path.startswith("/static/") else "greedy")
            path = re.sub(r"\{" + name + r"(:[a-z]+)?\}", str(value), path)
        for method in sorted(methods - {"HEAD"}):
            response = client.request(method, path, headers=headers, follow_redirects=False)
            what = f"{method} {path} ({credentials}): {response.status_code}"
            assert response.status_code < 500 or path == "/healthz", what
            _assert_ours(response, what, path, credentials=credentials != "none")
            if not path.startswith("/static/"):  # nothing else is for shared caches
                policy = response.headers["cache-control"]
                assert "public" not in policy and "max-age" not in policy, what
            walked.add(path)
    assert {"/my", f"/my/submissions/{submission}", f"/matches/{match}", "/"} <= walked
    assert f"/api/submissions/{submission}" in walked and "/static/style.css" in walked
    if credentials != "none":  # the author's own pages answer: nothing hides them
        assert client.get(f"/api/submissions/{submission}", headers=headers).status_code == (
            200 if credentials == "bearer" else 401
        )


def test_other_answers_carry_the_headers_too(served: tuple[FastAPI, TestClient, str]) -> None:
    _, client, token = served
    auth = {"authorization": f"Bearer {token}"}
    answers = {
        "422 bad query": client.get("/api/matches?limit=x"),
        "422 offset past the range": client.get(f"/api/leaderboard?offset={MAX_ID + 1}"),
        "404 page": client.get("/nope"),
        "401": client.get("/api/submissions"),
        "400": client.post("/api/submissions", headers=auth, content=b"x"),
        "413": client.post(
            "/api/submissions",
            headers={**auth, "content-length": str(2**40)},
            content=b"",
        ),
        "signin": client.get("/signin"),
        "static": client.get("/static/style.css"),
    }
    assert answers["422 bad query"].status_code == 422
    assert answers["422 offset past the range"].status_code == 422
    assert answers["413"].status_code == 413
    for what, response in answers.items():
        _assert_ours(response, what)
    assert answers["static"].headers["cache-control"].startswith("public")
    for what in ("401", "400", "413", "signin", "404 page"):
        assert answers[what].headers["cache-control"] == "no-store", what


def test_a_500_is_ours(
    served: tuple[FastAPI, TestClient, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception that escapes a handler: answered 500 with the headers, saying nothing
    of what went wrong."""
    _, client, _ = served

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("/srv/secret/path went wrong")

    monkeypatch.setattr("arena.web.queries.match_detail", broken)
    for path in ("/matches/1", "/api/matches/1"):
        response = client.get(path)
        assert response.status_code == 500, path
        _assert_ours(response, path)
        assert "secret" not in response.text
