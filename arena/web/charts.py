"""Charts drawn on the server as SVG geometry: numbers in, point lists and ticks out.

The templates only place what this computes, so a chart needs no script and no chart
library, and works with scripts off.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.web.queries import FieldPlot, RatingPoint

__all__ = ["Chart", "Line", "field_chart", "rating_chart"]

WIDTH, HEIGHT = 720, 300
LEFT, RIGHT, TOP, BOTTOM = 52, 12, 12, 36

# Distinct colours for the field plot's lines (Tableau 10), in order of the leaderboard.
PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
)  # fmt: skip


@dataclass(frozen=True)
class Tick:
    at: float  # pixel position along its axis
    label: str


@dataclass(frozen=True)
class Line:
    name: str
    points: str  # "x,y x,y ..." for a polyline
    colour: str
    last_x: float
    last_y: float


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    top: int
    right: float  # pixel x of the plot's right edge
    bottom: float  # pixel y of the plot's bottom edge
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    lines: list[Line]
    band: str  # polygon points of the mu +- 3 sigma band ("" if none)
    x_label: str
    empty: bool


def _nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _label(value: float) -> str:
    return f"{value:g}"


class _Scale:
    def __init__(self, xs: Sequence[float], ys: Sequence[float]) -> None:
        self.x0, self.x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
        if self.x1 <= self.x0:
            self.x1 = self.x0 + 1
        y0, y1 = (min(ys), max(ys)) if ys else (0.0, 1.0)
        pad = (y1 - y0) * 0.05 or 1.0
        self.y0, self.y1 = y0 - pad, y1 + pad
        self.right = WIDTH - RIGHT
        self.bottom = HEIGHT - BOTTOM

    def x(self, value: float) -> float:
        return LEFT + (value - self.x0) / (self.x1 - self.x0) * (self.right - LEFT)

    def y(self, value: float) -> float:
        return self.bottom - (value - self.y0) / (self.y1 - self.y0) * (self.bottom - TOP)

    def points(self, pairs: Sequence[tuple[float, float]]) -> str:
        return " ".join(f"{self.x(x):.1f},{self.y(y):.1f}" for x, y in pairs)

    def ticks(self) -> tuple[list[Tick], list[Tick]]:
        xs = [Tick(self.x(v), _label(v)) for v in _nice_ticks(self.x0, self.x1) if v >= self.x0]
        ys = [
            Tick(self.y(v), _label(v))
            for v in _nice_ticks(self.y0, self.y1)
            if self.y0 <= v <= self.y1
        ]
        return xs, ys


def _thin(pairs: list[tuple[float, float]], most: int = 400) -> list[tuple[float, float]]:
    """At most ``most`` points, evenly spread, keeping the last (a long ladder's line
    looks the same and the page stays small)."""
    if len(pairs) <= most:
        return pairs
    step = len(pairs) / most
    kept = [pairs[int(i * step)] for i in range(most)]
    return [*kept, pairs[-1]] if kept[-1] != pairs[-1] else kept


def rating_chart(name: str, history: Sequence[RatingPoint]) -> Chart:
    """The bot's mu after each rating update, with a band of mu +- 3 sigma, over its
    matches; and mu - 3 sigma, the leaderboard's score."""
    mu = _thin([(float(p.matches), p.mu) for p in history])
    high = _thin([(float(p.matches), p.mu + 3 * p.sigma) for p in history])
    low = _thin([(float(p.matches), p.mu - 3 * p.sigma) for p in history])
    score = _thin([(float(p.matches), p.score) for p in history])
    scale = _Scale([x for x, _ in mu], [y for _, y in high + low])
    x_ticks, y_ticks = scale.ticks()
    lines = []
    for label, pairs, colour in (("mu", mu, PALETTE[0]), ("mu - 3 sigma", score, PALETTE[2])):
        if pairs:
            last = pairs[-1]
            lines.append(
                Line(label, scale.points(pairs), colour, scale.x(last[0]), scale.y(last[1]))
            )
    band = scale.points(high + low[::-1]) if high else ""
    return Chart(
        WIDTH, HEIGHT, LEFT, TOP, scale.right, scale.bottom, x_ticks, y_ticks, lines, band,
        f"{name}'s matches", not history,
    )  # fmt: skip


def field_chart(plot: FieldPlot) -> Chart:
    """Every shown bot's mu - 3 sigma over the ladder's finished matches."""
    thinned = [
        (series.name, _thin([(float(x), y) for x, y in series.points])) for series in plot.series
    ]
    scale = _Scale(
        [x for _, pairs in thinned for x, _ in pairs], [y for _, pairs in thinned for _, y in pairs]
    )
    x_ticks, y_ticks = scale.ticks()
    lines = [
        Line(name, scale.points(pairs), PALETTE[index % len(PALETTE)], scale.x(pairs[-1][0]), scale.y(pairs[-1][1]))
        for index, (name, pairs) in enumerate(thinned)
        if pairs
    ]  # fmt: skip
    return Chart(
        WIDTH, HEIGHT, LEFT, TOP, scale.right, scale.bottom, x_ticks, y_ticks, lines, "",
        "matches played in the ladder", not lines,
    )  # fmt: skip
