"""``GET /healthz``: whether each ladder's database can be read and its runner is alive.

200 when every ladder served is readable and its runner beat within the last three
beats and has not stopped; 503 otherwise, with the same body saying which part failed
(for a load balancer or a supervisor's probe, and for the operator who reads it).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import asdict, dataclass

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from arena.storage.heartbeat import RunnerState, read_heartbeat
from arena.web.context import web
from arena.web.ladders import Ladder

__all__ = ["LadderHealth", "health_router", "ladder_health"]


@dataclass(frozen=True, slots=True)
class LadderHealth:
    ladder: str
    database: str  # "ok", or why it cannot be read
    runner: str  # playing, idle, stopping, stopped, stale, or none
    runner_pid: int | None
    heartbeat_age_seconds: float | None
    running_matches: int

    @property
    def healthy(self) -> bool:
        return self.database == "ok" and self.runner in (
            RunnerState.PLAYING,
            RunnerState.IDLE,
            RunnerState.STOPPING,
        )


def ladder_health(ladder: Ladder, now: float | None = None) -> LadderHealth:
    now = time.time() if now is None else now
    try:
        with ladder.read() as db:
            db.execute("SELECT name FROM ladder").fetchone()
            try:
                beat = read_heartbeat(db)
            except sqlite3.OperationalError:  # a schema from before heartbeats
                beat = None
    except sqlite3.Error as error:
        return LadderHealth(ladder.key, f"unreadable: {error}", "none", None, None, 0)
    if beat is None:
        return LadderHealth(ladder.key, "ok", "none", None, None, 0)
    state = "stale" if beat.stale(now) else beat.state.value
    return LadderHealth(ladder.key, "ok", state, beat.pid, round(beat.age(now), 1), beat.running)


def health_router() -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.api_route("/healthz", methods=["GET", "HEAD"])
    def healthz(request: Request) -> JSONResponse:
        ladders = [ladder_health(ladder) for ladder in web(request).ladders.ladders]
        healthy = all(item.healthy for item in ladders)
        body = {
            "status": "ok" if healthy else "unhealthy",
            "ladders": [asdict(item) for item in ladders],
        }
        return JSONResponse(body, status_code=200 if healthy else 503)

    return router
