"""The submission pages and API of ``arena serve DB --submissions``: a router of the one
web application (:func:`arena.web.create_app` with a
:class:`~arena.submissions.service.SubmissionService`), its pages drawn with the site's
templates and navigation.

API (``Authorization: Bearer TOKEN``): ``POST /api/submissions`` (multipart, field
``archive``) answers 202 ``{"id", "status": "checking"}``, 401 without a valid token,
400 with a one-line reason for a bad archive, 413 when too large, 429 over one of the
author's quotas (with ``Retry-After`` when waiting frees it), 503 when the server has
as many uploads in flight as it takes; ``GET /api/submissions`` lists the author's own;
``GET /api/submissions/ID`` gives ``{"status", "report", ...}`` to its author only (404
to anyone else: whether another author's submission exists is not told).  Errors are
``{"error": "..."}``.

Pages (a session cookie after signing in with the token once, recorded in the database
so that signing out, a new token and the session's lifetime end it; CSRF tokens on every
form): ``/signin``, ``/my`` (upload form, submissions, bots), ``/my/submissions/ID``
(the report and the check's logs), ``/my/bots/NAME`` (its matches, faults and stderr
logs).  Nobody but the author sees any of these; every answer is ``no-store``
(:mod:`arena.web.security`).

The body of an upload is streamed to a file with the size cap applied as it arrives,
after its quota slot is taken (:meth:`SubmissionService.reserve`); a refused upload
frees its slot.  Wrong tokens are limited per client address
(:mod:`arena.submissions.throttle`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from starlette.requests import ClientDisconnect
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)

from arena.archives import ArchiveError, archive_kind
from arena.storage.ladder_store import FinishedMatch
from arena.storage.submissions_store import Author, BotVersion, Refusal, Submission
from arena.submissions.service import SubmissionService
from arena.submissions.sessions import Session
from arena.submissions.upload import MultipartFile, UploadError
from arena.web import site
from arena.web.pages import render, site_context
from arena.web.security import SESSION_COOKIE  # also registers the {...:id} convertor

__all__ = ["SESSION_COOKIE", "SIGNIN_COOKIE", "submission_router"]

SIGNIN_COOKIE = "arena_signin"
_MULTIPART_SLACK = 1024 * 1024  # the form's own bytes around the archive
_UNAUTHORIZED = "a valid token is needed: Authorization: Bearer TOKEN"


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _refused(refusal: Refusal) -> JSONResponse:
    headers = {}
    if refusal.retry_after is not None:
        headers["retry-after"] = str(refusal.retry_after)
    return _error(refusal.http_status, refusal.reason, headers)


def _address(request: Request) -> str:
    return request.client.host if request.client else "-"


def _redirect(request: Request, path: str) -> RedirectResponse:
    """A 303 to one of the site's paths, under the app's prefix."""
    return RedirectResponse(site.root(request) + path, status_code=303)


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
        author = self.service.authenticate(token.strip())
        if author is None:
            self.service.failures.failed(_address(request))
            return _error(401, _UNAUTHORIZED)
        return author

    def page(self, request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        """One of the submission pages, in the site's frame (its navigation, the only
        ladder's links); ``author`` among ``values`` saves looking it up again."""
        return render(request, f"submissions/{name}", status, **site_context(request), **values)

    # -- receiving an archive ------------------------------------------------------

    async def receive_archive(self, request: Request, author: Author) -> int | JSONResponse:
        """The new submission's id, or the error response (400, 413, 429, 500, 503)."""
        service = self.service
        cap = service.max_archive
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap + _MULTIPART_SLACK:
            return _error(413, f"the archive is larger than {cap // (1024 * 1024)} MiB")
        slot = service.reserve(author)
        if isinstance(slot, Refusal):
            return _refused(slot)
        try:
            upload = MultipartFile(
                request.headers.get("content-type", ""),
                "archive",
                service.upload_path(slot),
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
            service.release(slot)
            if isinstance(error, ClientDisconnect):
                return _error(400, "the upload was cut off")
            return _error(getattr(error, "status", 400), str(error))
        except BaseException:
            service.release(slot)
            raise
        submission_id = service.admit(author, received, slot)
        if submission_id is None:
            return _error(500, "the server could not store the archive")
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

    async def api_show(self, request: Request, submission_id: int) -> Response:
        author = self.bearer(request)
        if isinstance(author, Response):
            return author
        with self.service.store() as store:
            submission = store.submission(submission_id)
        if submission is None or submission.author_id != author.id:
            return _error(404, "no such submission of yours")
        return JSONResponse(submission.to_json())

    # -- signing in and out ------------------------------------------------------------

    def signin_form(self, request: Request, problem: str = "", status: int = 200) -> Response:
        value = secrets.token_hex(16)
        response = self.page(request, "signin.html", status, csrf=value, problem=problem)
        response.set_cookie(
            SIGNIN_COOKIE, value, httponly=True, samesite="strict",
            secure=self.service.settings.secure_cookies, path=f"{site.root(request)}/signin",
        )  # fmt: skip
        return response

    async def signin_page(self, request: Request) -> Response:
        return self.signin_form(request)

    async def signin(self, request: Request) -> Response:
        wait = self.throttled(request)
        if wait is not None:
            response = self.signin_form(
                request, f"too many wrong tokens from your address: try again in {wait} s", 429
            )
            response.headers["retry-after"] = str(wait)
            return response
        form = await request.form(max_files=0, max_fields=4)
        sent = form.get("csrf")
        expected = request.cookies.get(SIGNIN_COOKIE)
        if not isinstance(sent, str) or not expected or not secrets.compare_digest(sent, expected):
            return self.signin_form(request, "the form expired: sign in again", 403)
        token = form.get("token")
        author = None
        if isinstance(token, str) and token.strip():
            author = self.service.authenticate(token.strip())
        if author is None:
            self.service.failures.failed(_address(request))
            return self.signin_form(request, "that token is not valid", 401)
        cookie = self.service.open_session(author)
        root = site.root(request)
        response = _redirect(request, "/my")
        response.set_cookie(
            SESSION_COOKIE, cookie, httponly=True,
            samesite="strict", secure=self.service.settings.secure_cookies,
            max_age=self.service.keys.lifetime, path=f"{root}/",
        )  # fmt: skip
        response.delete_cookie(SIGNIN_COOKIE, path=f"{root}/signin")
        return response

    async def signout(self, request: Request) -> Response:
        signed = site.signed_in(request)
        form = await request.form(max_files=0, max_fields=4)
        if signed is None or not self.service.keys.csrf_ok(signed[0], form.get("csrf")):
            raise HTTPException(403, "forbidden: bad or missing CSRF token, or not signed in")
        self.service.end_session(signed[0])
        response = _redirect(request, "/signin")
        response.delete_cookie(SESSION_COOKIE, path=f"{site.root(request)}/")
        return response

    # -- the author's pages ------------------------------------------------------------

    def _signed_in(self, request: Request) -> tuple[Session, Author]:
        """The signed-in author, or (raised) a 303 to the sign-in page."""
        signed = site.signed_in(request)
        if signed is None:
            signin = f"{site.root(request)}/signin"
            raise HTTPException(303, "sign in first", headers={"location": signin})
        return signed

    async def my(self, request: Request) -> Response:
        session, author = self._signed_in(request)
        with self.service.store() as store:
            submissions = store.submissions_of(author.id)
            versions = store.versions(author.id)
        return self.page(
            request,
            "my.html",
            author=author,
            csrf=self.service.keys.csrf(session),
            submissions=submissions,
            versions=versions,
            max_mb=self.service.max_archive // (1024 * 1024),
        )

    async def upload(self, request: Request, csrf: str = "") -> Response:
        signed = site.signed_in(request)
        if signed is None:
            raise HTTPException(401, "sign in first")
        session, author = signed
        # The CSRF token travels in the query string: checking it must not need the body.
        if not self.service.keys.csrf_ok(session, csrf):
            raise HTTPException(403, "forbidden: bad or missing CSRF token")
        result = await self.receive_archive(request, author)
        if isinstance(result, JSONResponse):
            message = json.loads(bytes(result.body))["error"]
            page = self.page(
                request, "refused.html", result.status_code, author=author, message=message
            )
            if "retry-after" in result.headers:
                page.headers["retry-after"] = result.headers["retry-after"]
            return page
        return _redirect(request, f"/my/submissions/{result}")

    def _own_submission(self, request: Request, submission_id: int) -> tuple[Author, Submission]:
        _, author = self._signed_in(request)
        with self.service.store() as store:
            submission = store.submission(submission_id)
        if submission is None or submission.author_id != author.id:
            raise HTTPException(404, "no such submission of yours")
        return author, submission

    async def submission_page(self, request: Request, submission_id: int) -> Response:
        author, submission = self._own_submission(request, submission_id)
        logs = self.service.layout.logs(submission.id)
        names = sorted(p.name for p in logs.iterdir()) if logs.is_dir() else []
        return self.page(
            request,
            "submission.html",
            author=author,
            s=submission,
            report=_report_view(submission),
            logs=names,
        )

    async def submission_log(self, request: Request, submission_id: int, name: str) -> Response:
        _, submission = self._own_submission(request, submission_id)
        logs = self.service.layout.logs(submission.id)
        # Only a name listed in the folder: never a path built from the request.
        if not logs.is_dir() or name not in {p.name for p in logs.iterdir() if p.is_file()}:
            raise HTTPException(404, "no such log")
        return PlainTextResponse((logs / name).read_bytes().decode(errors="replace"))

    def _own_version(self, request: Request, name: str) -> tuple[Author, BotVersion]:
        _, author = self._signed_in(request)
        with self.service.store() as store:
            versions = {v.ladder_name: v for v in store.versions(author.id)}
        version = versions.get(name)
        if version is None:
            raise HTTPException(404, "no such bot of yours")
        return author, version

    async def bot_page(self, request: Request, name: str) -> Response:
        author, version = self._own_version(request, name)
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
                    "has_log": _match_log(match, version) is not None,
                }
            )
        return self.page(request, "bot.html", author=author, v=version, matches=rows)

    async def bot_log(self, request: Request, name: str, match: int) -> Response:
        _, version = self._own_version(request, name)
        with self.service.store() as store:
            matches = store.ladder.finished_matches(version.ladder_name)
        found = next((m for m in matches if m.match == match), None)
        path = _match_log(found, version) if found is not None else None
        if path is None:
            raise HTTPException(404, "no such log")
        return PlainTextResponse(path.read_bytes().decode(errors="replace"))


def _report_view(submission: Submission) -> dict[str, Any]:
    """What the submission page shows of its stored report (every key present, so that
    the template only places them)."""
    report = submission.report or {}
    return {
        "version": report.get("version"),
        "ladder_name": report.get("ladder_name"),
        "build": report.get("build"),
        "checks": (report.get("check") or {}).get("checks", []),
    }


def _match_log(match: FinishedMatch, version: BotVersion) -> Path | None:
    if not match.replay:
        return None
    run_dir = Path(match.replay.removesuffix(".jsonl"))
    path = run_dir / f"{version.bot_name}.stderr.log"
    return path if path.is_file() and not path.is_symlink() else None


def submission_router(service: SubmissionService) -> APIRouter:
    """Every route of the submission pages and API, for ``app.include_router``: what
    ``create_app(ladders, submissions=service)`` adds, with ``service`` on
    ``app.state.submissions`` (the navigation reads who is signed in through it) and
    started and stopped in the app's lifespan."""
    h = _Handlers(service)
    router = APIRouter()
    api: list[tuple[str, Callable[..., Any], str]] = [
        ("/api/submissions", h.api_submit, "POST"),
        ("/api/submissions", h.api_list, "GET"),
        ("/api/submissions/{submission_id:id}", h.api_show, "GET"),
    ]
    for path, endpoint, method in api:
        router.add_api_route(path, endpoint, methods=[method], tags=["submissions"])
    pages: list[tuple[str, Callable[..., Any], str]] = [
        ("/signin", h.signin_page, "GET"),
        ("/signin", h.signin, "POST"),
        ("/signout", h.signout, "POST"),
        ("/my", h.my, "GET"),
        ("/my/upload", h.upload, "POST"),
        ("/my/submissions/{submission_id:id}", h.submission_page, "GET"),
        ("/my/submissions/{submission_id:id}/logs/{name}", h.submission_log, "GET"),
        ("/my/bots/{name}", h.bot_page, "GET"),
        ("/my/bots/{name}/matches/{match:id}/stderr", h.bot_log, "GET"),
    ]
    for path, endpoint, method in pages:
        router.add_api_route(path, endpoint, methods=[method], include_in_schema=False)
    return router
