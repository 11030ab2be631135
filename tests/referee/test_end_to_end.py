"""Whole matches between real bot processes over gRPC, through the API and the CLI,
and the replays they leave: printed, verified, tampered with and corrupted."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.games.registry import find_game
from arena.hosting.faults import SeatStatus
from arena.hosting.launcher import LaunchSettings
from arena.referee.match import MatchConfig, play_match
from arena.replays.files import ReplayWriter, read_replay
from arena.replays.verify import verify_replay

from .conftest import arena, host, seats_of, session_members, zombie_children

pytestmark = pytest.mark.slow  # bots in processes, and the arena command

STANDARD = find_game("gin-rummy/standard")
SEED = 5
GAMES = 3
SUMMARY_KEYS = {"name", "wins", "losses", "draws", "points", "faults"}


def deals(replay: Path) -> list[tuple[Any, ...]]:
    return [
        (r["game"], r["hand"], r["dealer"], tuple(r["deck"]))
        for r in read_replay(replay).lines
        if r["type"] == "deal"
    ]


def moves(replay: Path) -> list[tuple[Any, ...]]:
    return [
        (r["game"], r["hand"], r["seat"], r["action"])
        for r in read_replay(replay).lines
        if r["type"] == "action"
    ]


def match_json(*args: str, cwd: Path) -> dict[str, Any]:
    run = arena("match", "greedy", "random", "--json", *args, cwd=cwd)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 1, "--json prints one JSON object on one line"
    result: dict[str, Any] = json.loads(lines[0])
    return result


@pytest.fixture(scope="module")
def cli_result(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``arena match greedy random --games 3 --seed 5 --json``, isolated processes."""
    folder = tmp_path_factory.mktemp("cli")
    return match_json(
        "--games", str(GAMES), "--seed", str(SEED), "--replays", str(folder / "replays"),
        cwd=folder,
    )  # fmt: skip


@pytest.fixture
def replay_copy(cli_result: dict[str, Any], tmp_path: Path) -> Path:
    """A copy of the CLI match's replay, free to edit."""
    return Path(shutil.copy(cli_result["replay"], tmp_path / "copy.jsonl"))


def check_totals(result: dict[str, Any], games: int) -> None:
    assert result["games"] == games == len(result["results"])
    for seat, bot in enumerate(result["bots"]):
        assert set(bot) >= SUMMARY_KEYS
        assert bot["wins"] + bot["losses"] + bot["draws"] == games
        assert bot["points"] == sum(game["scores"][seat] for game in result["results"])
        assert bot["faults"] == 0 and bot["status"] == "ok"


# -- through the API -------------------------------------------------------------------


def test_whole_match_between_real_processes(tmp_path: Path, cli_result: dict[str, Any]) -> None:
    settings = LaunchSettings(sandbox="auto", run_dir=tmp_path / "run")
    bots = [host("greedy", settings), host("random", settings)]
    replay = tmp_path / "match.jsonl"
    try:
        assert [bot.start_fault for bot in bots] == [None, None]
        assert all(bot.sandbox in ("bwrap", "limits") for bot in bots)  # auto: bwrap if usable
        config = MatchConfig(STANDARD, games=GAMES, seed=SEED)
        result = play_match(config, seats_of(bots), [ReplayWriter(replay)])
    finally:
        for bot in bots:
            bot.close()
    for bot in bots:  # every process of each bot is gone
        assert bot.process is not None and bot.process.returncode() is not None
        assert session_members(bot.process.pid) == []
    assert zombie_children() == []

    assert len(result.games) == GAMES
    for seat, record in enumerate(result.seats):
        assert record.status is SeatStatus.OK and record.faults == []
        assert record.decision_seconds, "both bots decided"
        assert result.wins(seat) + result.losses(seat) + result.draws(seat) == GAMES
        assert result.points(seat) == sum(game.scores[seat] for game in result.games)
    assert [record.name for record in result.seats] == ["greedy", "random"]

    assert verify_replay(replay) == []
    records = list(read_replay(replay).lines)
    assert records[0]["type"] == "match" and records[-1]["type"] == "match_end"
    assert records[-1]["result"]["bots"] == result.to_json()["bots"]
    assert len([r for r in records if r["type"] == "game"]) == GAMES
    # Same seed, same deals -- and with these deterministic bots, the same moves.
    cli_replay = Path(cli_result["replay"])
    assert deals(replay) == deals(cli_replay)
    assert moves(replay) == moves(cli_replay)


# -- arena match ---------------------------------------------------------------------


def test_cli_json(cli_result: dict[str, Any]) -> None:
    check_totals(cli_result, GAMES)
    assert [bot["name"] for bot in cli_result["bots"]] == ["greedy", "random"]
    assert cli_result["seed"] == SEED and cli_result["fault_policy"] == "forfeit"
    assert verify_replay(Path(cli_result["replay"])) == []


def test_cli_hands_mode(tmp_path: Path, cli_result: dict[str, Any]) -> None:
    result = match_json(
        "--hands", "--games", "4", "--seed", "9", "--replays", str(tmp_path), cwd=tmp_path
    )
    check_totals(result, 4)
    assert all(game["hands"] == 1 for game in result["results"])
    assert all(game["reason"].startswith("hand: ") for game in result["results"])
    replay = Path(result["replay"])
    records = list(read_replay(replay).lines)
    assert records[0]["hands_only"] is True
    assert [r["type"] for r in records].count("hand_end") == 4
    assert verify_replay(replay) == []
    # Another seed, other deals.
    assert {deal[3] for deal in deals(replay)}.isdisjoint(
        deal[3] for deal in deals(Path(cli_result["replay"]))
    )


def test_cli_in_process_plays_the_same_match(tmp_path: Path, cli_result: dict[str, Any]) -> None:
    result = match_json(
        "--games", str(GAMES), "--seed", str(SEED), "--in-process", "--replays", str(tmp_path),
        cwd=tmp_path,
    )  # fmt: skip
    assert [bot["sandbox"] for bot in result["bots"]] == ["in-process"] * 2

    def same(bot: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(bot[key] for key in ("name", "wins", "losses", "draws", "points", "decisions"))

    assert [same(bot) for bot in result["bots"]] == [same(bot) for bot in cli_result["bots"]]
    assert result["results"] == cli_result["results"]
    assert moves(Path(result["replay"])) == moves(Path(cli_result["replay"]))


# -- arena replay ----------------------------------------------------------------------


def test_replay_prints_every_hand(cli_result: dict[str, Any]) -> None:
    replay = Path(cli_result["replay"])
    records = list(read_replay(replay).lines)
    run = arena("replay", str(replay))
    assert run.returncode == 0, run.stderr
    out = run.stdout
    deal_lines = re.findall(
        r"^  hand \d+: (greedy|random) deals; upcard [2-9TJQKA][CDHS]$", out, re.M
    )
    assert len(deal_lines) == sum(r["type"] == "deal" for r in records)
    holds = re.findall(r"^    seat [01] holds((?: [2-9TJQKA][CDHS]){10})$", out, re.M)
    assert len(holds) == 2 * len(deal_lines)
    ends = re.findall(r"^  hand \d+ ends: \w+", out, re.M)
    assert len(ends) == sum(r["type"] == "hand_end" for r in records)
    assert len(re.findall(r"^game \d+ over", out, re.M)) == GAMES
    greedy = cli_result["bots"][0]
    assert f"greedy: {greedy['wins']} wins, {greedy['points']} points" in out


def test_replay_verify_agrees(cli_result: dict[str, Any]) -> None:
    run = arena("replay", "--verify", cli_result["replay"])
    assert run.returncode == 0, run.stdout + run.stderr
    assert "verified" in run.stdout


def _tamper(record: dict[str, Any], what: str, deck: list[str]) -> bool:
    """Change ``record`` if it is the kind ``what`` names; whether it was changed."""
    if what == "action" and record["type"] == "action" and record["action"].startswith("discard"):
        # The bottom card of the stock: nobody holds it at the first discard.
        record["action"] = f"discard {deck[51]}"
        return True
    if what == "hand result" and record["type"] == "hand_end":
        record["result"]["points"] += 1
        return True
    if what == "game score" and record["type"] == "game_end":
        record["scores"][0] += 1
        return True
    return False


def _edit(path: Path, what: str) -> int:
    """Tamper with the first record of a kind; returns its line number."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    # The decks are revealed at the end (replay version 2).
    (reveal,) = [record for record in records if record["type"] == "reveal"]
    decks = {(deal["game"], deal["hand"]): deal["deck"] for deal in reveal["decks"]}
    deck: list[str] = []
    for number, record in enumerate(records, start=1):
        if record["type"] == "deal":
            deck = decks[record["game"], record["hand"]]
        elif _tamper(record, what, deck):
            path.write_text("".join(json.dumps(r) + "\n" for r in records))
            return number
    raise AssertionError(f"no record to edit for {what}")


@pytest.mark.parametrize(
    ("what", "message"),
    [
        ("action", r"action 'discard [2-9TJQKA][CDHS]' by seat [01] rejected: cannot discard"),
        ("hand result", r"hand 1 of game 1: result differs from the engine's"),  # from 1
        ("game score", r"game 1: engine scores \[\d+, \d+\] winner \d, replay"),
    ],
)
def test_replay_verify_finds_a_tampered_record(replay_copy: Path, what: str, message: str) -> None:
    line = _edit(replay_copy, what)
    assert verify_replay(replay_copy) != []
    run = arena("replay", "--verify", str(replay_copy))
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(rf"^{re.escape(str(replay_copy))}: record {line}: {message}", run.stdout, re.M)
    assert re.search(r": 1 disagreement with the engine$", run.stdout, re.M)


def test_replay_cut_at_a_line_end_does_not_verify(replay_copy: Path) -> None:
    """A referee killed mid-match leaves whole lines but no ``match_end``."""
    lines = replay_copy.read_text().splitlines(keepends=True)
    replay_copy.write_text("".join(lines[:30]))
    run = arena("replay", "--verify", str(replay_copy))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "record 30: the replay stops before its match_end record" in run.stdout


def _corrupt(path: Path, how: str) -> int:
    """Damage the replay; returns the line the error must name."""
    lines = path.read_text().splitlines(keepends=True)
    if how == "truncated":  # the writer died in the middle of line 12
        path.write_text("".join(lines[:11]) + lines[11][: len(lines[11]) // 2])
        return 12
    if how == "garbage":
        lines.insert(4, "{this is not json\n")
        path.write_text("".join(lines))
        return 5
    if how == "not an object":
        lines[2] = "[1, 2, 3]\n"
        path.write_text("".join(lines))
        return 3
    assert how == "headless"
    path.write_text("".join(lines[1:]))
    return 1


@pytest.mark.parametrize("verify", [False, True], ids=["print", "verify"])
@pytest.mark.parametrize("how", ["truncated", "garbage", "not an object", "headless"])
def test_corrupt_replay_is_a_one_line_error(replay_copy: Path, how: str, verify: bool) -> None:
    line = _corrupt(replay_copy, how)
    run = arena("replay", *(["--verify"] if verify else []), str(replay_copy))
    assert run.returncode == 2, run.stdout + run.stderr
    errors = run.stderr.splitlines()
    assert len(errors) == 1, run.stderr
    assert f"{replay_copy}:{line}:" in errors[0]
    assert "Traceback" not in run.stderr


def test_missing_replay_is_a_one_line_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"
    run = arena("replay", str(missing))
    assert run.returncode == 2
    assert len(run.stderr.splitlines()) == 1 and str(missing) in run.stderr
