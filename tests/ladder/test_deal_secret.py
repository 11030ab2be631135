"""A ladder's deals come from a secret no bot can reach: not in its config, in an
owner-only database; derived one-way per unit; a config that fixes the seed is said to
be predictable; ladders made before all this keep working.  And the files the referee
writes for a ladder or a match are owner-only, which a process of another user (as
bots run) is shown to find closed."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from arena.ladder import LadderConfig, load_ladder_config
from arena.ladder.deals import unit_seed
from arena.referee.seeds import derived_seed
from arena.storage import LadderStore
from arena.storage.db import MIGRATIONS

from .test_config import arena, arena_process, write

CONFIG = """\
name = "t"
game = "gin-rummy/standard"
{seed}
[schedule]
duplicate = true
[match]
games = 1
hands_only = true
[run]
concurrency = 1
replays = "replays"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""
NOBODY = 65534


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def unit_seeds(db: Path) -> list[int]:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection:
        return [row[0] for row in connection.execute("SELECT seed FROM units ORDER BY key")]


def create_and_run(folder: Path, seed_line: str = "") -> tuple[Path, str]:
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o755)  # open to all: what is closed, the arena closed
    config = write(folder, CONFIG.format(seed=seed_line))
    created = arena("ladder", "create", str(config))
    assert created.returncode == 0, created.stderr
    db = folder / "t.sqlite"
    ran = arena("ladder", "run", str(db), "--quiet", "--matches", "2")
    assert ran.returncode == 0, ran.stderr
    return db, created.stdout + ran.stdout


def nobody_reads(path: Path) -> bool:
    """Can user 65534 (as a bot of another user would) read ``path``?  ``cat``, not
    Python: this venv's interpreter may itself be closed to that user."""
    probe = subprocess.run(
        ["cat", str(path)],
        user=NOBODY,
        group=NOBODY,
        extra_groups=[],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert probe.returncode == 0 or "Permission denied" in probe.stderr, probe.stderr
    return probe.returncode == 0


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="switching to another user needs root")


@pytest.fixture(scope="module")
def open_base() -> Iterator[Path]:
    """A folder every user may enter (pytest's own are its owner's only, which would
    close everything inside to other users whatever the arena did)."""
    base = Path(tempfile.mkdtemp(prefix="arena-deal-secret-"))
    os.chmod(base, 0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def secret_ladder(open_base: Path) -> tuple[Path, str]:
    return create_and_run(open_base / "secret")


@pytest.mark.slow
def test_the_secret_is_in_no_file_a_bot_could_read(secret_ladder: tuple[Path, str]) -> None:
    db, output = secret_ladder
    config_text = (db.parent / "ladder.toml").read_text()
    assert "seed" not in config_text
    store = LadderStore.open(db)
    try:
        secret = store.deal_secret()
        assert secret is not None and secret.source == "random" and len(secret.secret) == 32
        assert json.loads(store.config_json())["seed"] is None
        seeds = {row["key"]: row["seed"] for row in store.db.execute("SELECT key, seed FROM units")}
    finally:
        store.close()
    for key, seed in seeds.items():  # each unit's seed is derived one-way from the secret
        assert seed == derived_seed(secret.secret, key)
    assert "deals: from a random secret" in output and "predictable" not in output
    # ... and the database holding it is owner-only, with its WAL files.
    for file in db.parent.glob("t.sqlite*"):
        assert mode(file) == 0o600, file


@pytest.mark.slow
def test_two_ladders_from_one_config_deal_differently(
    secret_ladder: tuple[Path, str], tmp_path: Path
) -> None:
    other, _ = create_and_run(tmp_path / "other")
    assert unit_seeds(other) and unit_seeds(other) != unit_seeds(secret_ladder[0])


@pytest.mark.slow
def test_a_fixed_seed_is_reproducible_and_said_to_be_predictable(tmp_path: Path) -> None:
    first, output = create_and_run(tmp_path / "a", "seed = 7")
    second, _ = create_and_run(tmp_path / "b", "seed = 7")
    assert unit_seeds(first) == unit_seeds(second)
    assert "deals are predictable from its config" in output
    board = arena("ladder", "leaderboard", str(first), "--json")
    assert json.loads(board.stdout)["deals"] == "predictable"


def test_the_replays_of_a_ladder_are_owner_only(secret_ladder: tuple[Path, str]) -> None:
    replays = secret_ladder[0].parent / "replays" / "t"  # the ladder's own, under the config's
    assert mode(replays) == 0o700 and mode(replays.parent) == 0o700
    files = list(replays.glob("*.jsonl"))
    assert files and all(mode(file) == 0o600 for file in files)
    assert all(mode(folder) == 0o700 for folder in replays.iterdir() if folder.is_dir())


@pytest.mark.slow
@root_only
def test_another_user_cannot_open_the_database_nor_the_replays(
    secret_ladder: tuple[Path, str],
) -> None:
    db = secret_ladder[0]
    assert nobody_reads(db.parent / "ladder.toml"), "the config is open (it holds no secret)"
    replay = next((db.parent / "replays" / "t").glob("*.jsonl"))
    wal = [path for path in (Path(f"{db}-wal"), Path(f"{db}-shm")) if path.exists()]
    for target in (db, *wal, replay):
        assert not nobody_reads(target), target


@pytest.mark.slow
def test_a_ladder_from_before_deal_secrets_keeps_its_deals(tmp_path: Path) -> None:
    """A schema-1 database (its units' seeds from its config's seed, a world-readable
    file) opens, migrates, keeps dealing as before and is said to be predictable."""
    config_path = write(tmp_path, CONFIG.format(seed="seed = 3"))
    config = load_ladder_config(config_path)
    db = tmp_path / "old.sqlite"
    with closing(sqlite3.connect(db)) as old:
        MIGRATIONS[0](old)
        old.execute("PRAGMA user_version = 1")
        old.execute(
            "INSERT INTO ladder (id, name, config, created) VALUES (1, 't', ?, 'then')",
            (config.to_json(),),
        )
        old.commit()
    os.chmod(db, 0o644)
    assert arena("ladder", "add", str(db), "greedy").returncode == 0
    assert arena("ladder", "add", str(db), "random").returncode == 0
    assert mode(db) == 0o600, "its owner's first use closes it"
    ran = arena("ladder", "run", str(db), "--quiet", "--matches", "1")
    assert ran.returncode == 0, ran.stderr
    assert "deals are predictable from its config" in ran.stdout
    store = LadderStore.open(db)
    try:
        assert store.deal_secret() is None
        units = store.db.execute("SELECT key, seed FROM units").fetchall()
        old_config = LadderConfig.from_json(store.config_json())
    finally:
        store.close()
    assert units and all(row["seed"] == unit_seed(None, old_config, row["key"]) for row in units)


# -- arena match --replays ------------------------------------------------------------------


@pytest.fixture(scope="module")
def match_folder(open_base: Path) -> tuple[Path, dict[str, object]]:
    folder = open_base / "match" / "new" / "replays"
    run = arena_process(
        "match", "greedy", "random", "--games", "1", "--hands", "--json", "--replays", str(folder)
    )
    assert run.returncode == 0, run.stderr
    return folder, json.loads(run.stdout)


@pytest.mark.slow
def test_match_replays_and_logs_are_owner_only(
    match_folder: tuple[Path, dict[str, object]],
) -> None:
    folder, result = match_folder
    assert mode(folder) == 0o700 and mode(folder.parent) == 0o700  # made by the arena
    replay = Path(str(result["replay"]))
    assert mode(replay) == 0o600
    (run_dir,) = [entry for entry in folder.iterdir() if entry.is_dir()]
    assert mode(run_dir) == 0o700
    logs = list(run_dir.glob("*.log"))
    assert logs, "the bots' logs are kept beside the replay"


@pytest.mark.slow
@root_only
def test_another_user_cannot_read_a_match_replay_or_log(
    match_folder: tuple[Path, dict[str, object]], open_base: Path
) -> None:
    folder, result = match_folder
    replay = Path(str(result["replay"]))
    (run_dir,) = [entry for entry in folder.iterdir() if entry.is_dir()]
    log = next(run_dir.glob("*.log"))
    for target in (replay, log):
        assert not nobody_reads(target), target
    # Even in a folder the user left open to all, the replay and the run folder are closed.
    shared = open_base / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    control = shared / "open.txt"
    control.write_text("anyone may read this")
    os.chmod(control, 0o644)
    assert nobody_reads(control)
    run = arena_process(
        "match", "greedy", "random", "--games", "1", "--hands", "--json", "--replays", str(shared)
    )
    assert run.returncode == 0, run.stderr
    replay = Path(json.loads(run.stdout)["replay"])
    (run_dir,) = [entry for entry in shared.iterdir() if entry.is_dir()]
    for target in (replay, next(run_dir.glob("*.log"))):
        assert not nobody_reads(target), target


def test_a_duplicate_unit_keeps_its_seed_from_the_bots(secret_ladder: tuple[Path, str]) -> None:
    """Both matches of a duplicate unit deal the same cards: revealing the seed at the
    end of one would tell the other's, so neither reveals it; the result keeps it."""
    store = LadderStore.open(secret_ladder[0])
    try:
        rows = store.db.execute(
            "SELECT m.result, u.seed FROM matches m JOIN units u ON u.id = m.unit_id "
            "WHERE m.status = 'finished'"
        ).fetchall()
    finally:
        store.close()
    assert len(rows) == 2
    for row in rows:
        result = json.loads(row["result"])
        assert result["seed_revealed_to_bots"] is False
        assert result["seed"] == row["seed"] and len(result["seed_salt"]) == 64
