"""Shared by the Dask tests: a manifest bot in its own folder, ladder configs, reads."""

from __future__ import annotations

import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

# Always the first legal action (deterministic), saying in its log where it runs from.
FIRST_BOT = """\
import os
import sys

from arena.sdk import Bot, serve


class First(Bot):
    name = os.environ["BOT_NAME"]  # its manifest's, as the arena checks at the handshake

    def decide(self, decision):
        return 0


print("running from", os.path.dirname(os.path.abspath(__file__)), file=sys.stderr, flush=True)
serve(First())
"""

# Kills the process that hosts its referee's process: the Dask worker (sandbox "none").
# Exits at once: the worker is killed by the referee-side plugin tests/ladder/worker_killer.py
# whenever a bot named "killer" plays (a bot itself cannot signal the worker).
WORKER_KILLER = """\
raise SystemExit(0)
"""


def write_bot(folder: Path, name: str, source: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source, encoding="utf-8")
    manifest = folder / "bot.toml"
    manifest.write_text(
        f'name = "{name}"\ncommand = ["{sys.executable}", "bot.py"]\nworking_directory = "."\n'
        f'[env]\nBOT_NAME = "{name}"\n',
        encoding="utf-8",
    )
    return manifest


def ladder_config(
    folder: Path,
    manifest: Path,
    *,
    name: str = "dk",
    sandbox: str = "none",
    repeat: int = 2,
    extra_run: str = "",
    duplicate: bool = True,
    plugins: tuple[str, ...] = (),
) -> Path:
    config = folder / f"{name}.toml"
    config.write_text(
        f"""\
name = "{name}"
game = "gin-rummy/standard"
seed = 7
plugins = {list(plugins)!r}
[schedule]
repeat = {repeat}
duplicate = {str(duplicate).lower()}
[match]
games = 1
hands_only = true
[run]
concurrency = 2
sandbox = "{sandbox}"
replays = "replays-{name}"
suspend_after = 100
{extra_run}
[[bots]]
name = "greedy"
[[bots]]
name = "{manifest.parent.name}"
manifest = "{manifest}"
[[bots]]
name = "greedy2"
plugin = "greedy"
""",
        encoding="utf-8",
    )
    return config


def read(db: Path, query: str, *args: object) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as connection:
        return connection.execute(query, args).fetchall()


def statuses(db: Path) -> dict[str, int]:
    return dict(read(db, "SELECT status, COUNT(*) FROM matches GROUP BY status"))


def results(db: Path) -> dict[tuple[object, object], object]:
    """Each finished match's per-seat result, by its unit and line-up (not by id or order)."""
    rows = read(
        db,
        "SELECT u.key, m.seats, s.seat, s.game_wins, s.points, s.faults, s.status "
        "FROM matches m JOIN units u ON u.id = m.unit_id JOIN match_seats s ON s.match_id = m.id "
        "WHERE m.status = 'finished' ORDER BY u.key, m.seats, s.seat",
    )
    out: dict[tuple[object, object], list[tuple[object, ...]]] = {}
    for key, seats, *seat in rows:
        out.setdefault((key, seats), []).append(tuple(seat))
    return dict(out)
