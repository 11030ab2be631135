"""The submissions part of ``arena serve DB --submissions``: an API and a few pages.

API (``Authorization: Bearer TOKEN``): ``POST /api/submissions`` (multipart, field
``archive``) answers 202 ``{"id", "status": "checking"}``, 401 without a valid token,
400 with a one-line reason for a bad archive, 413 when too large, 429 over the hourly
limit; ``GET /api/submissions`` lists the author's own; ``GET /api/submissions/ID`` gives
``{"status", "report", ...}`` to its author only (404 to anyone else: whether another
author's submission exists is not told).

Pages (a session cookie after signing in with the token once, CSRF tokens on every
form): ``/signin``, ``/my`` (upload form, submissions, bots), ``/my/submissions/ID``
(the report and the check's logs), ``/my/bots/NAME`` (its matches, faults and stderr
logs).  Nobody but the author sees any of these.

:func:`submission_routes` gives the routes and :func:`create_app` a whole application;
both need a :class:`SubmissionService`, whose ``start``/``stop`` belong in the lifespan.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, FileSystemLoader
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message

from arena.storage import LadderStore
from arena.storage.submissions_store import Author, SubmissionStore
from arena.submissions.layout import DataLayout
from arena.submissions.pipeline import CheckOptions
from arena.submissions.sessions import Session, SessionKeys
from arena.submissions.unpack import ArchiveError, archive_kind
from arena.submissions.worker import CheckQueue
from arena.web.security import SecurityHeaders  # also registers the {...:id} convertor

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = [
    "SecurityHeaders",
    "SubmissionService",
    "SubmissionSettings",
    "create_app",
    "mount",
    "submission_routes",
]

SESSION_COOKIE = "arena_session"
SIGNIN_COOKIE = "arena_signin"
_MULTIPART_SLACK = 1024 * 1024  # the form's own bytes around the archive
_TEMPLATES = Path(__file__).parent / "templates"

_STYLE = """body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}
.accepted{color:#060}.rejected{color:#a00}pre{background:#f4f4f4;padding:.5em;overflow:auto}
"""


@dataclass(frozen=True)
class SubmissionSettings:
    per_hour: int = 10  # submissions per author per hour
    concurrency: int = 1  # checks at once
    secure_cookies: bool = False  # set behind HTTPS
    options: CheckOptions = field(default_factory=CheckOptions)


class SubmissionService:
    """The database, the data folder, the session key and the check queue of one ladder."""

    def __init__(self, db_path: Path, settings: SubmissionSettings | None = None) -> None:
        self.db_path = Path(db_path)
        self.settings = settings or SubmissionSettings()
        LadderStore.open(self.db_path).close()  # a clear error now, not at the first request
        self.layout = DataLayout.of(self.db_path)
        self.keys = SessionKeys.load(self.layout.root / "session.key")
        self.queue = CheckQueue(self.db_path, self.settings.concurrency, self.settings.options)
        self.templates = Environment(loader=FileSystemLoader(_TEMPLATES), autoescape=True)

    def start(self) -> None:
        self.queue.recover()

    def stop(self) -> None:
        self.queue.close()

    @contextlib.contextmanager
    def store(self) -> Iterator[SubmissionStore]:
        ladder = LadderStore.open(self.db_path)
        try:
            yield SubmissionStore(ladder)
        finally:
            ladder.close()

    @property
    def max_archive(self) -> int:
        return self.settings.options.unpack.compressed_bytes


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class _TooLarge(Exception):
    pass


async def _read_body(request: Request, cap: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        raise _TooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _replaying(request: Request, body: bytes) -> Request:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return Request(request.scope, receive)


class _Handlers:
    def __init__(self, service: SubmissionService) -> None:
        self.service = service

    # -- who is asking -----------------------------------------------------------

    def bearer(self, request: Request) -> Author | None:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        with self.service.store() as store:
            author: Author | None = store.authenticate(token.strip())
            return author

    def session(self, request: Request) -> tuple[Session, Author] | None:
        session = self.service.keys.read(request.cookies.get(SESSION_COOKIE))
        if session is None:
            return None
        with self.service.store() as store:
            author = store.author(session.author_id)
        if author is None or author.revoked is not None:
            return None
        return session, author

    def page(self, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        html = self.service.templates.get_template(name).render(**values)
        return HTMLResponse(html, status_code=status)

    # -- receiving an archive ------------------------------------------------------

    async def receive_archive(self, request: Request, author: Author) -> int | JSONResponse:
        """The new submission's id, or the error response (400, 413, 429)."""
        service = self.service
        with service.store() as store:
            if store.submissions_since(author.id, 1.0) >= service.settings.per_hour:
                return _error(
                    429,
                    f"at most {service.settings.per_hour} submissions an hour: try again later",
                )
        try:
            body = await _read_body(request, service.max_archive + _MULTIPART_SLACK)
        except _TooLarge:
            return _error(
                413, f"the archive is larger than {service.max_archive // (1024 * 1024)} MiB"
            )
        replay = _replaying(request, body)
        try:
            form = await replay.form(max_files=1, max_fields=4)
        except Exception as error:  # multipart's own errors: a malformed form
            return _error(400, f"not a multipart form with a field 'archive': {error}")
        upload = form.get("archive")
        if not isinstance(upload, UploadFile):
            return _error(400, "no file in the form field 'archive'")
        data = await upload.read()
        await form.close()
        if len(data) > service.max_archive:
            return _error(
                413, f"the archive is larger than {service.max_archive // (1024 * 1024)} MiB"
            )
        try:
            archive_kind(data[:512])
        except ArchiveError as error:
            return _error(400, str(error))
        digest = hashlib.sha256(data).hexdigest()
        with service.store() as store:
            submission_id: int = store.add_submission(author.id, digest, len(data))
            staging = service.layout.staging(submission_id)
            try:
                staging.mkdir(mode=0o700)
                fd = os.open(staging / "archive", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as file:
                    file.write(data)
            except OSError as error:
                store.reject(submission_id, f"the server could not store it: {error.strerror}", {})
                return _error(500, "the server could not store the archive")
        service.queue.submit(submission_id)
        return submission_id

    # -- API -----------------------------------------------------------------------

    async def api_submit(self, request: Request) -> Response:
        author = self.bearer(request)
        if author is None:
            return _error(401, "a valid token is needed: Authorization: Bearer TOKEN")
        result = await self.receive_archive(request, author)
        if isinstance(result, JSONResponse):
            return result
        return JSONResponse({"id": result, "status": "checking"}, status_code=202)

    async def api_list(self, request: Request) -> Response:
        author = self.bearer(request)
        if author is None:
            return _error(401, "a valid token is needed: Authorization: Bearer TOKEN")
        with self.service.store() as store:
            mine = [s.to_json() for s in store.submissions_of(author.id)]
        return JSONResponse({"submissions": mine})

    async def api_show(self, request: Request) -> Response:
        author = self.bearer(request)
        if author is None:
            return _error(401, "a valid token is needed: Authorization: Bearer TOKEN")
        with self.service.store() as store:
            submission = store.submission(request.path_params["id"])
        if submission is None or submission.author_id != author.id:
            return _error(404, "no such submission of yours")
        return JSONResponse(submission.to_json())

    # -- pages -----------------------------------------------------------------------

    async def style(self, request: Request) -> Response:
        return PlainTextResponse(_STYLE, media_type="text/css")

    async def signin_form(self, request: Request, problem: str = "", status: int = 200) -> Response:
        value = secrets.token_hex(16)
        response = self.page("signin.html", status, csrf=value, problem=problem)
        response.set_cookie(
            SIGNIN_COOKIE, value, httponly=True, samesite="strict",
            secure=self.service.settings.secure_cookies, path="/signin",
        )  # fmt: skip
        return response

    async def signin_page(self, request: Request) -> Response:
        return await self.signin_form(request)

    async def signin(self, request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=4)
        sent = form.get("csrf")
        expected = request.cookies.get(SIGNIN_COOKIE)
        if not isinstance(sent, str) or not expected or not secrets.compare_digest(sent, expected):
            return await self.signin_form(request, "the form expired: sign in again", 403)
        token = form.get("token")
        author = None
        if isinstance(token, str) and token.strip():
            with self.service.store() as store:
                author = store.authenticate(token.strip())
        if author is None:
            return await self.signin_form(request, "that token is not valid", 401)
        response = RedirectResponse("/my", status_code=303)
        response.set_cookie(
            SESSION_COOKIE, self.service.keys.issue(author.id), httponly=True,
            samesite="strict", secure=self.service.settings.secure_cookies,
            max_age=self.service.keys.lifetime,
        )  # fmt: skip
        response.delete_cookie(SIGNIN_COOKIE, path="/signin")
        return response

    async def signout(self, request: Request) -> Response:
        signed = self.session(request)
        form = await request.form(max_files=0, max_fields=4)
        if signed is not None and self.service.keys.csrf_ok(signed[0], form.get("csrf")):
            response = RedirectResponse("/signin", status_code=303)
            response.delete_cookie(SESSION_COOKIE)
            return response
        return PlainTextResponse("forbidden", status_code=403)

    async def my(self, request: Request) -> Response:
        signed = self.session(request)
        if signed is None:
            return RedirectResponse("/signin", status_code=303)
        session, author = signed
        with self.service.store() as store:
            submissions = store.submissions_of(author.id)
            versions = store.versions(author.id)
        return self.page(
            "my.html",
            author=author,
            csrf=self.service.keys.csrf(session),
            submissions=submissions,
            versions=versions,
            max_mb=self.service.max_archive // (1024 * 1024),
        )

    async def upload(self, request: Request) -> Response:
        signed = self.session(request)
        if signed is None:
            return PlainTextResponse("sign in first", status_code=401)
        session, author = signed
        # The CSRF token travels in the query string: checking it must not need the body.
        if not self.service.keys.csrf_ok(session, request.query_params.get("csrf")):
            return PlainTextResponse("forbidden: bad or missing CSRF token", status_code=403)
        result = await self.receive_archive(request, author)
        if isinstance(result, JSONResponse):
            message = json.loads(bytes(result.body))["error"]
            return self.page("error.html", result.status_code, message=message)
        return RedirectResponse(f"/my/submissions/{result}", status_code=303)

    def _own_submission(self, request: Request) -> tuple[Session, Author, Any] | Response:
        signed = self.session(request)
        if signed is None:
            return RedirectResponse("/signin", status_code=303)
        with self.service.store() as store:
            submission = store.submission(request.path_params["id"])
        if submission is None or submission.author_id != signed[1].id:
            return PlainTextResponse("no such submission of yours", status_code=404)
        return signed[0], signed[1], submission

    async def submission_page(self, request: Request) -> Response:
        found = self._own_submission(request)
        if isinstance(found, Response):
            return found
        _, author, submission = found
        logs = self.service.layout.logs(submission.id)
        names = sorted(p.name for p in logs.iterdir()) if logs.is_dir() else []
        return self.page("submission.html", author=author, s=submission, logs=names)

    async def submission_log(self, request: Request) -> Response:
        found = self._own_submission(request)
        if isinstance(found, Response):
            return found
        logs = self.service.layout.logs(found[2].id)
        name = request.path_params["name"]
        # Only a name listed in the folder: never a path built from the request.
        if not logs.is_dir() or name not in {p.name for p in logs.iterdir() if p.is_file()}:
            return PlainTextResponse("no such log", status_code=404)
        return PlainTextResponse((logs / name).read_bytes().decode(errors="replace"))

    def _own_version(self, request: Request) -> tuple[Author, Any] | Response:
        signed = self.session(request)
        if signed is None:
            return RedirectResponse("/signin", status_code=303)
        with self.service.store() as store:
            versions = {v.ladder_name: v for v in store.versions(signed[1].id)}
        version = versions.get(request.path_params["name"])
        if version is None:
            return PlainTextResponse("no such bot of yours", status_code=404)
        return signed[1], version

    async def bot_page(self, request: Request) -> Response:
        found = self._own_version(request)
        if isinstance(found, Response):
            return found
        author, version = found
        with self.service.store() as store:
            matches = store.ladder.finished_matches(version.ladder_name)
        rows = []
        for match in matches:
            seat = match["seats"].index(version.ladder_name)
            rows.append(
                {
                    "id": match["match"],
                    "opponents": [n for n in match["seats"] if n != version.ladder_name],
                    "wins": match["wins"][seat],
                    "games": match["games"],
                    "faults": match["faults"][seat],
                    "has_log": self._match_log(match, version) is not None,
                }
            )
        return self.page("bot.html", author=author, v=version, matches=rows)

    def _match_log(self, match: dict[str, Any], version: Any) -> Path | None:
        if not match.get("replay"):
            return None
        run_dir = Path(str(match["replay"]).removesuffix(".jsonl"))
        path = run_dir / f"{version.bot_name}.stderr.log"
        return path if path.is_file() and not path.is_symlink() else None

    async def bot_log(self, request: Request) -> Response:
        found = self._own_version(request)
        if isinstance(found, Response):
            return found
        _, version = found
        with self.service.store() as store:
            matches = store.ladder.finished_matches(version.ladder_name)
        wanted = request.path_params["match"]
        match = next((m for m in matches if m["match"] == wanted), None)
        path = self._match_log(match, version) if match is not None else None
        if path is None:
            return PlainTextResponse("no such log", status_code=404)
        return PlainTextResponse(path.read_bytes().decode(errors="replace"))

    async def home(self, request: Request) -> Response:
        return RedirectResponse("/my" if self.session(request) else "/signin", status_code=303)


def submission_routes(service: SubmissionService) -> list[BaseRoute]:
    """Every route of the submissions part; mount beside the read-only view's."""
    h = _Handlers(service)
    return [
        Route("/api/submissions", h.api_submit, methods=["POST"]),
        Route("/api/submissions", h.api_list, methods=["GET"]),
        Route("/api/submissions/{id:id}", h.api_show, methods=["GET"]),
        Route("/submissions.css", h.style, methods=["GET"]),
        Route("/signin", h.signin_page, methods=["GET"]),
        Route("/signin", h.signin, methods=["POST"]),
        Route("/signout", h.signout, methods=["POST"]),
        Route("/my", h.my, methods=["GET"]),
        Route("/my/upload", h.upload, methods=["POST"]),
        Route("/my/submissions/{id:id}", h.submission_page, methods=["GET"]),
        Route("/my/submissions/{id:id}/logs/{name}", h.submission_log, methods=["GET"]),
        Route("/my/bots/{name}", h.bot_page, methods=["GET"]),
        Route("/my/bots/{name}/matches/{match:id}/stderr", h.bot_log, methods=["GET"]),
    ]


def mount(app: FastAPI, service: SubmissionService) -> None:
    """Put the submission routes on ``app`` (the read-only view's, say), before its own,
    with the check queue started and stopped with the server: what
    ``arena serve DB --submissions`` runs."""
    app.router.routes[:0] = submission_routes(service)
    app.router.on_startup.append(service.start)
    app.router.on_shutdown.append(service.stop)


def create_app(service: SubmissionService, *, home: bool = True) -> ASGIApp:
    """A whole application: the routes, ``/`` (unless ``home`` is False), the security
    headers, and the check queue started and stopped with the server."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        service.start()
        try:
            yield
        finally:
            service.stop()

    routes = submission_routes(service)
    if home:
        routes.append(Route("/", _Handlers(service).home, methods=["GET"]))
    return SecurityHeaders(Starlette(routes=routes, lifespan=lifespan))
