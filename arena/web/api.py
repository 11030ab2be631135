"""The JSON API: every page's data, as the queries return it (documented by OpenAPI at
``/api/openapi.json``)."""

import json
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response
from pydantic import TypeAdapter

from arena.web import queries, site
from arena.web.context import LadderDependency, WebContext, replay_or_404, web
from arena.web.ladders import Ladder
from arena.web.replay_view import PositionUnavailable, ReplayView, position_json
from arena.web.security import MAX_ID  # also registers the {...:id} convertor

__all__ = ["LadderEntry", "LadderIndex", "api_router", "as_json", "index_router"]


_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def _adapter(kind: type) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ADAPTERS[kind] = TypeAdapter(kind)
    return adapter


def as_json(value: Any) -> Response:
    """``value`` (a query's typed rows) as the JSON its route's ``response_model``
    documents.  Encoded straight from the dataclasses by pydantic's serializer: letting
    FastAPI validate the rows first cost more than the query (a 1,000-bot leaderboard)."""
    return Response(_adapter(type(value)).dump_json(value), media_type="application/json")


@dataclass(frozen=True)
class LadderEntry:
    key: str
    name: str
    game: str
    url: str  # its leaderboard page
    api: str  # its API's root


@dataclass(frozen=True)
class LadderIndex:
    ladders: list[LadderEntry]


def index_router() -> APIRouter:
    router = APIRouter(tags=["ladders"])

    @router.get("/ladders", response_model=LadderIndex, operation_id="ladders")
    def ladders(request: Request, context: Annotated[WebContext, Depends(web)]) -> LadderIndex:
        """Every ladder this server shows; the first is the one the short routes address."""
        root = site.root(request)  # the URLs carry the prefix the app is served under
        return LadderIndex(
            [
                LadderEntry(
                    ladder.key,
                    ladder.name,
                    ladder.game,
                    f"{root}/ladders/{ladder.key}/",
                    f"{root}/api/ladders/{ladder.key}",
                )
                for ladder in context.ladders.ladders
            ]
        )

    return router


def api_router(ladder_of: LadderDependency, suffix: str) -> APIRouter:
    """The API of one ladder, the one ``ladder_of`` picks (``suffix`` keeps the two
    mounts' operation ids apart)."""
    router = APIRouter(tags=[f"ladder{suffix}"])
    LadderArg = Annotated[Ladder, Depends(ladder_of)]

    @router.get(
        "/leaderboard", response_model=queries.Leaderboard, operation_id=f"leaderboard{suffix}"
    )
    def leaderboard(
        ladder: LadderArg,
        context: Annotated[WebContext, Depends(web)],
        offset: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
        limit: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    ) -> Response:
        """Bots best first by mu - 3 sigma: the active bots (numbered by ``place``; all,
        or ``limit`` of them from place ``offset + 1``), then the suspended, disabled and
        removed ones; and the run's progress."""
        with ladder.read() as db:
            board = queries.leaderboard(db, context.versions(ladder), offset=offset, limit=limit)
        return as_json(board)

    @router.get("/progress", response_model=queries.Progress, operation_id=f"progress{suffix}")
    def progress(ladder: LadderArg) -> Response:
        """Matches finished, running and queued, and an ETA while a run goes on."""
        with ladder.read() as db:
            return as_json(queries.progress(db))

    @router.get("/bots/{name:path}", response_model=queries.BotPage, operation_id=f"bot{suffix}")
    def bot(ladder: LadderArg, name: str) -> Response:
        """One bot: rating history, results against each opponent, faults, recent matches."""
        with ladder.read() as db:
            page = queries.bot_page(db, name)
        if page is None:
            raise HTTPException(404, f"no bot {name!r} in ladder {ladder.name}")
        return as_json(page)

    @router.get("/matches", response_model=queries.MatchList, operation_id=f"matches{suffix}")
    def matches(
        ladder: LadderArg,
        limit: Annotated[int, Query(ge=1, le=1000)] = 50,
        bot: str | None = None,
    ) -> Response:
        """Finished matches, newest first (of one bot, if ``bot`` is given)."""
        with ladder.read() as db:
            found = queries.matches(db, limit=limit, bot=bot)
        if found is None:
            raise HTTPException(404, f"no bot {bot!r} in ladder {ladder.name}")
        return as_json(found)

    @router.get(
        "/matches/{match_id:id}", response_model=queries.MatchDetail, operation_id=f"match{suffix}"
    )
    def match(ladder: LadderArg, match_id: int) -> Response:
        """One match: seats, result per game, faults."""
        with ladder.read() as db:
            found = queries.match_detail(db, match_id)
        if found is None:
            raise HTTPException(404, f"no match {match_id} in ladder {ladder.name}")
        return as_json(found)

    @router.get(
        "/matches/{match_id:id}/replay", response_model=ReplayView, operation_id=f"replay{suffix}"
    )
    def replay(
        ladder: LadderArg, match_id: int, context: Annotated[WebContext, Depends(web)]
    ) -> Response:
        """The replay as the viewer steps through it: after each record, the stock, the
        discard pile, every seat's hand and known cards, the melds, the scores and, at a
        hand's end, the reveal.  ``drawable`` is false (and ``problem`` says why) for a
        game this server cannot re-play; ``events`` lists the records either way."""
        return as_json(replay_or_404(context, ladder, match_id))

    @router.get(
        "/matches/{match_id:id}/position",
        response_model=dict[str, Any],
        operation_id=f"position{suffix}",
    )
    def position(
        ladder: LadderArg,
        match_id: int,
        context: Annotated[WebContext, Depends(web)],
        seat: Annotated[int | None, Query(ge=0, le=63)] = None,
        at: Annotated[
            str | None, Query(pattern=r"^[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}$")
        ] = None,
    ) -> Response:
        """Seat ``seat``'s decision ``at`` (``G.H.S``: game, hand, the seat's step in the
        hand, from 1; a replay step's ``decision``) as a position file: every message the
        seat was sent up to it and the recorded answer (docs/REPLAY.md, "Positions"), for
        ``arena ask BOT FILE``.  Sent as a download."""
        path = context.replay_file(ladder, match_id)
        if path is None:  # an absent match is a 404 whatever else the request says
            raise HTTPException(404, f"match {match_id} has no replay here")
        if seat is None or at is None:
            raise HTTPException(422, "a position is named by ?seat=N&at=G.H.S")
        try:
            data = position_json(path, seat, at, context.find)
        except PositionUnavailable as error:
            raise HTTPException(404, f"match {match_id}: {error}") from None
        name = f"match{match_id}-seat{seat}-{at}.json"
        return Response(
            json.dumps(data, indent=1),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @router.get(
        "/crosstable", response_model=queries.Crosstable, operation_id=f"crosstable{suffix}"
    )
    def crosstable(ladder: LadderArg, limit: Annotated[int, Query(ge=1, le=200)] = 30) -> Response:
        """Every pair of the best ``limit`` bots: games the row's bot won against the column's."""
        with ladder.read() as db:
            return as_json(queries.crosstable(db, limit=limit))

    @router.get("/field", response_model=queries.FieldPlot, operation_id=f"field{suffix}")
    def field(ladder: LadderArg, limit: Annotated[int, Query(ge=1, le=200)] = 30) -> Response:
        """The best ``limit`` bots' mu - 3 sigma after each rating update, over the
        ladder's finished matches."""
        with ladder.read() as db:
            return as_json(queries.field_plot(db, limit=limit))

    return router
