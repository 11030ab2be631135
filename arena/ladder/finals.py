"""A season's finals: the top bots of a ladder play duplicate round-robins, round after
round, until the order is settled or the games run out.

- **Who.** The active bots (a submitted bot's current version) placed best by
  mu - 3 sigma when the finals start; ``--top N`` of them.
- **Deals.** A fresh 32-byte secret (``referee.seeds.new_secret``), stored at once
  and published as its SHA-256 commitment; each line-up of each round deals from
  ``derived_seed(secret, "finals-ID/round-R/A|B")``, every match of the line-up the
  same cards with the seats rotated (two seats: the pair's two matches, swapped).
  The secret is revealed when the finals end: anyone can check that it hashes to the
  commitment and that each match's seed (its replay reveals it) derives from it.
- **Rounds.** A round is one duplicate round-robin of the finalists (more seats than
  two: every line-up of the ladder's seat count, in every rotation).  After each
  round the order is by games won over all finals matches, then points; each pair of
  neighbours is *separated* when the exact two-sided sign test on their head-to-head
  decided games (``arena.stats.sign_test``; tied games left out) gives p < 0.05 in
  favour of the one placed higher.  Another round is played while a pair is neither
  separated nor out of games: a round that would take the pairs past ``--max-games``
  head-to-head games is not played, and a pair still not separated then shares a place.
- **Crash safety.** As in the ladder: a match is marked running before it starts and
  recorded once, with its seats and game ranks, in one transaction; a round is queued
  in one.  ``kill -9`` and the same command again: the matches that were running play
  again, none is counted twice.  One finals at a time per ladder (``DB.finals.lock``),
  beside the ladder's runner, whose matches, tables and ratings it does not touch.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from arena.hosting.logs import DEFAULT_LOG_CAP
from arena.ladder.config import LadderConfig
from arena.ladder.executors import open_executor
from arena.ladder.jobs import (
    MAX_ATTEMPTS,
    Errored,
    ExecutorLostError,
    Failed,
    Finished,
    Lost,
    MatchExecutor,
    MatchJob,
    Played,
)
from arena.ladder.runner import (
    LadderError,
    LadderRefused,
    check_sandbox,  # the same sandbox rules as the ladder's own matches
    check_stored_versions,
)
from arena.ladder.runner_lock import LadderBusy, RunnerLock
from arena.ladder.schedule import round_robin
from arena.ladder.wakeup import StopRequest
from arena.plugins import load_plugins
from arena.privatefiles import private_folder
from arena.referee.seeds import derived_seed, new_secret
from arena.storage.finals_store import (
    FinalsRow,
    FinalsStandings,
    FinalsStatus,
    FinalsStore,
    NewFinalist,
    RoundUnit,
    round_games,
)
from arena.storage.ladder_store import BotStatus, LadderStore
from arena.storage.submissions_store import submitted_bot_names

__all__ = [
    "DEFAULT_MAX_GAMES",
    "FINALS_ROLE",
    "FinalsRefused",
    "FinalsRequest",
    "FinalsRun",
    "commitment_of",
    "finals_lock",
    "run_finals",
    "unit_label",
]

log = logging.getLogger("arena.ladder.finals")

#: The lock role of a finals (``DB.finals.lock``): one finals at a time per ladder.
FINALS_ROLE = "finals"
#: Head-to-head games a pair plays at most, unless ``--max-games`` says (at least a round's).
DEFAULT_MAX_GAMES = 100
_WAIT_SECONDS = 1.0


class FinalsRefused(LadderError, ValueError):
    """A finals that cannot start or resume as asked (one line, nothing changed)."""


@dataclass(frozen=True)
class FinalsRequest:
    """``arena ladder finals DB --top N [--games G] [--max-games M] [--new]``."""

    top: int
    games: int | None = None  # games a match; None: the ladder's [match] games
    max_games: int | None = None  # None: DEFAULT_MAX_GAMES, or one round's if more
    new: bool = False  # hold another finals after a finished one


@dataclass(frozen=True)
class FinalsRun:
    """What a call of :func:`run_finals` did."""

    finals: FinalsRow
    standings: FinalsStandings
    started: bool  # a new finals (False: resumed, or finished already)
    played: int  # matches recorded by this call
    recovered: int  # matches a killed run left running, played again
    stopped: bool  # a stop request ended the call before the finals did
    already_finished: bool = False  # the latest finals had finished: nothing was played


def commitment_of(secret: bytes) -> str:
    """The published commitment to a finals' secret: its SHA-256, in hex."""
    return hashlib.sha256(secret).hexdigest()


def unit_label(finals_id: int, number: int, group: tuple[str, ...]) -> str:
    """What a line-up's seed derives from: the finals, the round and the line-up."""
    return f"finals-{finals_id}/round-{number}/{'|'.join(group)}"


def finals_lock(db: Path) -> RunnerLock:
    return RunnerLock(db, role=FINALS_ROLE)


def _check_request(request: FinalsRequest) -> None:
    if request.top < 2:
        raise FinalsRefused(
            f"--top must be 2 or more (a finals is between bots), got {request.top}"
        )
    if request.games is not None and request.games < 1:
        raise FinalsRefused(f"--games must be 1 or more, got {request.games}")
    if request.max_games is not None and request.max_games < 1:
        raise FinalsRefused(f"--max-games must be 1 or more, got {request.max_games}")


def _round_note(bots: int, seats: int, games: int) -> str:
    """How a round's head-to-head games a pair come about, for the refusal."""
    lineups = round_games(bots, seats, 1) // seats  # line-ups holding a given pair
    each = f"{seats} matches of {games} game{'s' if games != 1 else ''}"
    return each if lineups == 1 else f"{lineups} line-ups holding the pair, {each} each"


def _new_finals(
    store: LadderStore, finals: FinalsStore, config: LadderConfig, request: FinalsRequest
) -> int:
    """Choose the finalists, check the request against them and store the finals with a
    fresh secret; its id."""
    active = sorted(
        (bot for bot in store.bots() if bot.status is BotStatus.ACTIVE),
        key=lambda bot: (-bot.rating.conservative, bot.name),
    )
    if len(active) < 2:
        raise FinalsRefused(
            f"ladder {config.name} has {len(active)} active bot{'s' if len(active) != 1 else ''}: "
            "a finals needs 2 or more"
        )
    chosen = active[: request.top]
    seats = config.seats
    if len(chosen) < seats:
        raise FinalsRefused(
            f"the finals' {len(chosen)} bots fill no line-up of ladder {config.name}'s {seats} "
            f"seats: give --top {seats} or more (and have as many active bots)"
        )
    games = request.games if request.games is not None else config.games
    per_round = round_games(len(chosen), seats, games)
    max_games = request.max_games
    if max_games is None:
        max_games = max(DEFAULT_MAX_GAMES, per_round)
    if max_games < per_round:
        raise FinalsRefused(
            f"--max-games {max_games} is fewer than one round's head-to-head games a pair "
            f"({per_round}: {_round_note(len(chosen), seats, games)})"
        )
    secret = new_secret()
    return finals.create(
        top=request.top,
        games=games,
        max_games=max_games,
        seats=seats,
        secret=secret,
        commitment=commitment_of(secret),
        replays=lambda finals_id: str(_replay_folder(store, config, finals_id)),
        finalists=[
            NewFinalist(bot.id, place, bot.rating.mu, bot.rating.sigma)
            for place, bot in enumerate(chosen, start=1)
        ],
    )


def _replay_folder(store: LadderStore, config: LadderConfig, finals_id: int) -> Path:
    """``finals-ID/`` in the ladder's replay folder (beside the database, in
    ``NAME-replays/``, for a ladder that keeps none)."""
    base = (
        Path(config.replays)
        if config.replays
        else Path(store.path).with_name(f"{Path(store.path).stem}-replays")
    )
    return (base / f"finals-{finals_id}").resolve()


def _check_resume(row: FinalsRow, request: FinalsRequest) -> None:
    """A finals left unfinished resumes only as it was asked for."""
    asked = [
        ("--top", request.top, row.top),
        ("--games", request.games, row.games),
        ("--max-games", request.max_games, row.max_games),
    ]
    for option, given, stored in asked:
        if given is not None and given != stored:
            raise FinalsRefused(
                f"finals {row.id} is unfinished and was started with {option} {stored}, not "
                f"{given}: run it again as it was started (arena ladder finals DB --top "
                f"{row.top} --games {row.games} --max-games {row.max_games}) to resume it"
            )


def _units(finals: FinalsRow, secret: bytes, names: list[str], number: int) -> list[RoundUnit]:
    """One round: every line-up of the finalists, each in every rotation over one seed."""
    units = []
    for unit in round_robin(names, finals.seats, 1, True):
        group = unit.lineups[0]  # the line-up itself, in name order
        label = unit_label(finals.id, number, group)
        units.append(RoundUnit(label, derived_seed(secret, label), unit.lineups))
    return units


Say = Callable[[str], None]


def run_finals(
    store: LadderStore,
    request: FinalsRequest,
    *,
    say: Say = print,
    stop: StopRequest | None = None,
) -> FinalsRun:
    """Start (or resume) the ladder's finals and play it to its end, saying what goes
    on through ``say``: the commitment at the start, each match, each round's order, the
    secret at the end.  Refusals (``FinalsRefused``) change nothing."""
    _check_request(request)
    db_path = Path(store.path)
    lock = finals_lock(db_path)
    try:
        lock.__enter__()
    except LadderBusy as busy:
        who = f"process {busy.pid}" if busy.pid else "another process"
        raise FinalsRefused(
            f"a finals of ladder {db_path} is already running in {who}: one at a time"
        ) from None
    try:
        return _run_locked(store, request, say, stop)
    finally:
        lock.__exit__(None, None, None)


def _run_locked(
    store: LadderStore, request: FinalsRequest, say: Say, stop: StopRequest | None
) -> FinalsRun:
    config = LadderConfig.from_json(store.config_json())
    finals_store = FinalsStore(store.db)
    latest = finals_store.latest()
    resumed: FinalsRow | None = None
    if latest is not None and latest.status is FinalsStatus.RUNNING:
        if request.new:
            raise FinalsRefused(
                f"finals {latest.id} of ladder {config.name} is unfinished: run the command "
                "without --new to resume it (a new finals follows a finished one)"
            )
        _check_resume(latest, request)
        resumed = latest
    elif latest is not None and not request.new:
        return FinalsRun(latest, finals_store.standings(latest), False, 0, 0, False, True)
    # Whatever could refuse the finals here refuses them before anything is stored.
    sandbox = check_sandbox(store, config, progress=True)
    check_stored_versions(store, config)
    try:
        load_plugins(config.plugins, autoload=config.autoload_plugins).game(config.game)
    except Exception as error:
        raise LadderRefused(f"ladder {config.name}: {error}") from None
    if resumed is None:
        found = finals_store.get(_new_finals(store, finals_store, config, request))
        assert found is not None
        finals, started = found, True
    else:
        finals, started = resumed, False
    finalists = finals_store.finalists(finals.id)
    names = [bot.name for bot in finalists]
    word = "started" if started else "resumed"
    say(
        f"finals {finals.id} of ladder {config.name} {word}: {', '.join(names)}; "
        f"{finals.games} game{'s' if finals.games != 1 else ''} a match, rounds until each "
        f"pair of neighbours is separated (sign test, p < 0.05) or has played "
        f"{finals.max_games} head-to-head games"
    )
    say(f"commitment: sha256 {finals.commitment} (the secret is revealed when the finals end)")
    folder = Path(finals.replays)
    try:
        private_folder(folder)
    except OSError as error:
        raise LadderRefused(
            f"finals {finals.id}: cannot make its replay folder {folder}: {error.strerror or error}"
        ) from None
    recovered = finals_store.recover_running(finals.id)
    if recovered:
        say(
            f"{recovered} match{'es' if recovered != 1 else ''} left running by an earlier run: played again"
        )
    strangers = config.untrusted or bool(submitted_bot_names(store) & set(names))
    play = _Play(finals_store, finals, config, sandbox, str(folder), say, stop)
    with open_executor(replace(config, replays=str(folder)), strangers=strangers) as executor:
        play.loop(executor, names)
    finals = finals_store.get(finals.id) or finals
    standings = finals_store.standings(finals)
    return FinalsRun(finals, standings, started, play.played, recovered, play.stopped)


@dataclass
class _Play:
    store: FinalsStore
    finals: FinalsRow
    config: LadderConfig
    sandbox: str
    replays: str
    say: Say
    stop: StopRequest | None
    played: int = 0
    stopped: bool = False

    def _secret(self) -> bytes:
        return self.store.secret(self.finals.id)

    def loop(self, executor: MatchExecutor, names: list[str]) -> None:
        pending: set[int] = set()
        references = {bot.name: bot.reference for bot in self.store.finalists(self.finals.id)}
        while True:
            if self.stop is not None and self.stop.requested:
                self._abandon(executor, pending)
                return
            while len(pending) < executor.capacity():
                match = self.store.take_next(self.finals.id)
                if match is None:
                    break
                if match.attempts > MAX_ATTEMPTS:  # earlier runs died on it
                    self.store.record_failure(
                        match.id, f"given up after {MAX_ATTEMPTS} attempts never finished"
                    )
                    continue
                job = MatchJob(
                    match_id=match.id,
                    attempt=match.attempts,
                    game=self.config.game,
                    references=tuple(references[name] for name in match.seats),
                    names=match.seats,
                    seed=match.seed,
                    # The other matches of its line-up deal the same cards.
                    reveal_seed=match.unit_matches == 1,
                    settings=replace(self.config.match_settings, games=self.finals.games),
                    sandbox=self.sandbox,
                    replays=self.replays,
                    plugins=self.config.plugins,
                    autoload=self.config.autoload_plugins,
                    log_cap=DEFAULT_LOG_CAP,
                    reuse_bots=self.config.reuse_bots,
                )
                pending.add(match.id)
                try:
                    executor.submit(job)
                except BaseException:
                    pending.discard(match.id)
                    self.store.requeue(match.id)
                    raise
            if pending:
                try:
                    done = executor.wait(_WAIT_SECONDS)
                except ExecutorLostError as error:
                    for match_id in pending:
                        self.store.requeue(match_id)
                    raise LadderError(
                        f"{error}; {len(pending)} finals match(es) in flight put back in the "
                        "queue: run the same command again to resume the finals"
                    ) from None
                for finished in done:
                    self._collect(finished, pending)
                continue
            if self.store.open_matches(self.finals.id):
                continue  # given up just now: take the next
            if not self._next_round(names):
                return

    def _collect(self, finished: Finished, pending: set[int]) -> None:
        match_id = finished.match_id
        pending.discard(match_id)
        match finished.outcome:
            case Played(result, replay):
                if self.store.record(match_id, result, replay):
                    self.played += 1
                    wins = " - ".join(
                        f"{seat.name} {result.wins(index)}"
                        for index, seat in enumerate(result.seats)
                    )
                    self.say(f"  match {match_id}: {wins}")
            case Errored(error):
                if finished.attempt >= MAX_ATTEMPTS:
                    self.store.record_failure(
                        match_id, f"given up after {MAX_ATTEMPTS} attempts: {error}"
                    )
                    self.say(f"  match {match_id}: given up ({error})")
                else:
                    self.store.requeue(match_id)
            case Failed(reason):
                self.store.record_failure(match_id, reason)
                self.say(f"  match {match_id}: could not be played ({reason})")
            case Lost(reason):
                self.store.requeue(match_id)
                for other in pending:
                    self.store.requeue(other)
                pending.clear()
                raise LadderError(f"{reason}: run the same command again to resume the finals")

    def _abandon(self, executor: MatchExecutor, pending: set[int]) -> None:
        executor.abandon()
        for match_id in sorted(pending):
            self.store.requeue(match_id, count_attempt=False)
        pending.clear()
        self.stopped = True
        self.say(f"finals {self.finals.id} stopped: the same command resumes it")

    def _next_round(self, names: list[str]) -> bool:
        """The round is over: end the finals, or queue the next round (False: ended)."""
        finals = self.store.get(self.finals.id)
        assert finals is not None
        standings = self.store.standings(finals)
        if finals.rounds:
            order = ", ".join(
                f"{row.place}. {row.name} {row.game_wins}" for row in standings.standings
            )
            self.say(f"after round {finals.rounds}: {order}")
        if standings.decided and finals.rounds:
            self.store.finish(finals.id, {row.name: row.place for row in standings.standings})
            ended = self.store.get(finals.id)
            assert ended is not None and ended.secret is not None
            self.say(f"finals {finals.id} finished; secret: {ended.secret}")
            return False
        number = finals.rounds + 1
        units = _units(finals, self._secret(), names, number)
        self.store.queue_round(finals.id, number, units)
        self.say(f"round {number}: {sum(len(unit.lineups) for unit in units)} matches")
        return True
