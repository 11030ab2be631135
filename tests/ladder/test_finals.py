"""The finals without playing a match: its refusals (one line each, nothing changed), and
its store's records and standings on results made up here.

The finals played by real bots, killed and resumed, are in ``test_finals_run.py``."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.ladder.finals import (
    FinalsRequest,
    commitment_of,
    finals_lock,
    run_finals,
    unit_label,
)
from arena.referee.results import GameRecord, MatchResult, SeatRecord
from arena.referee.seeds import derived_seed, new_secret
from arena.storage import LadderStore
from arena.storage.finals_store import (
    FinalsMatchStatus,
    FinalsStatus,
    FinalsStore,
    NewFinalist,
    RoundUnit,
    round_games,
)

CONFIG = """\
name = "season"
game = "{game}"
seats = {seats}
[match]
games = 1
hands_only = true
[run]
concurrency = 1
sandbox = "none"
replays = "replays"
{bots}
"""


def _ladder(
    tmp_path: Path, bots: list[str], game: str = "gin-rummy/standard", seats: int = 2
) -> Path:
    entries = "\n".join(f'[[bots]]\nname = "{name}"\nplugin = "random"' for name in bots)
    config = tmp_path / "season.toml"
    config.write_text(CONFIG.format(game=game, seats=seats, bots=entries), encoding="utf-8")
    db = tmp_path / "season.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    return db


def _snapshot(db: Path) -> list[tuple[object, ...]]:
    """Everything a refusal must leave as it was: the finals' rows, the bots, the matches."""
    with closing(sqlite3.connect(db)) as connection:
        rows: list[tuple[object, ...]] = []
        for table in ("finals", "finals_bots", "finals_units", "finals_matches", "bots", "matches"):
            rows += [(table, *row) for row in connection.execute(f"SELECT * FROM {table}")]
        return rows


def _refused(db: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    before = _snapshot(db)
    capsys.readouterr()
    assert main(["ladder", "finals", str(db), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert _snapshot(db) == before
    assert not (db.parent / "replays" / "season" / "finals-1").exists()
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--top", "1"], "--top must be 2 or more"),
        (["--top", "0"], "--top must be 2 or more"),
        (["--top", "3", "--games", "0"], "--games must be 1 or more"),
        # One round: each pair plays two matches (seats swapped) of 2 games: 4 games.
        (["--top", "3", "--games", "2", "--max-games", "3"], "--max-games 3 is fewer than one round's head-to-head games a pair (4"),
        (["--top", "3", "--max-games", "0"], "--max-games must be 1 or more"),
    ],
)  # fmt: skip
def test_bad_numbers_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], problem: str
) -> None:
    db = _ladder(tmp_path, ["a", "b", "c"])
    assert problem in _refused(db, argv, capsys)


def test_fewer_than_two_active_bots_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _ladder(tmp_path, ["a", "b", "c"])
    assert main(["ladder", "disable", str(db), "b"]) == 0
    assert main(["ladder", "remove", str(db), "c"]) == 0
    line = _refused(db, ["--top", "4"], capsys)
    assert "has 1 active bot: a finals needs 2 or more" in line


def test_no_bots_at_all_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _ladder(tmp_path, [])
    assert "has 0 active bots: a finals needs 2 or more" in _refused(db, ["--top", "2"], capsys)


def test_a_finals_while_one_runs_is_refused_naming_its_pid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _ladder(tmp_path, ["a", "b", "c"])
    with finals_lock(db):  # as a running finals holds it (a real one: test_finals_run.py)
        line = _refused(db, ["--top", "3"], capsys)
    assert f"a finals of ladder {db} is already running in process {os.getpid()}" in line


def test_multi_seat_finals_need_a_full_line_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _ladder(tmp_path, ["a", "b", "c", "d"], game="rummy/standard", seats=4)
    line = _refused(db, ["--top", "3"], capsys)
    assert "the finals' 3 bots fill no line-up of ladder season's 4 seats" in line
    # 5 bots, 4 seats: a pair shares C(3, 2) = 3 line-ups, each in 4 rotations.
    assert round_games(5, 4, 1) == 12
    (tmp_path / "five").mkdir()
    db5 = _ladder(tmp_path / "five", ["a", "b", "c", "d", "e"], game="rummy/standard", seats=4)
    assert "fewer than one round's head-to-head games a pair (12" in _refused(
        db5, ["--top", "5", "--max-games", "11"], capsys
    )


# -- the store, on made-up results ---------------------------------------------


def _result(seats: tuple[str, ...], ranks: Sequence[tuple[int, ...]]) -> MatchResult:
    """A match whose games end with these ranks (0 first; the winner scores 10)."""
    games = [
        GameRecord(
            number,
            0,
            tuple(10 if rank == 0 else 0 for rank in game),
            game,
            game.index(0) if game.count(0) == 1 else None,
            "knock",
            1,
        )
        for number, game in enumerate(ranks)
    ]
    return MatchResult("m", "gin-rummy/standard", 0, [SeatRecord(name) for name in seats], games)


def _finals(
    tmp_path: Path, bots: list[str], max_games: int
) -> tuple[LadderStore, FinalsStore, int]:
    db = _ladder(tmp_path, bots)
    store = LadderStore.open(db)
    finals = FinalsStore(store.db)
    secret = new_secret()
    finals_id = finals.create(
        top=len(bots), games=2, max_games=max_games, seats=2, secret=secret,
        commitment=commitment_of(secret), replays=lambda number: f"/r/finals-{number}",
        finalists=[NewFinalist(store.bot(name).id, place, 25.0, 8.3) for place, name in enumerate(bots, 1)],
    )  # fmt: skip
    return store, finals, finals_id


def _play_round(
    finals: FinalsStore,
    finals_id: int,
    number: int,
    games: dict[tuple[str, ...], list[tuple[int, ...]]],
) -> None:
    """Queue round ``number`` of every pair in ``games`` and record each match: the pair's
    first match gets the first half of its game ranks, the swapped one the rest."""
    secret = finals.secret(finals_id)
    units = [
        RoundUnit(unit_label(finals_id, number, pair), derived_seed(secret, unit_label(finals_id, number, pair)), (pair, pair[::-1]))
        for pair in games
    ]  # fmt: skip
    assert finals.queue_round(finals_id, number, units)
    assert not finals.queue_round(finals_id, number, units)  # a round is queued once
    while (match := finals.take_next(finals_id)) is not None:
        ranks = games[match.seats] if match.seats in games else games[match.seats[::-1]]
        half = len(ranks) // 2
        mine = ranks[:half] if match.seats in games else [rank[::-1] for rank in ranks[half:]]
        assert finals.record(
            match.id, _result(match.seats, mine), f"/r/finals-{finals_id}/m{match.id}-a1.jsonl"
        )


def test_standings_order_by_games_won_and_separate_by_the_sign_test(tmp_path: Path) -> None:
    store, finals, finals_id = _finals(tmp_path, ["a", "b", "c"], max_games=8)
    row = finals.get(finals_id)
    assert row is not None and row.secret is None and row.verified is None  # not revealed yet
    win: tuple[int, ...] = (0, 1)
    loss: tuple[int, ...] = (1, 0)
    # b beats c 4-0 a round; a and b split 2-2; a beats c 3-1.
    for number in (1, 2):
        _play_round(
            finals, finals_id, number,
            {("a", "b"): [win, loss, win, loss], ("a", "c"): [win, win, win, loss], ("b", "c"): [win, win, win, win]},
        )  # fmt: skip
        row = finals.get(finals_id)
        assert row is not None
        standings = finals.standings(row)
    # a: 2+3 = 5 a round, b: 2+4 = 6: b first, then a, then c.
    assert [s.name for s in standings.standings] == ["b", "a", "c"]
    assert [s.game_wins for s in standings.standings] == [12, 10, 2]
    upper, lower = standings.gaps
    assert (upper.upper, upper.lower, upper.wins, upper.losses) == ("b", "a", 4, 4)
    assert not upper.separated and upper.p_value == 1.0
    assert (lower.upper, lower.lower, lower.wins, lower.losses, lower.ties) == ("a", "c", 6, 2, 0)
    assert lower.p_value == pytest.approx(0.2890625)  # 2 * 37 / 256: not separated yet
    # 8 head-to-head games a pair played, 4 a round: a third round would pass 8.
    assert standings.round_games == 4 and all(gap.exhausted for gap in standings.gaps)
    assert standings.decided
    assert [s.place for s in standings.standings] == [1, 1, 1]
    finals.finish(finals_id, {s.name: s.place for s in standings.standings})
    ended = finals.get(finals_id)
    assert ended is not None and ended.status is FinalsStatus.FINISHED
    assert ended.secret is not None and ended.verified
    assert hashlib.sha256(bytes.fromhex(ended.secret)).hexdigest() == ended.commitment
    report = finals.report(ended)
    assert all(line.seed is not None for line in report.matches)
    assert report.matches[0].replay == "finals-1/m1-a1.jsonl"
    store.close()


def test_a_head_to_head_that_favours_the_lower_bot_does_not_separate(tmp_path: Path) -> None:
    store, finals, finals_id = _finals(tmp_path, ["a", "b", "c"], max_games=100)
    win: tuple[int, ...] = (0, 1)
    loss: tuple[int, ...] = (1, 0)
    # a wins the most games overall (it crushes c), but b beats a 9-1 head to head.
    pairs: dict[tuple[str, ...], list[tuple[int, ...]]] = {
        ("a", "b"): [win] + [loss] * 9,
        ("a", "c"): [win] * 10,
        ("b", "c"): [win] + [loss] * 9,
    }
    _play_round(finals, finals_id, 1, pairs)
    row = finals.get(finals_id)
    assert row is not None
    standings = finals.standings(row)
    assert [(s.name, s.game_wins) for s in standings.standings] == [("a", 11), ("b", 10), ("c", 9)]
    top = standings.gaps[0]
    assert (top.wins, top.losses) == (1, 9) and top.p_value == pytest.approx(0.021484375)
    assert not top.separated and not standings.decided
    store.close()


def test_a_match_is_recorded_once_and_a_killed_one_plays_again(tmp_path: Path) -> None:
    store, finals, finals_id = _finals(tmp_path, ["a", "b"], max_games=100)
    secret = finals.secret(finals_id)
    label = unit_label(finals_id, 1, ("a", "b"))
    units = [RoundUnit(label, derived_seed(secret, label), (("a", "b"), ("b", "a")))]
    assert finals.queue_round(finals_id, 1, units)
    first = finals.take_next(finals_id)
    second = finals.take_next(finals_id)
    assert first is not None and second is not None
    assert first.seed == second.seed == derived_seed(secret, "finals-1/round-1/a|b")
    assert first.unit_matches == 2
    result = _result(first.seats, [(0, 1), (0, 1)])
    assert finals.record(first.id, result, None)
    assert not finals.record(first.id, result, None)  # never twice
    # The process dies with the second match running: it goes back and plays again.
    assert finals.recover_running(finals_id) == 1
    again = finals.take_next(finals_id)
    assert again is not None and again.id == second.id and again.attempts == 2
    assert finals.record(again.id, _result(again.seats, [(1, 0), (0, 1)]), None)
    assert [m.status for m in finals.matches(finals_id)] == [FinalsMatchStatus.FINISHED] * 2
    with closing(sqlite3.connect(store.path)) as db:
        assert db.execute("SELECT COUNT(*) FROM finals_seats").fetchone()[0] == 4
        assert db.execute("SELECT COUNT(*) FROM finals_games").fetchone()[0] == 8
        # The ladder's own records are untouched.
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 0
        assert db.execute("SELECT SUM(matches) FROM bots").fetchone()[0] == 0
    duel = finals.head_to_head(finals_id)[("a", "b")]
    assert (duel.wins, duel.losses, duel.ties) == (3, 1, 0)
    store.close()


def test_resuming_with_other_numbers_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, _, _ = _finals(tmp_path, ["a", "b"], max_games=100)
    store.close()
    db = Path(store.path)
    line = _refused(db, ["--top", "2", "--games", "3"], capsys)
    assert "finals 1 is unfinished and was started with --games 2, not 3" in line
    line = _refused(db, ["--top", "2", "--new"], capsys)
    assert "finals 1 of ladder season is unfinished: run the command without --new" in line


def test_request_checks_come_before_the_lock(tmp_path: Path) -> None:
    db = _ladder(tmp_path, ["a", "b"])
    store = LadderStore.open(db)
    with pytest.raises(ValueError, match="--top must be 2 or more"):
        run_finals(store, FinalsRequest(top=1))
    store.close()
    assert not Path(f"{db}.finals.lock").exists()
