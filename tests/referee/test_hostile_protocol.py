"""Nothing a bot sends, and no bot that cannot start, stops the referee.

The bots that misbehave on the wire (garbage bytes, another message type, oversized,
truncated, early close, duplicate, future and flooding replies, a hung handshake) are
kinds of ``arena.testing.broken_bots`` and get their verdicts in ``test_faults.py``.
Here: programs that cannot start at all (in the referee, ``arena match``, ``arena
check`` and a ladder), the temporary run folders, the Python SDK's ``decide``
mistakes, and exceptions raised while serving one seat.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from arena.cards import Card
from arena.games.base import HandsGame
from arena.games.registry import find_game
from arena.hosting.connection import InProcessConnection
from arena.hosting.faults import SeatStatus
from arena.hosting.launcher import HostedBot, LaunchSettings, SandboxUnavailableError
from arena.proto import bot_pb2 as pb
from arena.referee import match as referee_match
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.settings import FaultMode, FaultPolicy, TimeControl
from arena.sdk import Bot, Decision
from arena.testing.broken_bots import UNSTARTABLE, write_manifest, write_unstartable_manifest
from arena.testing.processes import processes_with

from .conftest import ARENA, assert_nothing_left, host, seats_of

STANDARD = find_game("gin-rummy/standard")
TIME = TimeControl(startup_ms=10_000, decision_ms=2_000, bank_ms=0)


def run_arena(*args: str, tmp: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed ``arena`` with its temporary files in ``tmp`` (TMPDIR)."""
    tmp.mkdir(exist_ok=True)
    return subprocess.run(
        [str(ARENA), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "TMPDIR": str(tmp)},
    )


def run_folders(tmp: Path) -> list[str]:
    return sorted(path.name for path in tmp.glob("arena-run-*"))


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This process's temporary folders go here, where a leftover can be seen."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


# -- programs that cannot start ------------------------------------------------------


@pytest.mark.parametrize("how", list(UNSTARTABLE))
def test_an_unstartable_bot_is_start_failed_in_one_line(
    how: str, tmp_path: Path, private_tmp: Path, marker: str
) -> None:
    manifest = write_unstartable_manifest(tmp_path, how, marker=marker)
    bot = host(str(manifest), LaunchSettings(sandbox="auto"))  # no folder: a temporary one
    try:
        fault = bot.start_fault
        assert fault is not None and fault.status is SeatStatus.START_FAILED
        assert bot.unstartable and bot.connection is None
        assert UNSTARTABLE[how] in fault.reason and "\n" not in fault.reason
        assert str(manifest) in fault.reason  # which manifest
        opponent = host("random", LaunchSettings(in_process=True))
        config = MatchConfig(STANDARD, games=2, seed=1, time_control=TIME)
        result = play_match(config, seats_of([bot, opponent]))
    finally:
        bot.close()
    assert result.seats[0].status is SeatStatus.START_FAILED
    assert [game.winner for game in result.games] == [1, 1]
    assert processes_with(marker) == []
    assert run_folders(private_tmp) == []


@pytest.mark.slow
@pytest.mark.parametrize("command", ["match", "check"])
@pytest.mark.parametrize("how", ["missing-program", "not-executable", "bad-interpreter"])
def test_the_cli_refuses_an_unstartable_bot_in_one_line(
    command: str, how: str, tmp_path: Path, marker: str
) -> None:
    manifest = write_unstartable_manifest(tmp_path, how, marker=marker)
    tmp = tmp_path / "tmp"
    args = [str(manifest), "random"] if command == "match" else [str(manifest)]
    run = run_arena(command, *args, tmp=tmp, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"arena: error: cannot start {manifest}: ")
    assert UNSTARTABLE[how] in lines[0]
    assert processes_with(marker) == []
    assert run_folders(tmp) == []


@pytest.mark.slow
def test_a_bot_that_exits_at_once_is_a_forfeit_in_one_line_and_leaves_no_folder(
    tmp_path: Path, marker: str
) -> None:
    """Not the user's mistake but the bot's: the match is played (forfeited) and
    reported; both bots' temporary folders (random runs as a process too) are gone."""
    manifest = write_manifest(tmp_path, "crash-start", "--marker", marker)
    tmp = tmp_path / "tmp"
    run = run_arena(
        "match", str(manifest), "random", "--games", "2", "--json", tmp=tmp, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    broken = result["bots"][0]
    assert broken["status"] == "start_failed" and result["bots"][1]["wins"] == 2
    (fault,) = result["faults"]
    assert "exited with status 3 before it was ready" in fault["reason"]
    assert "giving up before serving" in fault["reason"] and "\n" not in fault["reason"]
    assert_nothing_left(marker)
    assert run_folders(tmp) == []


@pytest.mark.slow
def test_logs_are_kept_only_in_the_folder_asked_for(tmp_path: Path, marker: str) -> None:
    manifest = write_manifest(tmp_path, "crash-start", "--marker", marker)
    tmp, replays = tmp_path / "tmp", tmp_path / "replays"
    run = run_arena(
        "match", str(manifest), "random", "--games", "1", "--json", "--replays", str(replays),
        tmp=tmp, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    match_id = json.loads(run.stdout)["match_id"]
    logs = sorted(path.name for path in (replays / match_id).glob("*.stderr.log"))
    assert logs == ["broken-crash-start.stderr.log", "random.stderr.log"]
    assert "giving up before serving" in (replays / match_id / logs[0]).read_text()
    assert run_folders(tmp) == []


# -- the Python SDK: decide's mistakes are malformed replies ------------------------------


class Mistaken(Bot):
    """Returns one wrong answer after another, then plays legally."""

    name = "mistaken"
    answers: Sequence[Any] = (None, "draw stock", Card.parse("7H"), -1, True)

    def __init__(self) -> None:
        self.asked = 0

    def decide(self, decision: Decision) -> Any:
        self.asked += 1
        if self.asked <= len(self.answers):
            return self.answers[self.asked - 1]
        return 0


def test_sdk_decide_mistakes_are_malformed_replies_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bots = [
        HostedBot("mistaken", InProcessConnection(Mistaken()), "in-process"),
        host("random", LaunchSettings(in_process=True)),
    ]
    policy = FaultPolicy(FaultMode.RANDOM, 10)
    config = MatchConfig(
        STANDARD, games=1, seed=3, hands_only=True, time_control=TIME, fault_policy=policy
    )
    result = play_match(config, seats_of(bots))
    faults = result.seats[0].faults
    assert [fault.status for fault in faults] == [SeatStatus.MALFORMED_REPLY] * 5
    assert all(fault.consequence.startswith("random: ") for fault in faults)
    reasons = [fault.reason for fault in faults]
    assert "decide returned None" in reasons[0]
    assert "returned 'draw stock' (a str), not an action of gin-rummy/standard" in reasons[1]
    assert "returned Card.parse('7H') (a Card)" in reasons[2]
    assert "returned index -1, which no reply can carry" in reasons[3]
    assert "(a bool)" in reasons[4]
    assert all("neither legal_index nor action" in reason for reason in reasons)
    assert len(result.games) == 1 and not result.games[0].reason.startswith("forfeit")
    # The bot's author reads the same on the bot's stderr.
    assert "mistaken: decide returned None" in capsys.readouterr().err


# -- exceptions while serving one seat ------------------------------------------------------


class Exploding:
    """A connection that plays legally but raises ``RuntimeError`` in ``where``."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.info = pb.HandshakeReply(name=f"explodes-in-{where}", games=["gin-rummy/*"])

    def _maybe(self, where: str) -> None:
        if where == self.where:
            raise RuntimeError(f"boom in {where}")

    async def start_match(self) -> None:
        self._maybe("start_match")

    async def send(self, message: bytes) -> None:
        if pb.RefereeMessage.FromString(message).WhichOneof("body") == "hand_start":
            self._maybe("send")

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        self._maybe("decide")
        return pb.DecisionReply(request_id=request_id, legal_index=0)

    async def end_match(self) -> None:
        self._maybe("end_match")

    def close(self) -> None:
        pass


def play_against_random(connection: Any, **config: Any) -> Any:
    seats = [
        Seat(connection, connection.info.name or "bot"),
        *seats_of([host("random", LaunchSettings(in_process=True))]),
    ]
    return play_match(MatchConfig(STANDARD, seed=5, time_control=TIME, **config), seats)


@pytest.mark.parametrize("where", ["start_match", "send", "decide"])
def test_an_exception_serving_a_seat_is_that_seats_fault(where: str) -> None:
    result = play_against_random(Exploding(where), games=2)
    record = result.seats[0]
    assert record.status is SeatStatus.CRASHED
    (fault,) = record.faults
    assert fault.reason == f"serving this seat failed: RuntimeError: boom in {where}"
    assert [game.winner for game in result.games] == [1, 1]
    assert result.seats[1].status is SeatStatus.OK


def test_an_exception_ending_one_seats_stream_spares_the_match() -> None:
    result = play_against_random(Exploding("end_match"), games=1, hands_only=True)
    assert [record.status for record in result.seats] == [SeatStatus.OK, SeatStatus.OK]
    assert len(result.games) == 1


class Answering:
    """A connection answering every request with one full action."""

    info = pb.HandshakeReply(name="answering", games=["gin-rummy/*"])

    def __init__(self, action: pb.Action) -> None:
        self.action = action

    async def start_match(self) -> None:
        pass

    async def send(self, message: bytes) -> None:
        pass

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        return pb.DecisionReply(request_id=request_id, action=self.action)

    async def end_match(self) -> None:
        pass

    def close(self) -> None:
        pass


class ChokingTable:
    """A game's table whose reading of a bot's action raises (the compiled copy's
    tables are native classes: they are wrapped, not patched)."""

    def __init__(self, table: Any) -> None:
        self._table = table

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    def action_from_proto(self, message: pb.Action) -> Any:
        raise IndexError("list index out of range")


class ChokingCodec:
    def __init__(self, codec: Any) -> None:
        self._codec = codec

    def __getattr__(self, name: str) -> Any:
        return getattr(self._codec, name)

    def new_table(self, *args: Any) -> ChokingTable:
        return ChokingTable(self._codec.new_table(*args))


def test_a_reply_the_codec_chokes_on_is_malformed(monkeypatch: pytest.MonkeyPatch) -> None:
    real = referee_match.codec_for
    monkeypatch.setattr(referee_match, "codec_for", lambda game_id: ChokingCodec(real(game_id)))
    pass_action = pb.Action(**{"pass": pb.Pass()})
    policy = FaultPolicy(FaultMode.RANDOM, 2)
    result = play_against_random(Answering(pass_action), games=1, fault_policy=policy)
    faults = result.seats[0].faults
    assert [fault.status for fault in faults] == [SeatStatus.MALFORMED_REPLY] * 3
    assert faults[0].reason == "action could not be read: IndexError: list index out of range"
    assert [fault.consequence.split(":")[0] for fault in faults] == ["random", "random", "forfeit"]


def test_an_action_the_engine_chokes_on_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    original = HandsGame.apply

    def choke(self: Any, action: Any, seat: int | None = None) -> None:
        if seat == 0:
            raise KeyError("no such meld")
        original(self, action, seat)

    monkeypatch.setattr(HandsGame, "apply", choke)
    pass_action = pb.Action(**{"pass": pb.Pass()})
    result = play_against_random(Answering(pass_action), games=1)
    (fault,) = result.seats[0].faults
    assert fault.status is SeatStatus.ILLEGAL_ACTION
    assert (
        fault.reason.startswith("the engine refused ")
        and "KeyError: 'no such meld'" in fault.reason
    )
    assert result.games[0].winner == 1


# -- ladders: one bot that cannot start does not stop them -----------------------------------

LADDER = """\
name = "hostile"
game = "gin-rummy/standard"
[schedule]
duplicate = false
[match]
games = 1
hands_only = true
[run]
concurrency = 1
sandbox = "auto"
suspend_after = {suspend_after}
{replays}
[[bots]]
name = "random"
[[bots]]
name = "greedy"
[[bots]]
name = "ghost"
manifest = "missing-program.toml"
"""


def ladder(tmp_path: Path, marker: str, *, suspend_after: int = 1, replays: str = "") -> Path:
    write_unstartable_manifest(tmp_path, "missing-program", marker=marker)
    config = tmp_path / "ladder.toml"
    config.write_text(LADDER.format(suspend_after=suspend_after, replays=replays), encoding="utf-8")
    db = tmp_path / "hostile.sqlite"
    created = run_arena(
        "ladder", "create", str(config), "--db", str(db), tmp=tmp_path / "tmp", cwd=tmp_path
    )
    assert created.returncode == 0, created.stderr
    return db


def query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection:
        return connection.execute(sql).fetchall()


@pytest.mark.slow
def test_a_ladder_records_a_bot_that_cannot_start_suspends_it_and_goes_on(
    tmp_path: Path, marker: str
) -> None:
    db = ladder(tmp_path, marker)
    tmp = tmp_path / "tmp"
    run = run_arena("ladder", "run", str(db), "--quiet", tmp=tmp, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    status = dict(query(db, "SELECT name, status FROM bots"))
    assert status == {"random": "active", "greedy": "active", "ghost": "suspended"}
    # ghost's first match is recorded with its start_failed fault; after that it was suspended.
    (seats,) = query(
        db, "SELECT s.status, s.faults FROM match_seats s JOIN bots b ON b.id = s.bot_id "
        "WHERE b.name = 'ghost'",
    )  # fmt: skip
    assert seats == ("start_failed", 1)
    counts = dict(query(db, "SELECT status, COUNT(*) FROM matches GROUP BY status"))
    assert counts == {"finished": 2, "cancelled": 1}
    again = run_arena("ladder", "run", str(db), "--quiet", tmp=tmp, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert processes_with(marker) == []
    assert run_folders(tmp) == []


@pytest.mark.slow
def test_a_match_the_arena_cannot_play_is_given_up_after_bounded_attempts(
    tmp_path: Path, marker: str
) -> None:
    """Each attempt's run folder is taken by a file, so no match can be played (the
    arena's own problem, not a bot's): each is tried three times, given up, and the run
    ends."""
    db = ladder(tmp_path, marker, suspend_after=5, replays='replays = "replays"')
    replays = tmp_path / "replays" / "hostile"  # the ladder's own, made by `ladder create`
    for match in range(1, 4):
        for attempt in range(1, 4):
            (replays / f"m{match}-a{attempt}").write_text("a file, not a folder")
    run = run_arena("ladder", "run", str(db), "--quiet", tmp=tmp_path / "tmp", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = query(db, "SELECT status, attempts, result FROM matches ORDER BY id")
    assert len(rows) == 3
    for status, attempts, result in rows:
        assert (status, attempts) == ("cancelled", 3)
        assert json.loads(result)["error"].startswith("given up after 3 attempts: ")
    given_up = [line for line in run.stderr.splitlines() if "given up after 3 attempts" in line]
    assert len(given_up) == 3
    assert query(db, "SELECT COUNT(*) FROM match_seats") == [(0,)]


@pytest.mark.slow
def test_a_match_earlier_runs_never_finished_is_given_up(tmp_path: Path, marker: str) -> None:
    """As if three runs had died (``kill -9``) while playing match 2."""
    db = ladder(tmp_path, marker, suspend_after=5)
    tmp = tmp_path / "tmp"
    first = run_arena("ladder", "run", str(db), "--matches", "1", "--quiet", tmp=tmp, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("UPDATE matches SET status = 'running', attempts = 3 WHERE id = 2")
    run = run_arena("ladder", "run", str(db), "--quiet", tmp=tmp, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    (second,) = query(db, "SELECT status, attempts, result FROM matches WHERE id = 2")
    assert second[:2] == ("cancelled", 4)
    assert "3 attempts never finished" in json.loads(second[2])["error"]
    assert "match 2: given up after 3 attempts" in run.stderr
    assert query(db, "SELECT id FROM matches WHERE status = 'finished' ORDER BY id")[0] == (1,)


def test_a_sandbox_that_cannot_be_had_is_a_usage_error(tmp_path: Path, marker: str) -> None:
    manifest = write_manifest(tmp_path, "hang", "--marker", marker)
    with pytest.raises(SandboxUnavailableError, match="unknown sandbox level 'cardboard'"):
        host(str(manifest), LaunchSettings(sandbox="cardboard"))
    assert issubclass(SandboxUnavailableError, ValueError)  # the CLI's exit status 2
    assert processes_with(marker) == []


@pytest.mark.slow
def test_a_replay_folder_that_cannot_be_made_is_a_one_line_error(
    tmp_path: Path, marker: str
) -> None:
    (tmp_path / "blocked").write_text("a file, not a folder")
    with pytest.raises(AssertionError, match="cannot make its replay folder"):  # at create
        ladder(tmp_path, marker, suspend_after=5, replays='replays = "blocked/replays"')
    # A ladder whose folder is blocked after it was made: at run.
    db = ladder(tmp_path, marker, suspend_after=5, replays='replays = "later/replays"')
    shutil.rmtree(tmp_path / "later")
    (tmp_path / "later").write_text("a file, not a folder")
    run = run_arena("ladder", "run", str(db), "--quiet", tmp=tmp_path / "tmp", cwd=tmp_path)
    assert run.returncode == 2
    assert (
        run.stderr.startswith("arena: error: ladder ")
        and "cannot make its replay folder" in run.stderr
    )
    assert len(run.stderr.splitlines()) == 1
