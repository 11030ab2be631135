"""``GET /metrics`` in Prometheus' text format, and one access-log line a request.

Two sources, one page:

* the ladders' databases, read at each scrape: matches running and queued, the counts
  the runner keeps (matches finished by outcome, seat faults by status, bot starts and
  start failures by sandbox level, every decision's time), submissions by status and
  how long their checks took, and the runner's heartbeat.  The runner is another
  process: what it counts lives in the database (``arena.storage.metric_counts``), so it
  survives restarts of either process.
* this server's own requests: by method, route (its template, not the raw path, so
  that the number of series stays bounded) and status code, with their durations.

Every name is listed in docs/OPERATIONS.md; a test checks that the two agree.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.storage.heartbeat import read_heartbeat
from arena.storage.metric_counts import Count, read_counts
from arena.web.ladders import Ladder, LadderSet
from arena.web.security import route_path

__all__ = ["CHECK_BUCKETS", "RequestMetrics", "metrics_router"]

access_log = logging.getLogger("arena.web.access")

#: Upper bounds (seconds) of the submission-check histogram: a built-in check takes
#: seconds, a kit that builds takes minutes.
CHECK_BUCKETS = (1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
_COUNTERS = {  # the runner's counts: name (without _total) -> (help, label)
    "arena_matches_finished": ("Ladder matches the runner finished, by outcome", "outcome"),
    "arena_seat_faults": ("Seats that ended a match with a fault, by status", "status"),
    "arena_bot_starts": ("Bot processes started for a match, by sandbox level", "sandbox"),
    "arena_bot_start_failures": ("Bots that did not come up, by sandbox level", "sandbox"),
}


def _seconds(start: str | None, end: str | None) -> float | None:
    if not start or not end:
        return None
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


@dataclass
class _Families:
    """The metric families one scrape fills, ladder by ladder."""

    running: GaugeMetricFamily = field(
        default_factory=lambda: GaugeMetricFamily(
            "arena_matches_running", "Ladder matches being played", labels=["ladder"]
        )
    )
    queued: GaugeMetricFamily = field(
        default_factory=lambda: GaugeMetricFamily(
            "arena_matches_queued", "Ladder matches waiting to be played", labels=["ladder"]
        )
    )
    counters: dict[str, CounterMetricFamily] = field(
        default_factory=lambda: {
            name: CounterMetricFamily(name, text, labels=["ladder", label])
            for name, (text, label) in _COUNTERS.items()
        }
    )
    decisions: HistogramMetricFamily = field(
        default_factory=lambda: HistogramMetricFamily(
            "arena_decision_seconds", "Time a bot took for a decision", labels=["ladder"]
        )
    )
    submissions: GaugeMetricFamily = field(
        default_factory=lambda: GaugeMetricFamily(
            "arena_submissions", "Submissions by status", labels=["ladder", "status"]
        )
    )
    checks: HistogramMetricFamily = field(
        default_factory=lambda: HistogramMetricFamily(
            "arena_submission_check_seconds",
            "Time from an upload to its check's verdict",
            labels=["ladder"],
        )
    )
    beat_age: GaugeMetricFamily = field(
        default_factory=lambda: GaugeMetricFamily(
            "arena_runner_heartbeat_age_seconds",
            "Seconds since the ladder's runner last wrote its heartbeat",
            labels=["ladder", "state"],
        )
    )
    finals: GaugeMetricFamily = field(
        default_factory=lambda: GaugeMetricFamily(
            "arena_finals_matches",
            "Matches of the ladder's finals by status",
            labels=["ladder", "status"],
        )
    )
    up: GaugeMetricFamily = field(
        default_factory=lambda: GaugeMetricFamily(
            "arena_ladder_database_up",
            "1 when the ladder's database could be read",
            labels=["ladder"],
        )
    )

    def all(self) -> list[Metric]:
        return [
            self.running, self.queued, *self.counters.values(), self.decisions,
            self.submissions, self.checks, self.beat_age, self.finals, self.up,
        ]  # fmt: skip


class _LadderCollector(Collector):
    """The ladders' numbers, read from their databases at each scrape."""

    def __init__(self, ladders: LadderSet) -> None:
        self.ladders = ladders

    def collect(self) -> Iterator[Metric]:
        families = _Families()
        for ladder in self.ladders.ladders:
            try:
                _add_ladder(ladder, families)
                families.up.add_metric([ladder.key], 1)
            except sqlite3.Error:
                families.up.add_metric([ladder.key], 0)
        yield from families.all()


def _add_ladder(ladder: Ladder, families: _Families) -> None:
    key = ladder.key
    with ladder.read() as db:
        statuses = dict(
            db.execute("SELECT status, COUNT(*) FROM matches GROUP BY status").fetchall()
        )
        counts = read_counts(db)
        beat = read_heartbeat(db) if _has_table(db, "runner") else None
        rows = (
            db.execute("SELECT status, created, finished FROM submissions").fetchall()
            if _has_table(db, "submissions")
            else []
        )
        finals = (
            db.execute("SELECT status, COUNT(*) FROM finals_matches GROUP BY status").fetchall()
            if _has_table(db, "finals_matches")
            else []
        )
    families.running.add_metric([key], statuses.get("running", 0))
    families.queued.add_metric([key], statuses.get("scheduled", 0))
    _add_counts(key, counts, families)
    by_status: defaultdict[str, int] = defaultdict(int)
    durations: list[float] = []
    for status, created, finished in rows:
        by_status[str(status)] += 1
        seconds = _seconds(created, finished)
        if seconds is not None:
            durations.append(seconds)
    for status, number in sorted(by_status.items()):
        families.submissions.add_metric([key, status], number)
    if rows:
        cumulative = [
            (repr(bound), float(sum(1 for d in durations if d <= bound))) for bound in CHECK_BUCKETS
        ]
        cumulative.append(("+Inf", float(len(durations))))
        families.checks.add_metric([key], cumulative, sum(durations))
    if beat is not None:
        families.beat_age.add_metric([key, beat.state.value], beat.age())
    for status, number in finals:
        families.finals.add_metric([key, str(status)], number)


def _add_counts(key: str, counts: list[Count], families: _Families) -> None:
    buckets: dict[str, float] = {}
    total = 0.0
    for count in counts:
        labels = dict(count.labels)
        name = count.metric.removesuffix("_total")
        if name in families.counters:
            families.counters[name].add_metric(
                [key, labels.get(_COUNTERS[name][1], "")], count.value
            )
        elif count.metric == "arena_decision_seconds_bucket":
            buckets[labels["le"]] = count.value
        elif count.metric == "arena_decision_seconds_sum":
            total = count.value
    if buckets:
        ordered = sorted(buckets.items(), key=lambda item: float(item[0]))
        families.decisions.add_metric([key], ordered, total)


def _template(scope: Scope) -> str:
    """The route a request matched, its parameters named (``/api/matches/{match_id}``):
    a label with as many values as there are routes, whatever the paths asked."""
    if scope.get("route") is None:
        return "(no route)"
    path = route_path(scope)
    for name, value in reversed(list(scope.get("path_params", {}).items())):
        text = f"/{value}"
        at = path.rfind(text)
        if at >= 0:
            path = f"{path[:at]}/{{{name}}}{path[at + len(text) :]}"
    return path


def _has_table(db: sqlite3.Connection, name: str) -> bool:
    row = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
    return row.fetchone() is not None


class RequestMetrics:
    """Counts and times every request, and writes its access-log line (pure ASGI)."""

    def __init__(self, app: ASGIApp, registry: CollectorRegistry) -> None:
        self.app = app
        self.requests = Counter(
            "arena_http_requests", "HTTP requests answered, by method, route and status code",
            ["method", "route", "code"], registry=registry,
        )  # fmt: skip
        self.durations = Histogram(
            "arena_http_request_duration_seconds", "Time to answer a request, by route",
            ["route"], registry=registry,
        )  # fmt: skip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, record_status)
        finally:
            seconds = time.perf_counter() - started
            template = _template(scope)
            method = str(scope.get("method", ""))
            self.requests.labels(method, template, str(status)).inc()
            self.durations.labels(template).observe(seconds)
            client = scope.get("client")
            access_log.info(
                '%s "%s %s" %d %.1fms',
                client[0] if client else "-", method, route_path(scope), status, seconds * 1000,
            )  # fmt: skip


def metrics_router(registry: CollectorRegistry, ladders: LadderSet) -> APIRouter:
    # No ``_created`` series beside each counter: a timestamp per series that nothing
    # here needs (the client's switch is process-wide; the server has one registry).
    disable_created_metrics()  # type: ignore[no-untyped-call]  # the client's own, untyped
    registry.register(_LadderCollector(ladders))
    router = APIRouter(include_in_schema=False)

    @router.get("/metrics")
    def metrics(request: Request) -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    return router
