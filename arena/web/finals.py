"""A ladder's finals, published beside its leaderboard: the page ``/finals`` and its JSON
twin ``/api/finals`` (and under ``/ladders/{ladder}/`` and ``/api/ladders/{ladder}/``).

Both read the same :meth:`~arena.storage.finals_store.FinalsStore.report` in one read
transaction: the order, each pair of neighbours' sign test, every match, the
commitment, and the secret once the finals have finished (the store never hands it out
before).  ``?finals=ID`` shows an earlier finals than the latest.
"""

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response
from fastapi.responses import HTMLResponse

from arena.storage.finals_store import FinalsReport, FinalsStore
from arena.web.api import as_json
from arena.web.context import LadderDependency
from arena.web.ladders import Ladder
from arena.web.pages import ladder_context, render
from arena.web.security import MAX_ID

__all__ = ["finals_api_router", "finals_page_router", "finals_report"]

FinalsId = Annotated[
    int | None, Query(ge=1, le=MAX_ID, description="a finals' id (default: the latest)")
]


def finals_report(db: sqlite3.Connection, ladder: Ladder, finals_id: int | None) -> FinalsReport:
    """The report of the ladder's latest finals (an empty one before its first), or of
    ``finals_id`` (404 if the ladder has held no such finals)."""
    store = FinalsStore(db)
    if finals_id is None:
        report = store.latest_report()
    else:
        finals = store.get(finals_id)
        if finals is None:
            raise HTTPException(404, f"ladder {ladder.name} has held no finals {finals_id}")
        report = store.report(finals)
    if report.finals is None:
        return report
    # The folder's name only: where the server keeps its files is not a visitor's business.
    name = Path(report.finals.replays).name
    return replace(report, finals=replace(report.finals, replays=name))


def finals_page_router(ladder_of: LadderDependency, named: bool) -> APIRouter:
    """The finals page of the ladder ``ladder_of`` picks (``named``: under its key)."""
    router = APIRouter(include_in_schema=False)
    LadderArg = Annotated[Ladder, Depends(ladder_of)]

    @router.get("/finals", response_class=HTMLResponse)
    def finals(request: Request, ladder: LadderArg, finals: FinalsId = None) -> HTMLResponse:
        with ladder.read() as db:
            report = finals_report(db, ladder, finals)
        return render(
            request, "finals.html", report=report, **ladder_context(request, ladder, named)
        )

    return router


def finals_api_router(ladder_of: LadderDependency, suffix: str) -> APIRouter:
    """The finals' JSON of the ladder ``ladder_of`` picks (``suffix`` keeps the two
    mounts' operation ids apart)."""
    router = APIRouter(tags=[f"ladder{suffix}"])
    LadderArg = Annotated[Ladder, Depends(ladder_of)]

    @router.get("/finals", response_model=FinalsReport, operation_id=f"finals{suffix}")
    def finals(ladder: LadderArg, finals: FinalsId = None) -> Response:
        """The ladder's latest finals (or ``?finals=ID``; before the first, ``finals`` is
        null and the lists are empty): its order (``standings``, tied
        bots sharing a ``place``), each pair of neighbours' exact two-sided sign test on
        their head-to-head decided games (``gaps``), every match, the seed commitment
        (SHA-256 of the secret) and, once finished, the ``secret``: check that
        ``sha256(bytes.fromhex(secret)) == commitment``."""
        with ladder.read() as db:
            return as_json(finals_report(db, ladder, finals))

    return router
