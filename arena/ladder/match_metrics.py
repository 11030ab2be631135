"""What one finished match adds to the runner's metric counts (``/metrics``,
docs/OPERATIONS.md): its outcome, its seats' faults and starts by sandbox level, and
every decision's time as a Prometheus histogram."""

from __future__ import annotations

import bisect

from arena.hosting.faults import SeatStatus
from arena.ladder.jobs import Errored, Failed, Lost, Outcome, Played
from arena.storage.metric_counts import Count

__all__ = ["DECISION_BUCKETS", "match_counts"]

#: Upper bounds (seconds) of the decision-time histogram: from an in-process policy's
#: fraction of a millisecond to a bot that spends its whole bank.
DECISION_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)


def _outcome(outcome: Outcome) -> str:
    match outcome:
        case Played():
            return "played"
        case Failed():
            return "failed"
        case Errored():
            return "errored"
        case Lost():
            return "lost"
    raise AssertionError(outcome)


def match_counts(outcome: Outcome) -> list[Count]:
    counts = [Count.of("arena_matches_finished_total", outcome=_outcome(outcome))]
    if not isinstance(outcome, Played):
        return counts
    times: list[float] = []
    for seat in outcome.result.seats:
        counts.append(Count.of("arena_bot_starts_total", sandbox=seat.sandbox))
        if seat.status is SeatStatus.START_FAILED:
            counts.append(Count.of("arena_bot_start_failures_total", sandbox=seat.sandbox))
        if seat.status is not SeatStatus.OK:
            counts.append(Count.of("arena_seat_faults_total", status=seat.status.value))
        times.extend(seat.decision_seconds)
    if times:
        times.sort()
        for bound in DECISION_BUCKETS:
            within = bisect.bisect_right(times, bound)
            counts.append(Count.of("arena_decision_seconds_bucket", within, le=repr(bound)))
        counts.append(Count.of("arena_decision_seconds_bucket", len(times), le="+Inf"))
        counts.append(Count.of("arena_decision_seconds_sum", sum(times)))
        counts.append(Count.of("arena_decision_seconds_count", len(times)))
    return counts
