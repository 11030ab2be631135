"""What ``arena check`` reports: each named check's result, the whole report, the
settings it ran with, and the report as the text the command prints."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from arena.referee.settings import TimeControl

__all__ = [
    "CheckReport",
    "CheckResult",
    "CheckSettings",
    "Status",
    "format_result",
    "iter_lines",
    "summary_line",
]


class Status(Enum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True)
class CheckResult:
    """One named check: its status, what was seen, and how to fix a failure."""

    name: str
    status: Status
    detail: str
    hint: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status.value,
            "detail": self.detail,
            "hint": self.hint,
        }


@dataclass
class CheckReport:
    """Every check's result, in order, and the answer-time distributions (ms) by game."""

    bot: str
    name: str = ""
    results: list[CheckResult] = field(default_factory=list)
    timing: dict[str, dict[str, float]] = field(default_factory=dict)
    logs: str | None = None

    @property
    def passed(self) -> bool:
        return all(result.status is not Status.FAIL for result in self.results)

    def count(self, status: Status) -> int:
        return sum(1 for result in self.results if result.status is status)

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "name": self.name,
            "passed": self.passed,
            "counts": {status.value: self.count(status) for status in Status},
            "checks": [result.to_json() for result in self.results],
            "timing": self.timing,
            "logs": self.logs,
        }


@dataclass(frozen=True)
class CheckSettings:
    """``games``: hands against ``random`` per rule set; ``only``: game ids or families
    (``gin-rummy``) to check, all the bot plays if empty; ``log_dir``: where the bot's
    sockets and stderr logs go (a temporary folder, removed if every check passes)."""

    time_control: TimeControl = field(default_factory=TimeControl)
    sandbox: str = "auto"
    games: int = 4
    seed: int = 0
    only: tuple[str, ...] = ()
    log_dir: Path | None = None
    max_restarts: int = 2  # starts again after a crash
    # A bot that timed out in this many matches is not asked again: each timeout costs
    # the whole decision time and bank, and a hung bot would make the check last minutes.
    max_timeouts: int = 3
    modules: tuple[str, ...] = ()  # plugin modules, for registered bots' own processes
    autoload: bool = True  # entry-point plugins in registered bots' own processes


def iter_lines(report: CheckReport) -> Iterator[str]:
    """The report as text: one line per check, hints under failures, then a summary."""
    width = max((len(result.name) for result in report.results), default=10)
    for result in report.results:
        yield format_result(result, width)
    yield summary_line(report)


def format_result(result: CheckResult, width: int = 40) -> str:
    """``PASS  name  detail``, a failure's hint on the next line (both indented under
    the detail when they run over several lines)."""
    indent = "\n" + " " * (width + 8)
    line = (
        f"{result.status.name:<4}  {result.name:<{width}}  {result.detail.replace(chr(10), indent)}"
    )
    if result.hint:
        line += f"{indent}hint: {result.hint.replace(chr(10), indent)}"
    return line


def summary_line(report: CheckReport) -> str:
    counts = ", ".join(
        f"{report.count(status)} {label}"
        for status, label in (
            (Status.PASS, "passed"),
            (Status.FAIL, "failed"),
            (Status.SKIP, "skipped"),
        )
    )
    verdict = "conforms" if report.passed else "does NOT conform"
    logs = f"; logs: {report.logs}" if report.logs else ""
    return f"{report.name or report.bot}: {verdict} ({counts}){logs}"
