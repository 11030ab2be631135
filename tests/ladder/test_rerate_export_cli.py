"""``arena ladder rerate`` and the analysis tables of ``arena ladder export`` (CSV with a
header always, JSON Lines one object a line: each read by pandas in one call)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from arena.cli.ladder_ops import FINALS_COLUMNS, MATCH_COLUMNS, SEAT_COLUMNS
from arena.cli.main import main
from arena.storage import LadderStore
from tests.ladder.test_ratings import match_ids, open_store, result
from tests.ratings.test_rerate import play


@pytest.fixture
def db(tmp_path: Path) -> Path:
    store = open_store(tmp_path / "ladder.sqlite", ["a", "b", "c", "d"])
    play(store)
    store.close()
    return tmp_path / "ladder.sqlite"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_rerate_switches_systems_and_says_so(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "ladder", "rerate", str(db), "--system", "openskill")
    assert "computed 6 rating updates with openskill; switching" in out
    assert "ratings by openskill (was trueskill): 6 rating updates replayed in order" in out
    board = json.loads(run(capsys, "ladder", "leaderboard", str(db), "--json"))
    assert board["ratings"] == "openskill"
    scores = [row["score"] for row in board["leaderboard"]]
    assert scores == sorted(scores, reverse=True)  # mu - 3 sigma, whichever system
    assert "the cautious rating (openskill)" in run(capsys, "ladder", "leaderboard", str(db))
    out = run(capsys, "ladder", "rerate", str(db))  # the ladder's own system by default
    assert "ratings by openskill: 6 rating updates" in out and "(was" not in out


def test_rerate_with_an_unknown_system_is_refused(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = db.read_bytes()
    assert main(["ladder", "rerate", str(db), "--system", "elo"]) == 2
    err = capsys.readouterr().err
    assert err == "arena: error: unknown rating system 'elo' (known: trueskill, openskill)\n"
    assert db.read_bytes() == before


@pytest.mark.parametrize("what", ["matches", "seats", "ratings", "history"])
def test_each_table_reads_back_as_csv_and_as_json_lines(
    db: Path, what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    as_csv = list(csv.DictReader(io.StringIO(run(capsys, "ladder", "export", str(db), "--format", "csv", "--what", what))))  # fmt: skip
    lines = run(capsys, "ladder", "export", str(db), "--format", "jsonl", "--what", what)
    as_json = [json.loads(line) for line in lines.splitlines()]
    expected = {"matches": 12, "seats": 24, "ratings": 4, "history": 12}[what]
    assert len(as_csv) == len(as_json) == expected
    assert list(as_csv[0]) == list(as_json[0])  # the same columns in both
    if what == "seats":
        assert tuple(as_json[0]) == SEAT_COLUMNS
        for row in as_json:
            assert row["rank"] in (0, 1) and row["game_wins"] <= row["games"]
        by_match: dict[int, list[int]] = {}
        for row in as_json:
            by_match.setdefault(row["match"], []).append(row["seat"])
        assert all(seats == [0, 1] for seats in by_match.values())
    if what == "matches":
        assert tuple(as_json[0]) == MATCH_COLUMNS
        assert isinstance(as_json[0]["seats"], list) and "|" in as_csv[0]["seats"]


def test_an_empty_table_still_has_its_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = open_store(tmp_path / "empty.sqlite", ["a", "b"])
    store.close()
    out = tmp_path / "seats.csv"
    db = str(tmp_path / "empty.sqlite")
    run(capsys, "ladder", "export", db, "--format", "csv", "--what", "seats", "--out", str(out))
    assert out.read_text().splitlines() == [",".join(SEAT_COLUMNS)]
    assert run(capsys, "ladder", "export", db, "--format", "jsonl", "--what", "seats") == ""
    finals = run(capsys, "ladder", "export", db, "--format", "csv", "--what", "finals")
    assert finals.splitlines() == [",".join(FINALS_COLUMNS)]  # no finals held yet


def test_a_drawn_match_shares_its_rank(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = open_store(tmp_path / "draw.sqlite", ["a", "b"])
    unit = store.add_unit("u", 1, [("a", "b")])
    (match,) = match_ids(store, unit)
    store.record(match, result((1, 10, 0), (1, 10, 0)), None, 3)
    store.close()
    lines = run(capsys, "ladder", "export", str(tmp_path / "draw.sqlite"), "--format", "jsonl", "--what", "seats")  # fmt: skip
    assert [json.loads(line)["rank"] for line in lines.splitlines()] == [0, 0]


def test_the_store_reads_the_system_from_its_config(db: Path) -> None:
    store = LadderStore.open(db)
    try:
        assert store.rating_system().name == "trueskill"
    finally:
        store.close()


def test_an_openskill_ladder_rates_with_openskill(tmp_path: Path) -> None:
    from arena.ladder.config import BotEntry, LadderConfig
    from arena.ladder.deals import new_deal_secret
    from arena.ratings import RatingSystemName
    from arena.ratings.openskill_ratings import OpenSkill

    config = LadderConfig(
        "o", "rummy/standard", tuple(BotEntry(n, "greedy") for n in "abc"), seats=3,
        rating_system=RatingSystemName.OPENSKILL,
    )  # fmt: skip
    store = LadderStore.create(
        tmp_path / "o.sqlite", "o", config.to_json(), None, new_deal_secret(config)
    )
    try:
        for name in "abc":
            store.add_bot(name, "greedy", OpenSkill().initial())
        unit = store.add_unit("u", 1, [("a", "b", "c")])
        (match,) = match_ids(store, unit)
        assert store.record(match, result((2, 9, 0), (0, 1, 0), (1, 5, 0), games=3), None, 3).rated
        expected = OpenSkill().rate([OpenSkill().initial()] * 3, [0, 2, 1])
        assert [bot.rating for bot in store.bots()] == expected
    finally:
        store.close()
