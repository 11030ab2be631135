"""Every way a bot process can misbehave becomes a seat status, and nothing outlives it.

Each broken bot (``arena.testing.broken_bots``) runs as a real process in the sandbox
and talks gRPC on a Unix socket; it plays ``random`` (in the referee's process, or
as a process too through the CLI), and after the match not one of its processes is left.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from arena.games.registry import find_game
from arena.hosting.faults import SeatStatus
from arena.hosting.launcher import HostedBot, LaunchSettings
from arena.referee.match import MatchConfig, play_match
from arena.referee.results import MatchResult
from arena.referee.settings import FaultMode, FaultPolicy, TimeControl
from arena.replays.files import ReplayWriter, read_replay
from arena.replays.verify import verify_replay
from arena.testing.broken_bots import EXPECTED_STATUS, KINDS, write_manifest
from arena.testing.processes import processes_with

from .conftest import (
    BROKEN_MODULE,
    arena,
    assert_nothing_left,
    host,
    seats_of,
    signal_mask,
)

STANDARD = find_game("gin-rummy/standard")
GAMES = 2
# Small, so the file runs fast; the slow bot sleeps well past decision + bank.
TIME = TimeControl(startup_ms=10_000, decision_ms=100, bank_ms=100)
ARGS = {"slow": ("--delay-ms", "400"), "crash-mid": ("--after", "3")}

# What each fault's reason must say (a regular expression).
REASONS = {
    "hang": r"no reply to request \d+ within 200 ms",
    "slow": r"no reply to request \d+ within 200 ms",
    "crash-start": r"exited with status 3 before it was ready.*giving up before serving",
    "never-ready": r"was not ready after 0\.5 s",
    "crash-mid": r"connection lost.*process exited with status 5.*exiting after 3 decisions",
    "raise": r"raised RuntimeError: broken-raise fails on purpose",
    "garbage-index": r"legal_index 999 out of range: \d+ legal actions",
    "empty-reply": r"neither legal_index nor action",
    "garbage-card": r"not a card: 'ZZ'",
    "rummy-action": r"lay_meld is not a Gin Rummy action",
    "illegal": r"cannot discard [2-9TJQKA][CDHS]: not in seat [01]'s hand",
    "unknown-request": r"reply to unknown request \d+",
    "refuse-handshake": r"refused the handshake: FAILED_PRECONDITION .*refuses protocol version 1",
    "wrong-version": r"speaks protocol version 2, the referee 1",
    "garbage-bytes": r"reply to request \d+ is not a BotMessage: 5 bytes that do not decode",
    "truncated": r"reply to request \d+ is not a BotMessage: \d+ bytes that do not decode",
    "wrong-message": r"expected a DecisionReply, got an empty BotMessage",
    "oversized": r"over the limit of 65536 bytes",
    "early-close": r"the bot closed its stream",
    "duplicate-reply": r"reply to request \d+, which is not open",
    "future-reply": r"reply to unknown request 100000: not sent yet",
    "flood": r"reply to request \d+, which is not open",
    "hung-handshake": r"did not answer the handshake within the start-up limit of 8\.0 s",
    "returns-none": r"decide returned None",
    "returns-text": r"returned 'draw stock' \(a str\), not an action of gin-rummy/standard",
}
# Start-up limits (s) for the kinds that never start: short, so the test does not wait long.
STARTUP = {"never-ready": 0.5, "hung-handshake": 8.0}
FAULTY = [kind for kind, status in EXPECTED_STATUS.items() if status is not SeatStatus.OK]
STUBBORN = [kind for kind, status in EXPECTED_STATUS.items() if status is SeatStatus.OK]
FATAL = {SeatStatus.CRASHED, SeatStatus.PROTOCOL_ERROR, SeatStatus.START_FAILED}


def test_every_kind_is_documented_and_checked() -> None:
    assert set(REASONS) == set(FAULTY)
    assert {"ignore-sigterm", "fork"} <= set(STUBBORN)
    assert all(KINDS[kind] and "\n" not in KINDS[kind] for kind in KINDS)


def broken_bot(
    tmp_path: Path, kind: str, marker: str, *, sandbox: str = "auto", startup: float = 10.0
) -> HostedBot:
    manifest = write_manifest(tmp_path, kind, *ARGS.get(kind, ()), "--marker", marker)
    settings = LaunchSettings(sandbox=sandbox, run_dir=tmp_path / "run", startup_seconds=startup)
    return host(str(manifest), settings)


def play(
    broken: HostedBot, seat: int, config: MatchConfig, replay: Path | None = None
) -> MatchResult:
    """Play ``broken`` in ``seat`` against an in-process ``random``; close both."""
    opponent = host("random", LaunchSettings(in_process=True))
    bots = [broken, opponent] if seat == 0 else [opponent, broken]
    try:
        return play_match(config, seats_of(bots), [ReplayWriter(replay)] if replay else [])
    finally:
        for bot in bots:
            bot.close()


@pytest.mark.slow
@pytest.mark.parametrize("kind", FAULTY)
def test_fault_becomes_a_seat_status(kind: str, tmp_path: Path, marker: str) -> None:
    seat = FAULTY.index(kind) % 2  # both seats get a turn at misbehaving
    other = 1 - seat
    broken = broken_bot(tmp_path, kind, marker, startup=STARTUP.get(kind, 10.0))
    config = MatchConfig(STANDARD, games=GAMES, seed=7, time_control=TIME)
    replay = tmp_path / "match.jsonl"

    result = play(broken, seat, config, replay)  # returns: a bot's fault is data

    assert_nothing_left(marker)
    expected = EXPECTED_STATUS[kind]
    record = result.seats[seat]
    assert record.status is expected, record.faults
    assert record.faults, "a fault must be recorded"
    assert all(fault.status is expected and fault.seat == seat for fault in record.faults)
    assert all(fault.consequence == "forfeit" for fault in record.faults)
    reason = record.faults[0].reason
    assert re.search(REASONS[kind], reason, re.DOTALL), reason
    # A fatal fault is recorded once; any other fault once per game.
    assert len(record.faults) == (1 if expected in FATAL else GAMES)
    # The other seat wins every game, by forfeit, and did nothing wrong.
    assert len(result.games) == GAMES
    assert [game.winner for game in result.games] == [other] * GAMES
    assert all(game.reason.startswith(f"forfeit: seat {seat} ") for game in result.games)
    assert result.wins(other) == GAMES and result.losses(seat) == GAMES
    assert result.seats[other].status is SeatStatus.OK and not result.seats[other].faults
    # The replay records the fault and still agrees with the engine.
    faults = [r for r in read_replay(replay).lines if r["type"] == "fault"]
    assert [f["status"] for f in faults] == [expected.value] * len(record.faults)
    assert verify_replay(replay) == []


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["limits", "auto"])
@pytest.mark.parametrize("kind", STUBBORN)
def test_hard_to_stop_bots_are_stopped(
    kind: str, sandbox: str, tmp_path: Path, marker: str
) -> None:
    broken = broken_bot(tmp_path, kind, marker, sandbox=sandbox)
    assert broken.start_fault is None, broken.start_fault
    # fork: its three children ignore SIGTERM; ignore-sigterm: the bot blocks it.
    mask, needed = ("SigIgn", 3) if kind == "fork" else ("SigBlk", 1)
    sigterm = 1 << 14  # bit (signal number - 1) of the /proc masks
    deadline = time.monotonic() + 5
    while True:
        stubborn = [pid for pid, _ in processes_with(marker) if signal_mask(pid, mask) & sigterm]
        if len(stubborn) >= needed or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert len(stubborn) >= needed
    config = MatchConfig(STANDARD, games=GAMES, seed=3, hands_only=True, time_control=TIME)

    result = play(broken, 0, config)

    assert_nothing_left(marker)
    assert [record.status for record in result.seats] == [SeatStatus.OK, SeatStatus.OK]
    assert len(result.games) == GAMES
    assert not any(game.reason.startswith("forfeit") for game in result.games)


@pytest.mark.slow
def test_two_broken_bots_still_give_a_result(tmp_path: Path, marker: str) -> None:
    settings = LaunchSettings(sandbox="auto", run_dir=tmp_path / "run")
    bots = [
        host(str(write_manifest(tmp_path, kind, "--marker", marker)), settings)
        for kind in ("refuse-handshake", "wrong-version")
    ]
    config = MatchConfig(STANDARD, games=GAMES, seed=1, time_control=TIME)
    try:
        result = play_match(config, seats_of(bots))
    finally:
        for bot in bots:
            bot.close()
    assert_nothing_left(marker)
    assert [record.status for record in result.seats] == [SeatStatus.PROTOCOL_ERROR] * 2
    assert len(result.games) == GAMES
    assert all(game.reason.startswith("forfeit") for game in result.games)


@pytest.mark.slow
def test_cli_reports_a_hung_bot_and_leaves_nothing(tmp_path: Path, marker: str) -> None:
    kind = "hang"
    manifest = write_manifest(tmp_path, kind, *ARGS.get(kind, ()), "--marker", marker)
    run = arena(
        "match", str(manifest), "random", "--games", "2", "--seed", "4", "--json",
        "--decision-ms", "100", "--bank-ms", "100", "--sandbox", "limits", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert_nothing_left(marker)
    assert processes_with(BROKEN_MODULE, str(manifest)) == []
    result = json.loads(run.stdout)
    broken, other = result["bots"]
    assert broken["name"] == f"broken-{kind}"
    assert broken["status"] == EXPECTED_STATUS[kind].value
    assert broken["faults"] >= 1 and broken["losses"] == 2
    assert other["wins"] == 2 and other["faults"] == 0


@pytest.mark.slow
def test_random_fault_policy_replaces_then_forfeits(tmp_path: Path, marker: str) -> None:
    """``random:3`` with a bot that always answers too late: three replacements, then
    forfeit; the next game forfeits at once (the three are per match)."""
    manifest = write_manifest(tmp_path, "slow", "--delay-ms", "100", "--marker", marker)
    replays = tmp_path / "replays"
    run = arena(
        "match", str(manifest), "random", "--games", "2", "--seed", "2", "--json",
        "--decision-ms", "50", "--bank-ms", "0", "--faults", "random:3",
        "--replays", str(replays), cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert_nothing_left(marker)
    result = json.loads(run.stdout)
    assert result["fault_policy"] == "random:3"
    faults = result["faults"]
    assert [f["status"] for f in faults] == ["timeout"] * 5
    assert all(f["seat"] == 0 and "within 50 ms" in f["reason"] for f in faults)
    assert [f["game"] for f in faults] == [0, 0, 0, 0, 1]
    consequences = [f["consequence"] for f in faults]
    assert all(c.startswith("random: ") for c in consequences[:3])
    assert consequences[3:] == ["forfeit", "forfeit"]
    assert [game["winner"] for game in result["results"]] == [1, 1]
    assert result["bots"][0]["status"] == "timeout"
    # The replay records the policy and the three replaced actions, which the engine accepts.
    replay = Path(result["replay"])
    records = list(read_replay(replay).lines)
    assert records[0]["fault_policy"] == "random:3"
    replaced = [r for r in records if r["type"] == "action" and r.get("replaced")]
    assert [(r["seat"], r["action"]) for r in replaced] == [
        (0, c.removeprefix("random: ")) for c in consequences[:3]
    ]
    assert verify_replay(replay) == []


@pytest.mark.slow
def test_random_fault_policy_in_the_result(tmp_path: Path, marker: str) -> None:
    """The same through ``play_match``: the result records the policy and the faults."""
    broken = broken_bot(tmp_path, "garbage-index", marker)
    policy = FaultPolicy(FaultMode.RANDOM, 2)
    config = MatchConfig(STANDARD, games=1, seed=5, time_control=TIME, fault_policy=policy)
    result = play(broken, 1, config)
    assert_nothing_left(marker)
    assert result.fault_policy == "random:2" == result.to_json()["fault_policy"]
    faults = result.seats[1].faults
    assert [f.status for f in faults] == [SeatStatus.MALFORMED_REPLY] * 3
    assert [f.consequence.split(":")[0] for f in faults] == ["random", "random", "forfeit"]
    assert result.games[0].winner == 0
