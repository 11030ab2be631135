"""``arena check BOT``: does a bot, in any language, follow the protocol and the rules?

Named checks, each passing or failing with a hint on how to fix a failure:

- ``start``: the bot comes up, reports ``SERVING`` and answers the handshake within
  the start-up limit;
- ``handshake``: a name, protocol version 1, and ``games`` that match registered games;
- ``version-mismatch``: a handshake offering protocol version 2 is refused with
  ``FAILED_PRECONDITION`` (and the bot keeps serving);
- ``GAME SCENARIO``: for each rule set the bot plays, hand-built deals against a
  scripted opponent (``arena.conformance.scenarios``) so that every kind of decision
  arises: the first upcard as non-dealer and as dealer, gin and knock offered on
  the first turn, a defence with layoffs, the end of the stock, the last discard;
  melds, layoffs, going out and wild-card swaps in Basic Rummy.  Every answer must
  be legal and in time;
- ``GAME play-vs-random``: hands against ``random``, with the distribution of the
  bot's answer times.

Matches go through the real referee (``play_match``); the bot under test is
started once and reused, and started again after it crashes.  The last-discard
variant is in no built-in rule set: a bot whose ``games`` cover
``gin-rummy/check-last-discard`` (``gin-rummy/*`` does) is checked under that id,
the standard rules with ``last_discard`` on, unless a registered rule set it plays
has the variant.
"""

from __future__ import annotations

import math
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from arena.bots import RandomBot
from arena.conformance.report import (
    CheckReport,
    CheckResult,
    CheckSettings,
    Status,
    format_result,
    iter_lines,
    summary_line,
)
from arena.conformance.scenarios import (
    Asked,
    Scenario,
    Transcript,
    gin_scenarios,
    rummy_scenarios,
    scenario_spec,
)
from arena.errors import ArenaError
from arena.games.gin_rummy import STANDARD
from arena.games.spec import GameSpec
from arena.hosting.connection import BotConnection, InProcessConnection
from arena.hosting.faults import SeatStatus
from arena.hosting.launcher import HostedBot, LaunchSettings, UnstartableBotError
from arena.hosting.lookup import is_address
from arena.hosting.probe import health_status, probe_handshake
from arena.plugins import PluginSet
from arena.plugins.bot_references import host_bots
from arena.proto import bot_pb2 as pb
from arena.protocol import PROTOCOL_VERSION, plays_game
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.results import FaultRecord, MatchResult


class CheckError(ArenaError, ValueError):
    """Bad input to the check (an unknown ``--game``): the caller's to fix."""


__all__ = [
    "LAST_DISCARD_PROBE",
    "CheckError",
    "CheckReport",
    "CheckResult",
    "CheckSettings",
    "Status",
    "format_result",
    "iter_lines",
    "run_check",
    "summary_line",
]

#: The id the last-discard variant is checked under when no registered rule set has it.
LAST_DISCARD_PROBE = "gin-rummy/check-last-discard"


_HINTS = {
    SeatStatus.TIMEOUT: (
        "answer every DecisionRequest within clock.decision_ms; time beyond it comes from "
        "clock.bank_ms, which lasts a whole game (PROTOCOL.md section 5)"
    ),
    SeatStatus.CRASHED: (
        "the bot's process died, closed its PlayMatch stream or raised in decide: "
        "read its stderr log"
    ),
    SeatStatus.MALFORMED_REPLY: (
        "reply with legal_index, an index into request.legal_actions, or with a complete "
        "action of this game (PROTOCOL.md section 4)"
    ),
    SeatStatus.ILLEGAL_ACTION: (
        "answer with legal_index (every listed action is legal); a full action must follow "
        "the rule the reason names"
    ),
    SeatStatus.PROTOCOL_ERROR: (
        "write exactly one DecisionReply per DecisionRequest, echoing its request_id, "
        "and nothing else on the stream (PROTOCOL.md section 3)"
    ),
    SeatStatus.START_FAILED: (
        "listen on $ARENA_BOT_ADDRESS (a unix: socket) and answer grpc.health.v1 "
        "Health/Check with SERVING within the start-up limit (PROTOCOL.md section 1-2)"
    ),
}


# -- the bot under test --------------------------------------------------------------


class _Recorder:
    """The bot's connection, recording what it is asked and sent (a ``BotConnection``)."""

    def __init__(self, inner: BotConnection, transcript: Transcript) -> None:
        self.inner = inner
        self.info = inner.info
        self.transcript = transcript

    async def start_match(self) -> None:
        await self.inner.start_match()

    async def send(self, message: bytes) -> None:
        self.transcript.lifecycle.append(pb.RefereeMessage.FromString(message))
        await self.inner.send(message)

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        asked = Asked(pb.RefereeMessage.FromString(message).decision)
        self.transcript.asked.append(asked)
        started = time.perf_counter()
        reply = await self.inner.decide(message, request_id, timeout)
        asked.seconds = time.perf_counter() - started
        asked.reply = reply
        return reply

    async def end_match(self) -> None:
        await self.inner.end_match()

    def close(self) -> None:
        """The host closes the real connection."""


class _Host:
    """Starts the bot under test, and again after it crashes (up to ``max_restarts``)."""

    def __init__(self, reference: str, plugins: PluginSet, settings: CheckSettings, run_dir: Path):
        self.reference = reference
        self.plugins = plugins
        self.settings = settings
        self.launch = LaunchSettings(
            sandbox=settings.sandbox,
            run_dir=run_dir,
            startup_seconds=settings.time_control.startup_ms / 1000,
        )
        self.bot: HostedBot | None = None
        self.external = is_address(reference)
        self.restarts = 0
        self.gave_up = ""  # why the bot is not restarted any more

    def start(self) -> HostedBot:
        self.close()
        (bot,) = host_bots(
            [self.reference],
            self.launch,
            self.plugins,
            self.settings.modules,
            self.settings.autoload,
        )
        self.bot = bot
        return bot

    @property
    def address(self) -> str | None:
        bot = self.bot
        if bot is None:
            return None
        if bot.process is not None:
            return bot.process.address
        return self.reference if self.external else None

    def connection(self) -> BotConnection | None:
        """The live connection, restarting a bot that died; ``None`` once given up."""
        bot = self.bot
        dead = bot is None or bot.connection is None
        if bot is not None and bot.process is not None and bot.process.returncode() is not None:
            dead = True
        if not dead:
            assert bot is not None
            return bot.connection
        if self.gave_up:
            return None
        if self.restarts >= self.settings.max_restarts:
            self.gave_up = f"it stopped {self.restarts + 1} times; not started again"
            return None
        self.restarts += 1
        bot = self.start()
        if bot.start_fault is not None:
            self.gave_up = f"it could not be started again: {bot.start_fault.reason}"
            return None
        return bot.connection

    def after(self, status: SeatStatus) -> None:
        """After a match: a bot that faulted fatally is stopped (``connection`` restarts it)."""
        if status.fatal and self.bot is not None:
            self.bot.close()
            self.bot.connection = None

    @property
    def stderr(self) -> str | None:
        return self.bot.stderr_path if self.bot is not None else None

    def close(self) -> None:
        if self.bot is not None:
            self.bot.close()
            self.bot = None


# -- the checks ----------------------------------------------------------------------


def _selected(only: Sequence[str], game_id: str) -> bool:
    return not only or any(game_id == item or game_id.startswith(f"{item}/") for item in only)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def _fault_hint(fault: FaultRecord, stderr: str | None) -> str:
    hint = _HINTS.get(fault.status, "")
    if fault.status in (SeatStatus.CRASHED, SeatStatus.START_FAILED) and stderr:
        hint += f"; stderr: {stderr}"
    return hint


class _Checker:
    def __init__(
        self,
        reference: str,
        plugins: PluginSet,
        settings: CheckSettings,
        run_dir: Path,
        report: CheckReport,
        emit: Callable[[CheckResult], None],
    ) -> None:
        self.reference = reference
        self.plugins = plugins
        self.settings = settings
        self.report = report
        self.emit = emit
        self.host = _Host(reference, plugins, settings, run_dir)
        self.timeouts = 0  # matches in which the bot timed out

    def add(self, name: str, status: Status, detail: str, hint: str = "") -> CheckResult:
        result = CheckResult(name, status, detail, hint if status is Status.FAIL else "")
        self.report.results.append(result)
        self.emit(result)
        return result

    def run(self) -> None:
        try:
            games = self.start_and_shake_hands()
            if games is None:
                return
            for spec, scenarios in games:
                for scenario in scenarios:
                    self.scenario(spec, scenario)
            for spec, _ in games:
                if spec.id != LAST_DISCARD_PROBE:
                    self.versus_random(spec)
        finally:
            self.host.close()

    # -- start, handshake, version ------------------------------------------------

    def start_and_shake_hands(self) -> list[tuple[GameSpec, list[Scenario]]] | None:
        """The ``start``, ``handshake`` and ``version-mismatch`` checks; the games to
        check next (``None``: nothing more can be checked)."""
        limit = self.settings.time_control.startup_ms / 1000
        started = time.perf_counter()
        bot = self.host.start()
        elapsed = time.perf_counter() - started
        unstartable = UnstartableBotError.of([bot])
        if unstartable is not None:  # a program that cannot run: the user's to fix, in one line
            raise unstartable
        fault = bot.start_fault
        if fault is not None and fault.status is SeatStatus.START_FAILED:
            hint = _HINTS[SeatStatus.START_FAILED]
            if self.host.external:
                hint = f"is the bot running, serving gRPC and grpc.health.v1 at {self.reference}?"
            if bot.stderr_path:
                hint += f"; stderr: {bot.stderr_path}"
            self.add("start", Status.FAIL, fault.reason, hint)
            self.add("handshake", Status.SKIP, "the bot did not start")
            return None
        within = elapsed <= limit
        what = "SERVING and answered the handshake" if fault is None else "SERVING"
        self.add(
            "start",
            Status.PASS if within else Status.FAIL,
            f"{what} in {_ms(elapsed)} (limit {_ms(limit)})",
            "start faster: the limit runs from process start to the handshake's reply "
            "(load what you need before reporting SERVING; or raise --startup-ms)",
        )
        if fault is not None:
            self.add(
                "handshake",
                Status.FAIL,
                fault.reason,
                "answer Handshake with your name, protocol_version 1 and the games you play; "
                "refuse (FAILED_PRECONDITION) only a protocol_version other than 1 "
                "(PROTOCOL.md section 2)",
            )
            return None
        assert bot.connection is not None
        info = bot.connection.info
        self.report.name = info.name
        if bot.manifest_name is not None and info.name != bot.manifest_name:
            self.add(
                "manifest-name",
                Status.FAIL,
                f"the manifest's name {bot.manifest_name!r} differs from the name the bot "
                f"gives in its handshake, {info.name!r}",
                "give the same name in the manifest's `name` and in HandshakeReply.name "
                "(matches, ladders and submissions refuse the bot otherwise)",
            )
        games = self.handshake(info)
        self.version_mismatch()
        return games

    def handshake(self, info: pb.HandshakeReply) -> list[tuple[GameSpec, list[Scenario]]] | None:
        only = self.settings.only
        registered = sorted(self.plugins.games)
        patterns = list(info.games)
        wanted = [game_id for game_id in registered if _selected(only, game_id)]
        plays = [game_id for game_id in wanted if plays_game(patterns, game_id)]
        who = f"{info.name} {info.version}".strip() + (f" by {info.author}" if info.author else "")
        base = f"{who}, protocol {info.protocol_version}, games {' '.join(patterns) or '(none)'}"
        if not plays:
            missing = ", ".join(wanted)
            self.add(
                "handshake",
                Status.FAIL,
                f"{base}: plays none of {missing}",
                "list the games you play in HandshakeReply.games, as ids or patterns "
                f"(gin-rummy/standard, gin-rummy/*, rummy/*); registered: {', '.join(registered)}",
            )
            return None
        refused = [game_id for game_id in wanted if game_id not in plays and only]
        if refused:
            self.add(
                "handshake",
                Status.FAIL,
                f"{base}: does not play {', '.join(refused)}, asked for with --game",
                "add the game to HandshakeReply.games, or check only the games the bot plays",
            )
        else:
            self.add("handshake", Status.PASS, f"{base} -> checking {', '.join(plays)}")
        games: list[tuple[GameSpec, list[Scenario]]] = []
        for game_id in plays:
            spec = self.plugins.game(game_id)
            family = game_id.split("/", 1)[0]
            if family == "gin-rummy":
                pool = gin_scenarios()
            elif family == "rummy":
                pool = rummy_scenarios()
            else:
                pool = []  # a plugin's game: only the games against random
            games.append((spec, [s for s in pool if s.applies(spec.rules)]))
        gin = [spec for spec, _ in games if spec.id.startswith("gin-rummy/")]
        if gin and not any(getattr(spec.rules, "last_discard", False) for spec in gin):
            if plays_game(patterns, LAST_DISCARD_PROBE):
                rules = replace(STANDARD, name="check-last-discard", last_discard=True)
                probe = GameSpec(
                    LAST_DISCARD_PROBE,
                    "Gin Rummy, standard rules with the last discard",
                    2,
                    2,
                    rules,
                    gin[0].new_game,
                )
                games.append((probe, [s for s in gin_scenarios() if s.name == "last-discard"]))
            else:
                self.add(
                    "last-discard",
                    Status.SKIP,
                    "no rule set the bot plays has the last-discard variant, and its games "
                    f"do not cover {LAST_DISCARD_PROBE}",
                )
        return games

    def version_mismatch(self) -> None:
        address = self.host.address
        if address is None:
            self.add("version-mismatch", Status.SKIP, "no address to call")
            return
        timeout = max(self.settings.time_control.startup_ms / 1000, 1.0)
        other = PROTOCOL_VERSION + 1
        probe = probe_handshake(address, other, timeout)
        hint = (
            f"when HandshakeRequest.protocol_version is not {PROTOCOL_VERSION}, fail the call "
            "with status FAILED_PRECONDITION and a message naming both versions "
            "(PROTOCOL.md section 2)"
        )
        if probe.reply is not None:
            self.add(
                "version-mismatch",
                Status.FAIL,
                f"accepted protocol version {other} "
                f"(replied with protocol_version {probe.reply.protocol_version})",
                hint,
            )
        elif probe.code != "FAILED_PRECONDITION":
            self.add(
                "version-mismatch",
                Status.FAIL,
                f"refused protocol version {other} with {probe.code}, not FAILED_PRECONDITION"
                + (f": {probe.details}" if probe.details else ""),
                hint,
            )
        else:
            status = health_status(address, timeout)
            if status != "SERVING":
                self.add(
                    "version-mismatch",
                    Status.FAIL,
                    f"refused protocol version {other}, then its health status was {status}",
                    "refusing a handshake must not stop the bot: keep serving",
                )
            else:
                self.add(
                    "version-mismatch",
                    Status.PASS,
                    f"refused protocol version {other} with FAILED_PRECONDITION: {probe.details}",
                )

    # -- matches --------------------------------------------------------------------

    def _match(
        self,
        name: str,
        config: MatchConfig,
        bot_seat: int,
        opponents: Sequence[BotConnection],
        transcript: Transcript,
    ) -> MatchResult | None:
        """Play a match with the bot in ``bot_seat``; ``None`` (and a FAIL) if it cannot run."""
        if self.timeouts >= self.settings.max_timeouts:
            n = self.timeouts
            self.add(
                name,
                Status.SKIP,
                f"not run: the bot already timed out in {n} match{'es' * (n != 1)}",
            )
            return None
        connection = self.host.connection()
        bot = self.host.bot
        if connection is None or bot is None:
            self.add(name, Status.FAIL, f"not run: {self.host.gave_up}", _HINTS[SeatStatus.CRASHED])
            return None
        recorder = _Recorder(connection, transcript)
        seats = [Seat(other, "opponent", "in-process") for other in opponents]
        seats.insert(bot_seat, Seat.of(bot, connection=recorder))
        result = play_match(config, seats)
        record = result.seats[bot_seat]
        if any(fault.status is SeatStatus.TIMEOUT for fault in record.faults):
            self.timeouts += 1
        self.host.after(record.status)
        return result

    def scenario(self, spec: GameSpec, scenario: Scenario) -> None:
        name = f"{spec.id} {scenario.name}"
        transcript = Transcript(spec.id, scenario.bot_seat)
        config = MatchConfig(
            scenario_spec(spec, scenario),
            games=1,
            seed=self.settings.seed,
            hands_only=scenario.later_deals == 0,
            time_control=self.settings.time_control,
            max_deals=1 + scenario.later_deals,
        )
        opponent = InProcessConnection(scenario.opponent())
        result = self._match(name, config, scenario.bot_seat, [opponent], transcript)
        if result is None:
            return
        faults = result.seats[scenario.bot_seat].faults
        if faults:
            fault = faults[0]
            self.add(
                name,
                Status.FAIL,
                f"{fault.status.value}: {fault.reason} ({transcript.summary()})",
                _fault_hint(fault, self.host.stderr),
            )
            return
        stray = result.seats[1 - scenario.bot_seat].faults
        if stray:  # the scripted opponent's fault (rules it was not written for): not the bot's
            self.add(name, Status.SKIP, f"the scripted opponent faulted: {stray[0].reason}")
            return
        ok, detail = scenario.verify(transcript)
        self.add(
            name,
            Status.PASS if ok else Status.FAIL,
            detail,
            f"the scenario ({scenario.purpose}) did not arise: report this to the arena's authors",
        )

    def versus_random(self, spec: GameSpec) -> None:
        name = f"{spec.id} play-vs-random"
        total = self.settings.games
        if total < 1:
            return
        seconds: list[float] = []
        faults: list[FaultRecord] = []
        hands = 0
        # Two matches, the bot in seat 0 and then in seat 1; Rummy's second has 3 seats.
        first = math.ceil(total / 2)
        plans = [(0, 2, first), (1, 3 if spec.max_seats >= 3 else 2, total - first)]
        for bot_seat, seats, games in plans:
            if games == 0:
                continue
            config = MatchConfig(
                spec,
                games=games,
                seed=self.settings.seed + bot_seat,
                hands_only=True,
                time_control=self.settings.time_control,
            )
            opponents = [InProcessConnection(RandomBot(seed)) for seed in range(1, seats)]
            transcript = Transcript(spec.id, bot_seat)
            result = self._match(name, config, bot_seat, opponents, transcript)
            if result is None:
                return
            seconds += [asked.seconds for asked in transcript.asked if asked.reply is not None]
            faults += result.seats[bot_seat].faults
            hands += len(result.games)
        stats = _distribution(seconds)
        self.report.timing[spec.id] = {**stats, "decisions": len(seconds), "faults": len(faults)}
        times = (
            f"answer ms min {stats['min']:.1f} median {stats['median']:.1f} "
            f"p95 {stats['p95']:.1f} max {stats['max']:.1f}"
            if seconds
            else "no answers"
        )
        detail = f"{hands} hands, {len(seconds)} decisions, {times}, {len(faults)} faults"
        if faults:
            fault = faults[0]
            self.add(
                name,
                Status.FAIL,
                f"{detail}; first: {fault.status.value}: {fault.reason}",
                _fault_hint(fault, self.host.stderr),
            )
        else:
            self.add(name, Status.PASS, detail)


def _distribution(seconds: Sequence[float]) -> dict[str, float]:
    """min, median, p95 (nearest rank) and max, in milliseconds."""
    if not seconds:
        return {"min": 0.0, "median": 0.0, "p95": 0.0, "max": 0.0}
    ordered = sorted(seconds)
    p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
    return {
        "min": round(ordered[0] * 1000, 3),
        "median": round(statistics.median(ordered) * 1000, 3),
        "p95": round(p95 * 1000, 3),
        "max": round(ordered[-1] * 1000, 3),
    }


def run_check(
    reference: str,
    plugins: PluginSet,
    settings: CheckSettings | None = None,
    emit: Callable[[CheckResult], None] | None = None,
) -> CheckReport:
    """Run every check on the bot ``reference`` (name, manifest or address).

    ``emit`` is called with each result as soon as it is known.  Bad input (an
    unknown bot, a bad manifest, an unknown ``--game``) raises a ``ValueError``;
    whatever the bot does is a result.
    """
    settings = settings or CheckSettings()
    registered = sorted(plugins.games)
    unknown = [item for item in settings.only if not any(_selected([item], g) for g in registered)]
    if unknown:
        raise CheckError(
            f"--game {', '.join(unknown)}: no such registered game or family "
            f"(registered: {', '.join(registered)})"
        )
    report = CheckReport(reference)
    run_dir = settings.log_dir or Path(tempfile.mkdtemp(prefix="arena-check-"))
    checker = _Checker(reference, plugins, settings, run_dir, report, emit or (lambda r: None))
    try:
        checker.run()
    finally:
        if settings.log_dir is not None:
            report.logs = str(run_dir)
        elif report.passed or not any(run_dir.iterdir()):
            shutil.rmtree(run_dir, ignore_errors=True)
        else:
            report.logs = str(run_dir)  # kept: the logs of a bot that failed
    return report
