"""The web application: ``create_app(ladders)`` builds it; ``arena serve`` runs it.

To extend it (another command's pages, say), build the app and ``include_router`` more
routes: the security headers, error pages and static assets apply to them too.  With a
:class:`~arena.submissions.service.SubmissionService` (``arena serve DB --submissions``)
the same app takes bot submissions: the author's pages and API of
:mod:`arena.web.submissions`, in the same frame and behind the same middleware, and the
service's check queue started and stopped in the app's lifespan.
"""

from __future__ import annotations

import contextlib
import hashlib
import mimetypes
from collections.abc import AsyncIterator
from dataclasses import dataclass
from importlib import resources

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from prometheus_client import CollectorRegistry
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from arena.games.registry import find_game
from arena.replays.engine import GameLookup
from arena.submissions.service import SubmissionService
from arena.web.api import api_router, index_router
from arena.web.context import WebContext, default_ladder, named_ladder
from arena.web.finals import finals_api_router, finals_page_router
from arena.web.health import health_router
from arena.web.ladders import LadderSet
from arena.web.live import LiveHub, live_router
from arena.web.metrics import RequestMetrics, metrics_router
from arena.web.pages import page_router, render, site_context
from arena.web.security import SECURITY_HEADERS, SecurityHeaders, route_path
from arena.web.submissions import submission_router

__all__ = ["SECURITY_HEADERS", "create_app"]


@dataclass(frozen=True)
class _Asset:
    body: bytes
    media_type: str
    etag: str


def _assets() -> dict[str, _Asset]:
    """The static files, read once from the package: a URL only picks one by name, so
    no path from a request reaches the filesystem."""
    folder = resources.files("arena.web") / "static"
    assets = {}
    for entry in folder.iterdir():
        if entry.is_file():
            body = entry.read_bytes()
            media_type = mimetypes.guess_type(entry.name)[0] or "application/octet-stream"
            if media_type.startswith("text/") or media_type.endswith("javascript"):
                media_type += "; charset=utf-8"
            assets[entry.name] = _Asset(body, media_type, hashlib.sha256(body).hexdigest()[:16])
    return assets


def _static_router() -> APIRouter:
    router = APIRouter(include_in_schema=False)
    assets = _assets()

    @router.get("/static/{name}")
    def static(name: str, request: Request) -> Response:
        asset = assets.get(name)
        if asset is None:
            raise HTTPException(404, "no such file")
        headers = {"etag": f'"{asset.etag}"', "cache-control": "public, max-age=300"}
        if request.headers.get("if-none-match") == headers["etag"]:
            return Response(status_code=304, headers=headers)
        return Response(asset.body, media_type=asset.media_type, headers=headers)

    return router


def _wants_json(request: Request) -> bool:
    path = route_path(request.scope)
    return path.startswith("/api/") or path == "/api"


def create_app(
    ladders: LadderSet,
    *,
    find: GameLookup = find_game,
    submissions: SubmissionService | None = None,
) -> FastAPI:
    """The web view of ``ladders`` (the first is the default); ``find`` knows the games
    whose replays can be drawn (pass a plugin set's ``game`` for plugin games);
    ``submissions``: also take bot submissions for the (one) ladder, with its pages in
    the navigation."""
    if submissions is not None and len(ladders.ladders) != 1:
        raise ValueError(f"submissions go to one ladder, not {len(ladders.ladders)}")

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if submissions is not None:
            submissions.start()
        try:
            yield
        finally:
            if submissions is not None:
                submissions.stop()

    app = FastAPI(
        title="Rummy Arena",
        summary="A read-only view of ladder databases: leaderboards, bots, matches, replays.",
        version="1",
        docs_url=None,  # the interactive docs load scripts from a CDN: not served
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.state.web = WebContext(ladders, find)
    app.state.submissions = submissions
    # Level 5: a 1,000-bot leaderboard shrinks to a fifth at a third of level 9's CPU time.
    app.add_middleware(GZipMiddleware, minimum_size=2048, compresslevel=5)
    app.add_middleware(SecurityHeaders)
    registry = CollectorRegistry()  # this app's own: two apps in one process count apart
    app.add_middleware(RequestMetrics, registry=registry)  # outermost: sees every answer

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, StarletteHTTPException)
        if _wants_json(request):
            return JSONResponse(
                {"detail": error.detail}, status_code=error.status_code, headers=error.headers
            )
        response = render(
            request, "error.html", error.status_code, status=error.status_code,
            message=str(error.detail), **site_context(request),
        )  # fmt: skip
        response.headers.update(error.headers or {})  # a 303's location, a 405's allow
        return response

    async def bad_request(request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
            for problem in error.errors()
        )
        if _wants_json(request):
            return JSONResponse({"detail": problems}, status_code=422)
        return render(
            request, "error.html", 422, status=422, message=problems, **site_context(request)
        )

    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, bad_request)
    app.include_router(_static_router())
    if submissions is not None:
        app.include_router(submission_router(submissions))
    app.include_router(index_router(), prefix="/api")
    app.state.live = LiveHub()
    app.include_router(health_router())
    app.include_router(metrics_router(registry, ladders))
    app.include_router(live_router(named_ladder, "_of_ladder"), prefix="/api/ladders/{ladder}")
    app.include_router(live_router(default_ladder, ""), prefix="/api")
    app.include_router(api_router(named_ladder, "_of_ladder"), prefix="/api/ladders/{ladder}")
    app.include_router(api_router(default_ladder, ""), prefix="/api")
    app.include_router(page_router(named_ladder, named=True), prefix="/ladders/{ladder}")
    app.include_router(page_router(default_ladder, named=False))
    app.include_router(
        finals_api_router(named_ladder, "_of_ladder"), prefix="/api/ladders/{ladder}"
    )
    app.include_router(finals_api_router(default_ladder, ""), prefix="/api")
    app.include_router(finals_page_router(named_ladder, named=True), prefix="/ladders/{ladder}")
    app.include_router(finals_page_router(default_ladder, named=False))
    return app
