"""Re-asked along its own replays, every built-in bot and the ``strong`` sample bot
gives 100% of its recorded answers: Gin under every preset, Basic Rummy at 2 to 6
seats, from ``arena match`` and from a ladder.  Real bot processes over real gRPC,
short matches (single hands)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import arena, record, summary, write_manifest

pytestmark = pytest.mark.slow  # every test here starts bot processes


def _search_manifest(folder: Path) -> str:
    """``search`` thinks until a playout budget is spent, with a wall-clock cap as a
    safety net (300 ms by default): on a loaded machine the cap could cut a search
    short and change its answer, so here it runs with the cap out of the way."""
    command = [
        "{python}",
        "-m",
        "arena.bots.serve",
        "search",
        "--playouts",
        "60",
        "--max-ms",
        "60000",
    ]
    return str(write_manifest(folder, "search", command))


def _reproduces(capsys: pytest.CaptureFixture[str], replay: Path, seat: int, bot: str) -> None:
    status, out, err = arena(
        capsys, "replay", str(replay), "--seat", str(seat), "--ask", bot, "--sandbox", "none"
    )
    assert status == 0, err
    counts = summary(out)
    assert counts["asked"] > 0
    assert counts["same"] == counts["asked"], out


GIN = [
    ("standard", ["greedy", "random"]),
    ("classic", ["simple", "strong"]),
]


@pytest.mark.parametrize(("rules", "bots"), GIN, ids=[rules for rules, _ in GIN])
def test_gin_bots_reproduce_every_decision(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, bots: list[str]
) -> None:
    replay = record(
        capsys, tmp_path / "r", *bots, "--rules", rules, "--games", "2", "--hands", "--seed", "11"
    )
    for seat, bot in enumerate(bots):
        _reproduces(capsys, replay, seat, bot)


def test_search_reproduces_every_decision(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    search = _search_manifest(tmp_path / "search")
    replay = record(
        capsys, tmp_path / "r", search, "greedy", "--games", "1", "--hands", "--seed", "3"
    )
    _reproduces(capsys, replay, 0, search)


RUMMY = [
    ("standard", ["greedy-rummy", "strong-rummy"]),
    ("winner-takes-all", ["random", "greedy-rummy", "strong-rummy"]),
    ("jokers", ["strong-rummy", "greedy-rummy", "random", "greedy-rummy"]),
    ("deuces", ["greedy-rummy", "strong-rummy", "random", "strong-rummy", "greedy-rummy"]),
    ("standard", ["strong-rummy", "random", "greedy-rummy"] * 2),
]


@pytest.mark.parametrize(
    ("rules", "bots"), RUMMY, ids=[f"{rules}-{len(bots)}" for rules, bots in RUMMY]
)
def test_rummy_bots_reproduce_every_decision(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, bots: list[str]
) -> None:
    replay = record(
        capsys,
        tmp_path / "r",
        *bots,
        "--game", "rummy", "--rules", rules, "--games", "1", "--hands", "--seed", "5",
    )  # fmt: skip
    asked: set[str] = set()
    for seat, bot in enumerate(bots):  # each bot once, in its first seat
        if bot not in asked:
            asked.add(bot)
            _reproduces(capsys, replay, seat, bot)


LADDER = """\
name = "t"
game = "{game}"
{bots}
[match]
games = 1
hands_only = true
[run]
concurrency = 1
sandbox = "none"
replays = "{replays}"
"""


@pytest.mark.parametrize(
    ("game", "bots"),
    [
        ("gin-rummy/standard", ["greedy", "simple"]),
        ("rummy/standard", ["greedy-rummy", "strong-rummy"]),
    ],
    ids=["gin", "rummy"],
)
def test_ladder_replays_reproduce(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, bots: list[str]
) -> None:
    """A ladder's matches come in duplicate sets (MatchEnd does not reveal the seed to
    the bots in the first of them): each replays as it was played."""
    replays = tmp_path / "replays"
    config = tmp_path / "ladder.toml"
    entries = "\n".join(f'[[bots]]\nname = "{bot}"' for bot in bots)
    config.write_text(LADDER.format(game=game, bots=entries, replays=replays), encoding="utf-8")
    database = tmp_path / "t.sqlite"
    status, _, err = arena(capsys, "ladder", "create", str(config), "--db", str(database))
    assert status == 0, err
    status, _, err = arena(capsys, "ladder", "run", str(database), "--quiet")
    assert status == 0, err
    files = sorted(replays.rglob("*.jsonl"))
    assert len(files) >= 2
    hidden = 0
    for replay in files:
        lines = replay.read_text().splitlines()
        header, end = json.loads(lines[0]), json.loads(lines[-1])
        hidden += not end["result"]["seed_revealed_to_bots"]
        for seat, player in enumerate(header["players"]):
            _reproduces(capsys, replay, seat, player["name"])
    assert hidden, "no replay of a match whose seed the bots were not told"
