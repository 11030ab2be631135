"""Counts the runner adds up for ``/metrics``: what only the runner sees (each decision's
time, each bot start), kept in the ladder's database so that they survive restarts and
the web app, another process, can serve them.

A count is a Prometheus sample: its name (``arena_decision_seconds_bucket``), its labels
and a value that only grows.  The runner adds a match's counts right after recording the
match; a crash between the two loses that one match's counts, never a result.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from arena.storage.db import write_transaction

__all__ = ["Count", "add_counts", "read_counts"]


@dataclass(frozen=True, slots=True)
class Count:
    metric: str
    labels: tuple[tuple[str, str], ...]  # sorted (name, value) pairs
    value: float

    @classmethod
    def of(cls, metric: str, value: float = 1.0, **labels: str) -> Count:
        return cls(metric, tuple(sorted(labels.items())), value)


def add_counts(db: sqlite3.Connection, counts: Iterable[Count]) -> None:
    """Add ``counts`` to the stored ones, in one transaction."""
    rows = [(c.metric, json.dumps(c.labels), c.value) for c in counts]
    if not rows:
        return
    with write_transaction(db):
        db.executemany(
            "INSERT INTO metric_counts (metric, labels, value) VALUES (?, ?, ?) "
            "ON CONFLICT (metric, labels) DO UPDATE SET value = value + excluded.value",
            rows,
        )


def read_counts(db: sqlite3.Connection) -> list[Count]:
    """Every stored count (none on a database from before counts were kept)."""
    try:
        rows = db.execute("SELECT metric, labels, value FROM metric_counts").fetchall()
    except sqlite3.OperationalError:  # schema older than version 8, opened read-only
        return []
    return [
        Count(str(metric), tuple((str(k), str(v)) for k, v in json.loads(labels)), float(value))
        for metric, labels, value in rows
    ]
