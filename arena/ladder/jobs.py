r"""A ladder match as the runner hands it to an executor (``MatchJob``), what became of
that attempt, and the executors' contract: the runner submits jobs and takes back
``Finished`` ones.

Each is a small frozen value that crosses process boundaries (a pool worker, a Dask
worker) by pickling; the runner matches on the type:

- ``Played``: the match was played; its result (bot faults included) and replay.
- ``Errored``: the arena's own problem (a plugin gone missing, a full disk): the runner
  puts the match back, up to ``MAX_ATTEMPTS`` tries.
- ``Failed``: the arena could not play it in ``MAX_ATTEMPTS`` tries (it took down every
  worker it ran on): recorded as a failure, a loss for neither bot.
- ``Lost``: the local pool broke under it: the match goes back and the run stops.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from arena.errors import ArenaError
from arena.referee.results import MatchResult
from arena.referee.settings import MatchSettings

__all__ = [
    "MAX_ATTEMPTS",
    "Errored",
    "ExecutorLostError",
    "Failed",
    "Finished",
    "Lost",
    "MatchExecutor",
    "MatchFiles",
    "MatchJob",
    "Outcome",
    "Played",
]

#: Tries one match gets: the runner's re-queues after an arena error, and the Dask
#: workers it may take down.  After that it is given up (cancelled with its reason),
#: or, when it took down the workers, recorded failed; the ladder goes on.
MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class MatchJob:
    match_id: int
    attempt: int
    game: str
    references: tuple[str, ...]  # by seat
    names: tuple[str, ...]  # ladder names, by seat
    seed: int
    reveal_seed: bool
    settings: MatchSettings
    sandbox: str
    replays: str | None
    plugins: tuple[str, ...]
    autoload: bool
    log_cap: int  # bytes kept of each bot's stdout and of its stderr
    reuse_bots: bool = False  # keep this worker's bot processes for its next matches


@dataclass(frozen=True)
class MatchFiles:
    """A match's replay and its bots' logs (their tails), by file name, as a remote
    worker sends them back to be written where a local one would have."""

    replay: bytes | None
    logs: dict[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Played:
    result: MatchResult
    replay: str | None
    files: MatchFiles | None = None  # from a remote worker, until written here


@dataclass(frozen=True)
class Errored:
    error: str
    traceback: str = ""


@dataclass(frozen=True)
class Failed:
    reason: str


@dataclass(frozen=True)
class Lost:
    reason: str


Outcome = Played | Errored | Failed | Lost


class ExecutorLostError(ArenaError, RuntimeError):
    """The executor cannot go on (the Dask scheduler is gone); matches in flight are lost."""


@dataclass(frozen=True)
class Finished:
    match_id: int
    attempt: int
    outcome: Outcome


class MatchExecutor(Protocol):
    def capacity(self) -> int:
        """How many matches to keep in flight now."""

    def submit(self, job: MatchJob) -> None: ...

    def wait(self, timeout: float | None = None) -> list[Finished]:
        """Block until at least one submitted match has finished, or ``timeout`` seconds
        have passed; those that have (none at a timeout).  Raises ExecutorLostError when
        the matches in flight can no longer come back."""

    def abandon(self) -> None:
        """Stop every match in flight now (a stopping runner's grace is over): their bots
        are killed and their results never come back.  ``close`` follows."""

    def status(self) -> str:
        """A few words for the progress line ("" when there is nothing to say)."""
