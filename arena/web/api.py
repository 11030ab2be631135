"""The JSON API: every page's data, as the queries return it (documented by OpenAPI at
``/api/openapi.json``)."""

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query

from arena.web import queries
from arena.web.context import LadderDependency, WebContext, replay_or_404, web
from arena.web.ladders import Ladder
from arena.web.replay_view import ReplayView

__all__ = ["LadderEntry", "LadderIndex", "api_router", "index_router"]


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
    def ladders(context: Annotated[WebContext, Depends(web)]) -> LadderIndex:
        """Every ladder this server shows; the first is the one the short routes address."""
        return LadderIndex(
            [
                LadderEntry(
                    ladder.key,
                    ladder.name,
                    ladder.game,
                    f"/ladders/{ladder.key}/",
                    f"/api/ladders/{ladder.key}",
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
    def leaderboard(ladder: LadderArg) -> queries.Leaderboard:
        """Bots best first by mu - 3 sigma (active bots, numbered by ``place``, then the
        suspended, disabled and removed ones), and the run's progress."""
        with ladder.read() as db:
            return queries.leaderboard(db)

    @router.get("/progress", response_model=queries.Progress, operation_id=f"progress{suffix}")
    def progress(ladder: LadderArg) -> queries.Progress:
        """Matches finished, running and queued, and an ETA while a run goes on."""
        with ladder.read() as db:
            return queries.progress(db)

    @router.get("/bots/{name:path}", response_model=queries.BotPage, operation_id=f"bot{suffix}")
    def bot(ladder: LadderArg, name: str) -> queries.BotPage:
        """One bot: rating history, results against each opponent, faults, recent matches."""
        with ladder.read() as db:
            page = queries.bot_page(db, name)
        if page is None:
            raise HTTPException(404, f"no bot {name!r} in ladder {ladder.name}")
        return page

    @router.get("/matches", response_model=queries.MatchList, operation_id=f"matches{suffix}")
    def matches(
        ladder: LadderArg,
        limit: Annotated[int, Query(ge=1, le=1000)] = 50,
        bot: str | None = None,
    ) -> queries.MatchList:
        """Finished matches, newest first (of one bot, if ``bot`` is given)."""
        with ladder.read() as db:
            found = queries.matches(db, limit=limit, bot=bot)
        if found is None:
            raise HTTPException(404, f"no bot {bot!r} in ladder {ladder.name}")
        return found

    @router.get(
        "/matches/{match_id:int}", response_model=queries.MatchDetail, operation_id=f"match{suffix}"
    )
    def match(ladder: LadderArg, match_id: int) -> queries.MatchDetail:
        """One match: seats, result per game, faults."""
        with ladder.read() as db:
            found = queries.match_detail(db, match_id)
        if found is None:
            raise HTTPException(404, f"no match {match_id} in ladder {ladder.name}")
        return found

    @router.get(
        "/matches/{match_id:int}/replay", response_model=ReplayView, operation_id=f"replay{suffix}"
    )
    def replay(
        ladder: LadderArg, match_id: int, context: Annotated[WebContext, Depends(web)]
    ) -> ReplayView:
        """The replay as the viewer steps through it: after each record, the stock, the
        discard pile, every seat's hand and known cards, the melds, the scores and, at a
        hand's end, the reveal.  ``drawable`` is false (and ``problem`` says why) for a
        game this server cannot re-play; ``events`` lists the records either way."""
        return replay_or_404(context, ladder, match_id)

    @router.get(
        "/crosstable", response_model=queries.Crosstable, operation_id=f"crosstable{suffix}"
    )
    def crosstable(
        ladder: LadderArg, limit: Annotated[int, Query(ge=1, le=200)] = 30
    ) -> queries.Crosstable:
        """Every pair of the best ``limit`` bots: games the row's bot won against the column's."""
        with ladder.read() as db:
            return queries.crosstable(db, limit=limit)

    @router.get("/field", response_model=queries.FieldPlot, operation_id=f"field{suffix}")
    def field(
        ladder: LadderArg, limit: Annotated[int, Query(ge=1, le=200)] = 30
    ) -> queries.FieldPlot:
        """The best ``limit`` bots' mu - 3 sigma after each rating update, over the
        ladder's finished matches."""
        with ladder.read() as db:
            return queries.field_plot(db, limit=limit)

    return router
