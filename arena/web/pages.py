"""The HTML pages: each renders the same query result its JSON twin returns.

Every page of the site (the submission pages too) goes through :func:`render`, with
the one template environment: each gets ``root`` (the prefix every URL it carries
starts with), ``takes_submissions`` and ``author`` (who is signed in, or None) for the
navigation of ``base.html``.
"""

from typing import Annotated, Any
from urllib.parse import quote

import jinja2
from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from arena.web import charts, queries, site
from arena.web.context import LadderDependency, WebContext, replay_or_404, web
from arena.web.ladders import Ladder
from arena.web.live import live_page
from arena.web.security import MAX_ID  # also registers the {...:id} convertor

__all__ = [
    "LEADERBOARD_PAGE",
    "ladder_context",
    "page_router",
    "render",
    "site_context",
    "templates",
]

# Active bots per leaderboard page: a page of a 1,000-bot ladder renders in a few
# milliseconds, all of it in tens (benchmarks/bench_web.py); the JSON has every bot.
LEADERBOARD_PAGE = 100

_SUITS = {
    "C": ("\u2663", "black"),
    "D": ("\u2666", "red"),
    "H": ("\u2665", "red"),
    "S": ("\u2660", "black"),
}


def card_face(text: str) -> str:
    """``7H`` -> ``7♥``, ``TS`` -> ``10♠``; a joker stays ``JK``."""
    if len(text) != 2 or text[1] not in _SUITS:
        return text
    rank = "10" if text[0] == "T" else text[0]
    return rank + _SUITS[text[1]][0]


def card_colour(text: str) -> str:
    return _SUITS[text[1]][1] if len(text) == 2 and text[1] in _SUITS else "joker"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s"


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("arena.web", "templates"),
        autoescape=True,  # every name, version, comment and reason is untrusted text
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters.update(
        card=card_face,
        colour=card_colour,
        pct=lambda value: f"{100 * value:.1f}%",
        num=lambda value, digits=2: f"{value:.{digits}f}",
        duration=_duration,
        path=lambda value: quote(str(value), safe=""),  # one URL path segment
        # A game's or hand's 0-based number as a person reads it: from 1 ("-": none,
        # a fault before the first deal is recorded at game and hand -1).
        from1=lambda value: str(value + 1) if value >= 0 else "-",
    )
    return environment


templates = _environment()


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """``template`` filled with ``context`` and what every page shares (``root``,
    ``takes_submissions``, ``author``: pass ``author`` when the handler knows it)."""
    values: dict[str, Any] = {
        "root": site.root(request),
        "takes_submissions": site.submissions_of(request) is not None,
    }
    if "author" not in context:
        signed = site.signed_in(request)
        values["author"] = None if signed is None else signed[1]
    html = templates.get_template(template).render(**values, **context)
    return HTMLResponse(html, status_code=status_code)


def ladder_context(request: Request, ladder: Ladder, named: bool) -> dict[str, Any]:
    """The navigation of a ladder's pages: its links, with the app's prefix."""
    context = web(request)
    prefix = site.root(request)
    with ladder.read() as db:
        frozen = queries.frozen_since(db)
    return {
        "ladder": ladder,
        "base": prefix + context.base(ladder, named),
        "api": prefix + (f"/api/ladders/{ladder.key}" if named else "/api"),
        "several": len(context.ladders.ladders) > 1,
        "frozen": frozen,
    }


def site_context(request: Request) -> dict[str, Any]:
    """The navigation of a page that belongs to no ladder in particular (an error, an
    author's pages): the only ladder's links, or the list of ladders when there are several."""
    ladders = web(request).ladders.ladders
    if len(ladders) == 1:
        return ladder_context(request, ladders[0], named=False)
    return {"several": True}


def page_router(ladder_of: LadderDependency, named: bool) -> APIRouter:
    """The pages of the ladder ``ladder_of`` picks (``named``: mounted under its key)."""
    router = APIRouter(include_in_schema=False)
    LadderArg = Annotated[Ladder, Depends(ladder_of)]
    Context = Annotated[WebContext, Depends(web)]

    def common(request: Request, ladder: Ladder) -> dict[str, Any]:
        return ladder_context(request, ladder, named)

    @router.get("/", response_class=HTMLResponse)
    def leaderboard(
        request: Request,
        ladder: LadderArg,
        context: Context,
        page: Annotated[int, Query(ge=1, le=MAX_ID // LEADERBOARD_PAGE)] = 1,
    ) -> HTMLResponse:
        if not named and len(context.ladders.ladders) > 1:
            return render(request, "index.html", ladders=context.ladders.ladders, several=True)
        offset = (page - 1) * LEADERBOARD_PAGE
        with ladder.read() as db:
            board = queries.leaderboard(
                db, context.versions(ladder), offset=offset, limit=LEADERBOARD_PAGE
            )
        pages = max(1, -(-board.active // LEADERBOARD_PAGE))
        if page > pages:
            raise HTTPException(404, f"the leaderboard has {pages} page(s)")
        return render(
            request,
            "leaderboard.html",
            board=board,
            page=page,
            pages=pages,
            shown_to=min(board.active, offset + LEADERBOARD_PAGE),
            **common(request, ladder),
        )

    @router.get("/bots/{name:path}", response_class=HTMLResponse)
    def bot(request: Request, ladder: LadderArg, name: str) -> HTMLResponse:
        with ladder.read() as db:
            page = queries.bot_page(db, name)
        if page is None:
            raise HTTPException(404, f"no bot {name!r} in ladder {ladder.name}")
        return render(
            request,
            "bot.html",
            page=page,
            chart=charts.rating_chart(page.bot.name, page.history),
            **common(request, ladder),
        )

    @router.get("/matches", response_class=HTMLResponse)
    def matches(
        request: Request,
        ladder: LadderArg,
        bot: str | None = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> HTMLResponse:
        with ladder.read() as db:
            found = queries.matches(db, limit=limit, bot=bot)
        if found is None:
            raise HTTPException(404, f"no bot {bot!r} in ladder {ladder.name}")
        return render(request, "matches.html", listing=found, **common(request, ladder))

    @router.get("/matches/{match_id:id}", response_class=HTMLResponse)
    def match(request: Request, ladder: LadderArg, context: Context, match_id: int) -> HTMLResponse:
        with ladder.read() as db:
            detail = queries.match_detail(db, match_id)
        if detail is None:
            raise HTTPException(404, f"no match {match_id} in ladder {ladder.name}")
        replay, missing = None, "this match has no replay" if not detail.has_replay else ""
        if detail.has_replay:
            try:
                replay = replay_or_404(context, ladder, match_id)
            except HTTPException as error:
                missing = str(error.detail)
        site = common(request, ladder)
        return render(
            request,
            "match.html",
            match=detail,
            replay=replay,
            missing=missing,
            live=live_page(ladder, site["api"], match_id),
            **site,
        )

    @router.get("/field", response_class=HTMLResponse)
    def field(
        request: Request,
        ladder: LadderArg,
        limit: Annotated[int, Query(ge=1, le=200)] = 30,
    ) -> HTMLResponse:
        with ladder.read() as db:
            plot = queries.field_plot(db, limit=limit)
        return render(
            request,
            "field.html",
            plot=plot,
            chart=charts.field_chart(plot),
            **common(request, ladder),
        )

    @router.get("/crosstable", response_class=HTMLResponse)
    def crosstable(
        request: Request,
        ladder: LadderArg,
        limit: Annotated[int, Query(ge=1, le=200)] = 30,
    ) -> HTMLResponse:
        with ladder.read() as db:
            table = queries.crosstable(db, limit=limit)
        return render(request, "crosstable.html", table=table, **common(request, ladder))

    return router
