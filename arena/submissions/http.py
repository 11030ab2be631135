"""The submissions part of ``arena serve DB --submissions``: an API and a few pages.

API (``Authorization: Bearer TOKEN``): ``POST /api/submissions`` (multipart, field
``archive``) answers 202 ``{"id", "status": "checking"}``, 401 without a valid token,
400 with a one-line reason for a bad archive, 413 when too large, 429 over one of the
author's quotas (with ``Retry-After`` when waiting frees it), 503 when the server has
as many uploads in flight as it takes; ``GET /api/submissions`` lists the author's own; ``GET /api/submissions/ID`` gives
``{"status", "report", ...}`` to its author only (404 to anyone else: whether another
author's submission exists is not told).

Pages (a session cookie after signing in with the token once, recorded in the database
so that signing out, a new token and the session's lifetime end it; CSRF tokens on every
form): ``/signin``, ``/my`` (upload form, submissions, bots), ``/my/submissions/ID``
(the report and the check's logs), ``/my/bots/NAME`` (its matches, faults and stderr
logs).  Nobody but the author sees any of these.

:func:`submission_routes` gives the routes and :func:`create_app` a whole application;
both need a :class:`SubmissionService`, whose ``start``/``stop`` belong in the lifespan.

Quotas hold under concurrency: an upload takes a slot in the same ``BEGIN IMMEDIATE``
transaction that checks the hourly limit, the uploads in flight (the author's and
everyone's) and the author's disk quota, before its body is read; the body is streamed
to a file with the size cap applied as it arrives; a refused upload frees its slot.
Wrong tokens are limited per client address (:mod:`arena.submissions.throttle`).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, FileSystemLoader
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp

from arena.archives import ArchiveError, archive_kind
from arena.storage import LadderStore
from arena.storage.ladder_store import FinishedMatch
from arena.storage.submissions_store import Author, BotVersion, Quotas, Refusal, SubmissionStore
from arena.submissions.layout import DataLayout
from arena.submissions.pipeline import CheckOptions
from arena.submissions.report import SubmissionReport
from arena.submissions.sessions import DEFAULT_LIFETIME, Session, SessionKeys
from arena.submissions.throttle import FailureLimit
from arena.submissions.upload import MultipartFile, UploadError
from arena.submissions.worker import CheckQueue
from arena.web.security import SecurityHeaders  # also registers the {...:id} convertor

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = [
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
    uploads_per_author: int = 2  # uploads being received at once, per author
    uploads: int = 16  # uploads being received at once, everyone together
    disk_mb: int = 1024  # per author: the stored versions' archives and built trees
    session_seconds: int = DEFAULT_LIFETIME  # a session's lifetime
    auth_failures: int = 20  # wrong tokens per client address...
    auth_window: float = 60.0  # ...within this many seconds, then 429

    @property
    def quotas(self) -> Quotas:
        return Quotas(
            per_hour=self.per_hour,
            in_flight_per_author=self.uploads_per_author,
            in_flight=self.uploads,
            disk_bytes=self.disk_mb * 1024 * 1024,
        )


class SubmissionService:
    """The database, the data folder, the session key and the check queue of one ladder."""

    def __init__(self, db_path: Path, settings: SubmissionSettings | None = None) -> None:
        self.db_path = Path(db_path)
        self.settings = settings or SubmissionSettings()
        LadderStore.open(self.db_path).close()  # a clear error now, not at the first request
        self.layout = DataLayout.of(self.db_path)
        self.keys = SessionKeys.load(
            self.layout.root / "session.key", self.settings.session_seconds
        )
        self.queue = CheckQueue(self.db_path, self.settings.concurrency, self.settings.options)
        self.templates = Environment(loader=FileSystemLoader(_TEMPLATES), autoescape=True)
        self.failures = FailureLimit(self.settings.auth_failures, self.settings.auth_window)
        self.uploads = self.layout.root / "uploads"  # bodies being received

    def start(self) -> None:
        """A server that starts has no upload in flight: free their slots and files."""
        with self.store() as store:
            store.clear_uploads()
        shutil.rmtree(self.uploads, ignore_errors=True)
        self.uploads.mkdir(mode=0o700, exist_ok=True)
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


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _refused(refusal: Refusal) -> JSONResponse:
    headers = {}
    if refusal.retry_after is not None:
        headers["retry-after"] = str(refusal.retry_after)
    return _error(503 if refusal.everyone else 429, refusal.reason, headers)


_UNAUTHORIZED = "a valid token is needed: Authorization: Bearer TOKEN"


def _address(request: Request) -> str:
    return request.client.host if request.client else "-"


class _Handlers:
    def __init__(self, service: SubmissionService) -> None:
        self.service = service

    # -- who is asking -----------------------------------------------------------

    def throttled(self, request: Request) -> int | None:
        """Seconds this client must wait after too many wrong tokens (None: it may try)."""
        return self.service.failures.retry_after(_address(request))

    def bearer(self, request: Request) -> Author | Response:
        """The author whose token the request carries, or the answer: 401, or 429 to an
        address that sent too many wrong tokens (checked before the token is looked at)."""
        wait = self.throttled(request)
        if wait is not None:
            return _error(
                429,
                f"too many wrong tokens from your address: try again in {wait} s",
                {"retry-after": str(wait)},
            )
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return _error(401, _UNAUTHORIZED)
        with self.service.store() as store:
            author = store.authenticate(token.strip())
        if author is None:
            self.service.failures.failed(_address(request))
            return _error(401, _UNAUTHORIZED)
        return author

    def session(self, request: Request) -> tuple[Session, Author] | None:
        """The signed-in author: the cookie must be the server's, and its session still
        recorded (not signed out, not ended by a new token, not expired)."""
        session = self.service.keys.read(request.cookies.get(SESSION_COOKIE))
        if session is None:
            return None
        with self.service.store() as store:
            author = store.session_author(session.author_id, session.nonce)
        return None if author is None else (session, author)

    def page(self, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        html = self.service.templates.get_template(name).render(**values)
        return HTMLResponse(html, status_code=status)

    # -- receiving an archive ------------------------------------------------------

    async def receive_archive(self, request: Request, author: Author) -> int | JSONResponse:
        """The new submission's id, or the error response (400, 413, 429, 503)."""
        service = self.service
        cap = service.max_archive
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap + _MULTIPART_SLACK:
            return _error(413, f"the archive is larger than {cap // (1024 * 1024)} MiB")
        with service.store() as store:
            slot = store.reserve_upload(author.id, service.settings.quotas)
        if isinstance(slot, Refusal):
            return _refused(slot)
        try:
            upload = MultipartFile(
                request.headers.get("content-type", ""),
                "archive",
                service.uploads / f"{slot}.upload",
                cap,
                cap + _MULTIPART_SLACK,
            )
            try:
                async for chunk in request.stream():
                    upload.feed(chunk)
                received = upload.finish()
                archive_kind(received.head)
            except BaseException:
                upload.discard()
                raise
        except (UploadError, ArchiveError, ClientDisconnect) as error:
            with service.store() as store:
                store.release_upload(slot)
            if isinstance(error, ClientDisconnect):
                return _error(400, "the upload was cut off")
            return _error(getattr(error, "status", 400), str(error))
        except BaseException:
            with service.store() as store:
                store.release_upload(slot)
            raise
        with service.store() as store:
            submission_id: int = store.add_submission(
                author.id, received.sha256, received.size, slot=slot
            )
            staging = service.layout.staging(submission_id)
            try:
                staging.mkdir(mode=0o700)
                os.replace(received.path, staging / "archive")
            except OSError as error:
                received.path.unlink(missing_ok=True)
                store.reject(
                    submission_id,
                    f"the server could not store it: {error.strerror}",
                    SubmissionReport(),
                )
                return _error(500, "the server could not store the archive")
        service.queue.submit(submission_id)
        return submission_id

    # -- API -----------------------------------------------------------------------

    async def api_submit(self, request: Request) -> Response:
        author = self.bearer(request)
        if isinstance(author, Response):
            return author
        result = await self.receive_archive(request, author)
        if isinstance(result, JSONResponse):
            return result
        return JSONResponse({"id": result, "status": "checking"}, status_code=202)

    async def api_list(self, request: Request) -> Response:
        author = self.bearer(request)
        if isinstance(author, Response):
            return author
        with self.service.store() as store:
            mine = [s.to_json() for s in store.submissions_of(author.id)]
        return JSONResponse({"submissions": mine})

    async def api_show(self, request: Request) -> Response:
        author = self.bearer(request)
        if isinstance(author, Response):
            return author
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
        wait = self.throttled(request)
        if wait is not None:
            response = await self.signin_form(
                request, f"too many wrong tokens from your address: try again in {wait} s", 429
            )
            response.headers["retry-after"] = str(wait)
            return response
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
            self.service.failures.failed(_address(request))
            return await self.signin_form(request, "that token is not valid", 401)
        cookie, session = self.service.keys.issue(author.id)
        with self.service.store() as store:
            store.open_session(author.id, session.nonce, session.expires)
        response = RedirectResponse("/my", status_code=303)
        response.set_cookie(
            SESSION_COOKIE, cookie, httponly=True,
            samesite="strict", secure=self.service.settings.secure_cookies,
            max_age=self.service.keys.lifetime,
        )  # fmt: skip
        response.delete_cookie(SIGNIN_COOKIE, path="/signin")
        return response

    async def signout(self, request: Request) -> Response:
        signed = self.session(request)
        form = await request.form(max_files=0, max_fields=4)
        if signed is not None and self.service.keys.csrf_ok(signed[0], form.get("csrf")):
            with self.service.store() as store:
                store.end_session(signed[0].nonce)  # the cookie opens nothing any more
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
            page = self.page("error.html", result.status_code, message=message)
            if "retry-after" in result.headers:
                page.headers["retry-after"] = result.headers["retry-after"]
            return page
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
            seat = match.seats.index(version.ladder_name)
            rows.append(
                {
                    "id": match.match,
                    "opponents": [n for n in match.seats if n != version.ladder_name],
                    "wins": match.wins[seat],
                    "games": match.games,
                    "faults": match.faults[seat],
                    "has_log": self._match_log(match, version) is not None,
                }
            )
        return self.page("bot.html", author=author, v=version, matches=rows)

    def _match_log(self, match: FinishedMatch, version: BotVersion) -> Path | None:
        if not match.replay:
            return None
        run_dir = Path(match.replay.removesuffix(".jsonl"))
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
        match = next((m for m in matches if m.match == wanted), None)
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
