"""Ladder configs (every mistake named by file, line and field) and the ``arena ladder`` commands."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main
from arena.ladder import LadderConfig, LadderConfigError, ScheduleKind, load_ladder_config

ARENA = Path(sys.executable).parent / "arena"

BASE = """\
name = "t"
game = "gin-rummy/standard"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""


def write(folder: Path, text: str, name: str = "ladder.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def with_top(line: str) -> str:
    """BASE with ``line`` as line 2 (the game moves to line 3, bots start at line 4)."""
    first, rest = BASE.split("\n", 1)
    return f"{first}\n{line}\n{rest}"


# -- configs -------------------------------------------------------------------------


def test_a_full_config_loads(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    manifest = write(tmp_path / "bots", 'name = "m"\ncommand = "true"\n', "m.toml")
    path = write(
        tmp_path,
        BASE
        + """\
[[bots]]
name = "alias"
plugin = "greedy"
[[bots]]
name = "far"
address = "grpc://localhost:50051"
[[bots]]
name = "from-file"
manifest = "bots/m.toml"
[schedule]
kind = "gauntlet"
champion = "greedy"
repeat = 3
duplicate = false
[match]
games = 4
[time_control]
decision_ms = 500
[run]
concurrency = 2
suspend_after = 5
replays = "out"
""",
    )
    config = load_ladder_config(path)
    assert config.schedule is ScheduleKind.GAUNTLET and config.champion == "greedy"
    assert (config.repeat, config.duplicate, config.games) == (3, False, 4)
    assert config.time_control.decision_ms == 500 and config.workers == 2
    assert {bot.name: (bot.kind, bot.reference) for bot in config.bots} == {
        "greedy": ("plugin", "greedy"),
        "random": ("plugin", "random"),
        "alias": ("plugin", "greedy"),
        "far": ("address", "grpc://localhost:50051"),
        "from-file": ("manifest", str(manifest.resolve())),  # relative to the config
    }
    assert config.replays == str((tmp_path / "out").resolve())
    assert LadderConfig.from_json(config.to_json()) == config


def test_defaults(tmp_path: Path) -> None:
    config = load_ladder_config(write(tmp_path, BASE))
    assert config.schedule is ScheduleKind.ROUND_ROBIN
    assert (config.seats, config.repeat, config.duplicate, config.games) == (2, 1, True, 2)
    assert (config.suspend_after, config.faults, config.sandbox) == (3, "forfeit", "auto")


# (config text, field, line or None, words of the problem)
BAD = {
    "missing name": (BASE.split("\n", 1)[1], "name", None, "is required"),
    "missing game": (BASE.replace('game = "gin-rummy/standard"\n', ""), "game", None, "required"),
    "bad name": (BASE.replace('"t"', '"a b"'), "name", 1, "must be 1-64 letters"),
    "unknown key": (with_top('colour = "red"'), "colour", 2, "is not a ladder setting"),
    "unknown table": (BASE + "[matchx]\ngames = 2\n", "matchx", 7, "is not a ladder setting"),
    "unknown key in a table": (
        BASE + "[run]\nconcurency = 2\n",
        "run.concurency",
        8,
        "expected one of concurrency, executor, faults",
    ),
    "unknown bot key": (BASE + 'colour = "red"\n', "bots[1].colour", 7, "not a bot setting"),
    "wrong type": (BASE + '[match]\ngames = "two"\n', "match.games", 8, "must be int, got 'two'"),
    "bool for int": (BASE + "[run]\nconcurrency = true\n", "run.concurrency", 8, "got True"),
    "table expected": (with_top("schedule = 3"), "schedule", 2, "must be a table"),
    "bot name not a string": (BASE + "[[bots]]\nname = 3\n", "bots[2].name", 8, "string, got 3"),
    "too small": (BASE + "[schedule]\nrepeat = 0\n", "schedule.repeat", 8, "at least 1, got 0"),
    "negative seed": (with_top("seed = -1"), "seed", 2, "must be in 0..2**63-1"),
    "unknown schedule kind": (
        BASE + '[schedule]\nkind = "swiss"\n',
        "schedule.kind",
        8,
        "must be one of round-robin, gauntlet, continuous, got 'swiss'",
    ),
    "gauntlet without champion": (
        BASE + '[schedule]\nkind = "gauntlet"\n',
        "schedule.champion",
        7,  # no such line: the table's header
        "is required for a gauntlet",
    ),
    "champion not a bot": (
        BASE + '[schedule]\nkind = "gauntlet"\nchampion = "nobody"\n',
        "schedule.champion",
        9,
        "must name one of the ladder's bots, got 'nobody'",
    ),
    "duplicate bot names": (
        BASE + '[[bots]]\nname = "greedy"\nplugin = "random"\n',
        "bots[2].name",
        8,
        "repeats the bot name 'greedy'",
    ),
    "bot without name": (BASE + '[[bots]]\nplugin = "greedy"\n', "bots[2].name", 7, "required"),
    "two sources": (
        BASE + '[[bots]]\nname = "x"\nplugin = "greedy"\naddress = "grpc://h:1"\n',
        "bots[2].plugin",
        9,
        "conflicts with address",
    ),
    "missing manifest": (
        BASE + '[[bots]]\nname = "x"\nmanifest = "nope.toml"\n',
        "bots[2].manifest",
        9,
        "names no file",
    ),
    "bad address": (
        BASE + '[[bots]]\nname = "x"\naddress = "http://h:1"\n',
        "bots[2].address",
        9,
        "must start with grpc:// or unix:",
    ),
    "bots not tables": (
        'name = "t"\ngame = "gin-rummy/standard"\nbots = 3\n',
        "bots",
        3,
        "must be",
    ),
    "one seat": (with_top("seats = 1"), "seats", 2, "at least 2"),
    "bad time control": (
        BASE + "[time_control]\nstartup_ms = 1000\ndecision_ms = -5\n",
        "time_control.decision_ms",
        9,
        "non-negative",
    ),
    "bad fault policy": (BASE + '[run]\nfaults = "explode"\n', "run.faults", 8, "explode"),
    "bad sandbox": (BASE + '[run]\nsandbox = "docker"\n', "run.sandbox", 8, "docker"),
    "plugins not strings": (with_top("plugins = [1]"), "plugins", 2, "list of module names"),
}


@pytest.mark.parametrize(("text", "name", "line", "problem"), BAD.values(), ids=BAD.keys())
def test_bad_config_names_file_line_and_field(
    tmp_path: Path, text: str, name: str, line: int | None, problem: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(LadderConfigError) as caught:
        load_ladder_config(path)
    message = str(caught.value)
    # A missing field has no line (as in bot manifests): the message names the file alone.
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert message.startswith(where), message
    assert f"field '{name}'" in message, message
    assert problem in message, message
    assert "\n" not in message
    assert isinstance(caught.value, ValueError)


def test_invalid_toml_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + "[match\ngames = 2\n")
    with pytest.raises(LadderConfigError, match=rf"^{path}:7: invalid TOML: "):
        load_ladder_config(path)


def test_unreadable_config(tmp_path: Path) -> None:
    with pytest.raises(LadderConfigError, match="cannot read ladder config"):
        load_ladder_config(tmp_path / "nope.toml")


# -- the command line ------------------------------------------------------------------


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def arena(*args: str) -> Ran:
    """``arena ARGS`` in this process (the process pool of ``ladder run`` still spawns)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exit:  # argparse
            status = exit.code if isinstance(exit.code, int) else 2
    return Ran(status, out.getvalue(), err.getvalue())


def arena_process(*args: str) -> Ran:
    """``arena ARGS`` as a user runs it: the installed script, in a subprocess."""
    run = subprocess.run(
        [str(ARENA), *args], capture_output=True, text=True, encoding="utf-8", timeout=120
    )
    return Ran(run.returncode, run.stdout, run.stderr)


def one_line_error(run: Ran) -> str:
    assert run.returncode == 2, (run.stdout, run.stderr)
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), run.stderr
    return lines[0]


@pytest.mark.slow
def test_create_refuses_an_unregistered_bot(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + '[[bots]]\nname = "ghost"\nplugin = "no-such-bot"\n')
    line = one_line_error(arena_process("ladder", "create", str(path)))
    assert "'ghost'" in line and "no-such-bot" in line and str(path) in line
    assert not (tmp_path / "t.sqlite").exists()


def test_create_reports_a_bad_config(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + '[schedule]\nkind = "swiss"\n')
    line = one_line_error(arena("ladder", "create", str(path)))
    assert f"{path}:8" in line and "schedule.kind" in line


def test_create_does_not_overwrite(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    assert arena("ladder", "create", str(path)).returncode == 0
    assert "already exists" in one_line_error(arena("ladder", "create", str(path)))


@pytest.mark.slow
def test_run_on_a_missing_database(tmp_path: Path) -> None:
    line = one_line_error(arena_process("ladder", "run", str(tmp_path / "nope.sqlite")))
    assert "nope.sqlite" in line and "no such ladder database" in line
    assert not (tmp_path / "nope.sqlite").exists()


def test_commands_name_an_unknown_bot(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    assert arena("ladder", "create", str(path)).returncode == 0
    db = str(tmp_path / "t.sqlite")
    for command in (("disable", db, "nobody"), ("history", db, "nobody")):
        line = one_line_error(arena("ladder", *command))
        assert "'nobody'" in line and "greedy, random" in line
    assert "no-such-bot" in one_line_error(arena("ladder", "add", db, "x", "--bot", "no-such-bot"))
    assert "already has a bot 'greedy'" in one_line_error(arena("ladder", "add", db, "greedy"))


# A ladder played in steps; fast settings: one single-hand game a match, no duplicate.
FLOW = """\
name = "flow"
game = "gin-rummy/standard"
[schedule]
duplicate = false
[match]
games = 1
hands_only = true
[run]
concurrency = 2
sandbox = "none"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
[[bots]]
name = "g2"
plugin = "greedy"
"""


@dataclass
class Snapshot:
    matches: dict[str, int]  # bot -> matches played
    status: dict[str, str]
    finished: list[frozenset[str]]  # the pairs of the finished matches
    counts: dict[str, int]  # match status -> matches
    stderr: str = ""


@dataclass
class Flow:
    db: Path
    steps: dict[str, Snapshot] = field(default_factory=dict)


def snapshot(db: Path, stderr: str = "") -> Snapshot:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection:
        bots = connection.execute("SELECT name, matches, status FROM bots").fetchall()
        seats = connection.execute("SELECT seats FROM matches WHERE status = 'finished'")
        finished = [frozenset(json.loads(row[0])) for row in seats]
        counts = dict(
            connection.execute("SELECT status, COUNT(*) FROM matches GROUP BY status").fetchall()
        )
    return Snapshot(
        {name: n for name, n, _ in bots}, {name: s for name, _, s in bots}, finished, counts, stderr
    )


def step(flow: Flow, name: str, *args: str) -> None:
    run = arena("ladder", *args)
    assert run.returncode == 0, run.stderr
    flow.steps[name] = snapshot(flow.db, run.stderr)


@pytest.fixture(scope="module")
def flow(tmp_path_factory: pytest.TempPathFactory) -> Flow:
    folder = tmp_path_factory.mktemp("flow")
    config = write(folder, FLOW)
    assert arena("ladder", "create", str(config)).returncode == 0
    flow = Flow(folder / "flow.sqlite")
    db = str(flow.db)
    quiet = ("--quiet", "--no-leaderboard")
    step(flow, "first", "run", db, "--matches", "1", *quiet)  # g2 v greedy: the first pair
    step(flow, "disabled", "disable", db, "random")
    step(flow, "after disable", "run", db, *quiet)
    step(flow, "added", "add", db, "r2", "--bot", "random")
    step(flow, "after add", "run", db, *quiet)
    step(flow, "enabled", "enable", db, "random")
    step(flow, "after enable", "run", db, *quiet)
    return flow


@pytest.mark.slow
def test_run_stops_after_matches(flow: Flow) -> None:
    first = flow.steps["first"]
    assert first.finished == [frozenset({"g2", "greedy"})]
    assert first.counts == {"finished": 1, "scheduled": 2}


def test_a_disabled_bot_has_its_matches_cancelled_and_plays_no_more(flow: Flow) -> None:
    assert flow.steps["disabled"].status["random"] == "disabled"
    after = flow.steps["after disable"]
    assert after.counts == {"finished": 1, "cancelled": 2}
    assert after.matches["random"] == 0
    assert flow.steps["after add"].matches["random"] == 0


def test_an_added_bot_gets_its_round_robin_pairings(flow: Flow) -> None:
    after = flow.steps["after add"]
    new = [pair for pair in after.finished if "r2" in pair]
    assert sorted(map(sorted, new)) == [["g2", "r2"], ["greedy", "r2"]]  # once each, no random
    assert after.matches["r2"] == 2
    assert after.counts == {"finished": 3, "cancelled": 2}


def test_an_enabled_bot_plays_its_cancelled_pairings(flow: Flow) -> None:
    after = flow.steps["after enable"]
    assert after.counts == {"finished": 6}
    pairs = [("g2", "greedy"), ("g2", "r2"), ("g2", "random"), ("greedy", "r2")]
    pairs += [("greedy", "random"), ("r2", "random")]
    assert sorted(tuple(sorted(pair)) for pair in after.finished) == pairs
    assert after.matches == {"greedy": 3, "random": 3, "g2": 3, "r2": 3}


def test_leaderboard_json_is_sorted_by_conservative_score(flow: Flow) -> None:
    run = arena("ladder", "leaderboard", str(flow.db), "--json")
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)["leaderboard"]
    assert [row["rank"] for row in rows] == [1, 2, 3, 4]
    assert {row["name"] for row in rows} == {"greedy", "random", "g2", "r2"}
    scores = [row["score"] for row in rows]
    assert scores == sorted(scores, reverse=True)
    for row in rows:
        assert row["score"] == pytest.approx(row["mu"] - 3 * row["sigma"], abs=0.01)
        assert row["matches"] == 3 and row["status"] == "active"
    text = arena("ladder", "leaderboard", str(flow.db)).stdout.splitlines()
    assert text[-1].startswith("mu-3s = mu - 3 sigma: ")  # the legend
    assert [line.split()[:2] for line in text[1:-1]] == [
        [str(place), row["name"]] for place, row in enumerate(rows, start=1)
    ]
    header = text[0].split()
    assert header[5:11] == ["matches", "won", "win", "%", "games", "won"]
    for line, row in zip(text[1:-1], rows, strict=True):  # matches won, then games won
        columns = line.split()
        assert columns[5:7] == [str(row["matches"]), str(row["wins"])]
        assert columns[8:10] == [str(row["games"]), str(row["game_wins"])]


def test_bots_not_playing_are_listed_apart_without_a_place(flow: Flow, tmp_path: Path) -> None:
    db = tmp_path / "copy.sqlite"
    shutil.copy(flow.db, db)
    assert arena("ladder", "disable", str(db), "greedy").returncode == 0
    rows = json.loads(arena("ladder", "leaderboard", str(db), "--json").stdout)["leaderboard"]
    assert [row["rank"] for row in rows] == [1, 2, 3, None]
    assert rows[-1]["name"] == "greedy" and rows[-1]["status"] == "disabled"
    text = arena("ladder", "leaderboard", str(db)).stdout.splitlines()
    apart = text.index("not ranked now (1 bot: suspended, disabled or removed):")
    assert [line.split()[0] for line in text[1:apart]] == ["1", "2", "3"]
    assert text[apart + 1].split()[:2] == ["-", "greedy"]


def test_history(flow: Flow) -> None:
    run = arena("ladder", "history", str(flow.db), "r2", "--json")
    assert run.returncode == 0, run.stderr
    history = json.loads(run.stdout)
    assert history["bot"] == "r2" and history["status"] == "active"
    assert len(history["matches"]) == 3 and all("r2" in m["seats"] for m in history["matches"])
    assert len(history["ratings"]) == 3  # one update a unit (a unit is one match here)
    assert history["ratings"][0]["mu_before"] == 25
    text = arena("ladder", "history", str(flow.db), "r2").stdout
    assert text.startswith("r2 (random): active")
    assert text.count("  match ") == 3 and text.count("  unit ") == 3
    places = [int(place) for place in re.findall(r"place (\d+),", text)]
    assert places and set(places) <= {1, 2}  # places count from 1, as on the leaderboard


def test_export_csv_and_json_parse_back(flow: Flow, tmp_path: Path) -> None:
    db = str(flow.db)
    results = list(
        csv.DictReader(io.StringIO(arena("ladder", "export", db, "--format", "csv").stdout))
    )
    assert len(results) == 6
    for row in results:
        assert len(row["seats"].split("|")) == 2 and row["games"] == "1"
        assert row["schedule"].startswith("rr:")
    ratings = list(
        csv.DictReader(
            io.StringIO(
                arena("ladder", "export", db, "--format", "csv", "--what", "ratings").stdout
            )
        )
    )
    assert [row["name"] for row in ratings] == [
        row["name"]
        for row in json.loads(arena("ladder", "leaderboard", db, "--json").stdout)["leaderboard"]
    ]
    history = list(
        csv.DictReader(
            io.StringIO(
                arena("ladder", "export", db, "--format", "csv", "--what", "history").stdout
            )
        )
    )
    assert len(history) == 12  # 6 units of 2 bots
    out = tmp_path / "ladder.json"
    assert arena("ladder", "export", db, "--format", "json", "--out", str(out)).returncode == 0
    data: dict[str, Any] = json.loads(out.read_text())
    assert set(data) == {"leaderboard", "matches", "unplayed", "ratings", "finals"}
    assert data["finals"] == []  # no finals held
    assert data["unplayed"] == []  # every match was played
    assert len(data["matches"]) == 6 and len(data["ratings"]) == 12
    assert [m["match"] for m in data["matches"]] == [int(row["match"]) for row in results]


def test_a_ladder_may_start_with_fewer_bots_than_seats(tmp_path: Path) -> None:
    """A competition starts empty and waits for submissions."""
    empty = load_ladder_config(write(tmp_path, 'name = "t"\ngame = "rummy/standard"\nseats = 4\n'))
    assert empty.bots == () and empty.seats == 4
    one = load_ladder_config(
        write(tmp_path, 'name = "t"\ngame = "gin-rummy/standard"\n[[bots]]\nname = "greedy"\n')
    )
    assert [bot.name for bot in one.bots] == ["greedy"]
