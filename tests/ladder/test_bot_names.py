"""Ladders and the bots they name: found by name in the ``bots/`` folder beside the
config, refused at ``create``/``add`` when registered for another game, a seat's fault
when a manifest names another bot than its handshake; and the replays of two ladders
made from one config kept apart."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main
from arena.testing.broken_bots import NAME_VARIABLE, write_manifest

CONFIG = """\
name = "names"
game = "gin-rummy/standard"
autoload_plugins = false
[schedule]
duplicate = false
[match]
games = 1
hands_only = true
[run]
concurrency = 1
replays = "replays"
[[bots]]
name = "random"
"""


def arena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def rows(db: Path, query: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection:
        return connection.execute(query).fetchall()


def config(folder: Path, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ladder.toml"
    path.write_text(CONFIG + extra)
    return path


def legal_bot(folder: Path, name: str, handshake_name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = write_manifest(folder, "slow", "--delay-ms", "0", name=name)
    if handshake_name is not None:
        text = manifest.read_text()
        manifest.write_text(
            text.replace(f'{NAME_VARIABLE} = "{name}"', f'{NAME_VARIABLE} = "{handshake_name}"')
        )
    return manifest


def test_a_registered_bot_of_another_game_is_refused_by_create_and_add(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = config(tmp_path, '[[bots]]\nname = "greedy-rummy"\n')
    status, _, err = arena(
        capsys, "ladder", "create", str(path), "--db", str(tmp_path / "a.sqlite")
    )
    assert status == 2 and err.count("\n") == 1
    assert "bot 'greedy-rummy' does not play gin-rummy/standard; it plays rummy/" in err
    assert not (tmp_path / "a.sqlite").exists()
    path = config(tmp_path, '[[bots]]\nname = "greedy"\n')
    db = tmp_path / "b.sqlite"
    assert arena(capsys, "ladder", "create", str(path), "--db", str(db))[0] == 0
    status, _, err = arena(capsys, "ladder", "add", str(db), "rummy-bot", "--bot", "greedy-rummy")
    assert status == 2 and "does not play gin-rummy/standard" in err
    status, _, err = arena(capsys, "ladder", "add", str(db), "gredy")
    assert status == 2 and "(did you mean 'greedy'?)" in err
    status, _, err = arena(capsys, "ladder", "add", str(db), "x", "--manifest", "bots/x.toml")
    assert status == 2 and err == "arena: error: no such file: bots/x.toml\n"


def test_bots_are_found_by_name_beside_the_config(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    manifest = legal_bot(tmp_path / "bots", "sloth")
    legal_bot(tmp_path / "bots" / "kit", "kit-bot").rename(tmp_path / "bots" / "kit" / "bot.toml")
    path = config(tmp_path, '[[bots]]\nname = "sloth"\n')
    db = tmp_path / "t.sqlite"
    assert arena(capsys, "ladder", "create", str(path), "--db", str(db))[0] == 0
    assert arena(capsys, "ladder", "add", str(db), "kit-bot")[0] == 0
    references = dict(rows(db, "SELECT name, reference FROM bots"))
    assert references == {
        "random": "random",
        "sloth": str(manifest),
        "kit-bot": str(tmp_path / "bots" / "kit" / "bot.toml"),
    }


@pytest.mark.slow
def test_a_manifest_naming_another_bot_is_its_seats_fault(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    legal_bot(tmp_path / "bots", "honest", handshake_name="impostor")
    path = config(tmp_path, '[[bots]]\nname = "honest"\n[[bots]]\nname = "greedy"\n')
    db = tmp_path / "t.sqlite"
    assert arena(capsys, "ladder", "create", str(path), "--db", str(db))[0] == 0
    status, _, progress = arena(capsys, "ladder", "run", str(db), "--no-leaderboard")
    assert status == 0
    results = [json.loads(str(text)) for (text,) in rows(db, "SELECT result FROM matches")]
    assert len(results) == 3  # the ladder went on
    faults = [fault for result in results for fault in result["faults"]]
    assert len(faults) == 2  # each of the impostor's matches, nobody else's
    reason = (
        "the manifest's name 'honest' differs from the name the bot gives in its handshake, "
        "'impostor'"
    )
    for fault in faults:
        assert fault["status"] == "protocol_error" and reason in fault["reason"]
    # The progress line of each match: its result, the sandbox level, the faults' reasons.
    level = results[0]["bots"][0]["sandbox"]
    lines = [line for line in progress.splitlines() if line.startswith("[")]
    assert len(lines) == 3 and all(f"[{level}]" in line for line in lines)
    faulty = [line for line in lines if "fault: honest protocol_error (at the start): " in line]
    assert len(faulty) == 2 and all(reason in line for line in faulty)
    # The history: every match in order, with the same.
    status, history, _ = arena(capsys, "ladder", "history", str(db))
    assert status == 0
    played = [line for line in history.splitlines() if line.startswith("match ")]
    assert [int(line.split()[1]) for line in played] == [1, 2, 3]
    assert all(f"sandbox {level}" in line for line in played)
    fault_lines = [line for line in history.splitlines() if line.startswith("  fault: ")]
    assert len(fault_lines) == 2
    assert all(
        line.startswith("  fault: honest protocol_error (at the start): ") and reason in line
        for line in fault_lines
    )
    # The exports: matches with the same, and the standings.
    status, csv_text, _ = arena(capsys, "ladder", "export", str(db), "--format", "csv")
    table = list(csv.DictReader(io.StringIO(csv_text)))
    assert [row["sandbox"] for row in table] == [f"{level}|{level}"] * 3
    assert sum(reason in row["fault_reasons"] for row in table) == 2
    status, standings, _ = arena(
        capsys, "ladder", "export", str(db), "--format", "csv", "--what", "standings"
    )
    assert {row["name"] for row in csv.DictReader(io.StringIO(standings))} == {
        "honest",
        "greedy",
        "random",
    }
    exported = json.loads(arena(capsys, "ladder", "export", str(db))[1])
    assert {"leaderboard", "matches", "unplayed", "ratings"} <= set(exported)
    assert sum(len(match["fault_reasons"]) for match in exported["matches"]) == 2


@pytest.mark.slow
def test_two_ladders_from_one_config_keep_their_replays_apart(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = config(tmp_path, '[[bots]]\nname = "greedy"\n')
    (tmp_path / "other").mkdir()
    databases = [tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "other" / "a.sqlite"]
    written: dict[Path, bytes] = {}
    for db in databases:
        status, out, _ = arena(capsys, "ladder", "create", str(path), "--db", str(db))
        assert status == 0 and "replays and bots' logs: " in out
        assert arena(capsys, "ladder", "run", str(db), "--quiet", "--no-leaderboard")[0] == 0
        ((replay,),) = rows(db, "SELECT replay FROM matches")  # match 1 of each: m1-a1.jsonl
        written[Path(str(replay))] = Path(str(replay)).read_bytes()
    folders = [tmp_path / "replays" / name for name in ("a", "b", "a-2")]
    assert [replay.parent for replay in written] == folders
    for replay, content in written.items():  # none overwrote another's
        assert replay.read_bytes() == content
    # a database made again at the same path takes its own folder back
    databases[0].unlink()
    status, out, _ = arena(capsys, "ladder", "create", str(path), "--db", str(databases[0]))
    assert status == 0 and f"replays and bots' logs: {folders[0]}" in out
