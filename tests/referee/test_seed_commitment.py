"""Deals nobody can predict: fresh seeds by default, recorded so that ``--seed`` plays
them again; a commitment to the seed in MatchStart that MatchEnd and the replay open;
``arena replay --verify`` telling a verified, a tampered and an old replay apart; and
nothing in a replay, while its match goes on, that tells a card not yet seen."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bots.builtin import GreedyBot, RandomBot
from arena.cards import derive_seed
from arena.games.registry import find_game
from arena.hosting.connection import InProcessConnection
from arena.proto import bot_pb2 as pb
from arena.protocol.commitment import (
    COMMITMENT_TAG,
    RevealCheck,
    check_match_reveal,
    check_reveal,
    seed_commitment,
)
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.observers import MatchObserver
from arena.replays.files import ReplayWriter, read_replay
from arena.replays.records import Record
from arena.replays.verify import check_seed, verify_replay
from arena.sdk import Bot

from .conftest import arena

BOTS = Path(__file__).parent / "bots"
GIN = find_game("gin-rummy/standard")


def match_json(*args: str, cwd: Path) -> dict[str, Any]:
    run = arena("match", *args, "--json", cwd=cwd, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    result: dict[str, Any] = json.loads(run.stdout)
    return result


def raw_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_records(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))


# -- the construction ------------------------------------------------------------------


def test_the_commitment_is_the_documented_hash() -> None:
    salt = bytes(range(32))
    seed = 0x0123456789ABCDEF
    expected = hashlib.sha256(
        b"rummy-arena/seed-commitment/v1\x00" + bytes.fromhex("0123456789abcdef") + salt
    ).digest()
    assert COMMITMENT_TAG == b"rummy-arena/seed-commitment/v1"
    assert seed_commitment(seed, salt) == expected
    assert check_reveal(expected, seed, salt) is RevealCheck.VERIFIED
    assert check_reveal(expected, seed + 1, salt) is RevealCheck.MISMATCH
    assert check_reveal(expected, seed, bytes(32)) is RevealCheck.MISMATCH
    assert check_reveal(expected, seed, salt[:31]) is RevealCheck.MISMATCH
    assert check_reveal(b"", seed, salt) is RevealCheck.ABSENT
    assert check_reveal(expected, seed, b"") is RevealCheck.ABSENT  # withheld


# -- fresh seeds, recorded, replayable ----------------------------------------------------


@pytest.mark.slow
def test_a_match_without_seed_draws_a_fresh_one_and_records_it(tmp_path: Path) -> None:
    common = ("greedy", "random", "--games", "2", "--hands")
    first = match_json(*common, "--replays", str(tmp_path / "a"), cwd=tmp_path)
    second = match_json(*common, "--replays", str(tmp_path / "b"), cwd=tmp_path)
    assert first["seed"] != second["seed"], "two runs without --seed deal differently"
    for result in (first, second):
        header = read_replay(Path(result["replay"])).lines[0]
        assert header["seed"] == result["seed"], "the replay records the seed it dealt from"
    # --seed with the recorded seed plays exactly the same deals and moves again.
    again = match_json(
        *common, "--seed", str(first["seed"]), "--replays", str(tmp_path / "c"), cwd=tmp_path
    )
    assert again["seed"] == first["seed"]
    assert again["results"] == first["results"]
    deals = [
        [
            (r["game"], r["hand"], r["deck"])
            for r in read_replay(Path(res["replay"])).lines
            if r["type"] == "deal"
        ]
        for res in (first, again)
    ]
    assert deals[0] == deals[1] and deals[0]
    assert again["seed_salt"] != first["seed_salt"], "the salt is fresh every match"


@pytest.mark.slow
def test_the_table_prints_the_seed_to_play_again(tmp_path: Path) -> None:
    run = arena("match", "greedy", "random", "--games", "1", "--hands", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    found = re.search(r"seed (\d+) \(--seed \1 plays these deals again\)", run.stdout)
    assert found, run.stdout
    assert int(found.group(1)) != 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", ["-1", str(2**64)])
def test_a_seed_out_of_range_is_a_one_line_error(tmp_path: Path, seed: str) -> None:
    run = arena("match", "greedy", "random", "--seed", seed, cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "--seed must be an integer in 0..2**64-1" in run.stderr


# -- the commitment over gRPC, checked by a real bot process ------------------------------


def witness_manifest(folder: Path) -> Path:
    folder = folder / "witness"  # its own folder, readable by the uid it runs as
    folder.mkdir(mode=0o755)
    shutil.copy(BOTS / "seed_witness.py", folder / "seed_witness.py")
    manifest = folder / "witness.toml"
    manifest.write_text(
        f'name = "seed-witness"\ncommand = [{json.dumps(sys.executable)}, "seed_witness.py"]\n'
        'working_directory = "."\n'
    )
    return manifest


def witness_lines(stderr_log: str) -> list[dict[str, Any]]:
    text = Path(stderr_log).read_text()
    return [json.loads(line[8:]) for line in text.splitlines() if line.startswith("WITNESS ")]


@pytest.mark.slow
def test_a_bot_process_verifies_the_commitment_at_the_end(tmp_path: Path) -> None:
    manifest = witness_manifest(tmp_path)
    result = match_json(
        str(manifest), "random", "--games", "3", "--hands", "--replays", str(tmp_path / "r"),
        cwd=tmp_path,
    )  # fmt: skip
    start, end = witness_lines(result["bots"][0]["stderr"])
    assert start["kind"] == "start" and start["deals_seen"] == 0, "committed before any deal"
    assert start["commitment"] == result["seed_commitment"] and len(start["commitment"]) == 64
    assert end["kind"] == "end" and end["deals_seen"] >= 3
    assert end["seed"] == result["seed"] and end["salt"] == result["seed_salt"]
    assert end["own_check"] is True, "the documented hash of the reveal is the commitment"
    assert end["sdk_check"] == "verified"
    assert verify_replay(Path(result["replay"])) == []


class _Recorder(Bot):
    def __init__(self) -> None:
        self.start = pb.MatchStart()
        self.end = pb.MatchEnd()
        self.checks: list[RevealCheck] = []

    def decide(self, decision: Any) -> Any:
        return 0

    def on_match_start(self, message: pb.MatchStart) -> None:
        self.start = message

    def on_seed_check(self, check: RevealCheck, seed: int) -> None:
        self.checks.append(check)

    def on_match_end(self, message: pb.MatchEnd) -> None:
        self.end = message


@pytest.mark.parametrize("reveal", [True, False], ids=["revealed", "withheld"])
def test_a_withheld_reveal_leaves_match_end_without_seed(tmp_path: Path, reveal: bool) -> None:
    """A duplicate set's earlier matches keep the seed: the next one deals the same."""
    bots = [_Recorder(), _Recorder()]
    config = MatchConfig(GIN, games=1, seed=12345, hands_only=True, reveal_seed=reveal)
    seats = [Seat(InProcessConnection(bot), f"r{i}", "in-process") for i, bot in enumerate(bots)]
    replay = tmp_path / "m.jsonl"
    result = play_match(config, seats, [ReplayWriter(replay)])
    for bot in bots:
        assert bot.start.seed_commitment == seed_commitment(12345, bytes.fromhex(result.seed_salt))
        if reveal:
            assert (bot.end.seed, bot.end.seed_salt.hex()) == (12345, result.seed_salt)
            assert bot.checks == [RevealCheck.VERIFIED]
        else:
            assert (bot.end.seed, bot.end.seed_salt) == (0, b"")
            assert bot.checks == [RevealCheck.ABSENT]
        assert check_match_reveal(bot.start, bot.end) is bot.checks[0]
    assert check_seed(read_replay(replay).records).status is RevealCheck.VERIFIED  # the organiser's


# -- arena replay --verify ------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("finished")
    result = match_json(
        "greedy", "random", "--games", "2", "--hands", "--replays", str(folder), cwd=folder
    )
    return Path(result["replay"])


@pytest.mark.slow
def test_verify_says_the_commitment_is_verified(finished: Path) -> None:
    run = arena("replay", "--verify", str(finished))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "seed commitment verified" in run.stdout


@pytest.mark.slow
@pytest.mark.parametrize("field", ["seed", "salt"])
def test_verify_finds_a_tampered_seed_or_salt(finished: Path, tmp_path: Path, field: str) -> None:
    records = raw_records(finished)
    (reveal,) = [record for record in records if record["type"] == "reveal"]
    if field == "seed":
        reveal["seed"] ^= 1
    else:
        reveal["salt"] = reveal["salt"][:-2] + ("00" if reveal["salt"][-2:] != "00" else "01")
    copy = tmp_path / "tampered.jsonl"
    write_records(copy, records)
    run = arena("replay", "--verify", str(copy))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "seed commitment mismatch" in run.stdout


@pytest.mark.slow
def test_verify_says_an_old_replay_has_no_commitment(finished: Path, tmp_path: Path) -> None:
    """A version 1 replay (seed in the header, seeds and decks as they came) still reads
    and verifies; there is just no commitment to check."""
    records = list(read_replay(finished).lines)  # seeds and decks put back where v1 had them
    header = {k: v for k, v in records[0].items() if k != "seed_commitment"}
    old = [{**header, "version": 1}] + [r for r in records[1:] if r["type"] != "reveal"]
    copy = tmp_path / "v1.jsonl"
    write_records(copy, old)
    run = arena("replay", "--verify", str(copy))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "seed commitment absent" in run.stdout and "before replay version 2" in run.stdout
    shown = arena("replay", str(copy))
    assert shown.returncode == 0 and f"seed {header['seed']}" in shown.stdout


# -- a replay read while its match goes on ------------------------------------------------------


class _Snooper(MatchObserver):
    """Reads the replay file from disk at every hand's end, as a bot that can read it
    would: what is flushed there by then."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.snapshots: list[str] = []

    def on_record(self, record: Record) -> None:
        if record["type"] == "hand_end":
            self.snapshots.append(self.path.read_text())


def test_a_replay_mid_match_tells_no_seed_and_no_deck(tmp_path: Path) -> None:
    replay = tmp_path / "live.jsonl"
    snooper = _Snooper(replay)
    seed = 987654321
    config = MatchConfig(GIN, games=2, seed=seed)
    seats = [
        Seat(InProcessConnection(GreedyBot()), "greedy", "in-process"),
        Seat(InProcessConnection(RandomBot(1)), "random", "in-process"),
    ]
    play_match(config, seats, [ReplayWriter(replay), snooper])
    records = list(read_replay(replay).lines)
    decks = [record["deck"] for record in records if record["type"] == "deal"]
    game_seeds = [derive_seed(seed, 1, game) for game in range(2)]
    assert len(snooper.snapshots) >= 4 and len(decks) >= 4
    for snapshot in snooper.snapshots:
        assert snapshot.strip(), "the replay is written as the match goes"
        lines = [json.loads(line) for line in snapshot.splitlines()]
        assert not any(line.get("seed") or "deck" in line or "decks" in line for line in lines)
        for secret in (seed, *game_seeds):
            assert str(secret) not in snapshot
        for deck in decks:  # no deck order, nor its stock, in any form
            assert ",".join(json.dumps(card) for card in deck[21:]) not in snapshot
    ended = replay.read_text()
    assert f'"seed":{seed}' in ended and '"type":"reveal"' in ended  # revealed at the end


@pytest.mark.slow
def test_a_replay_cut_before_its_reveal_still_prints(finished: Path, tmp_path: Path) -> None:
    """What a referee killed mid-match leaves (or a match still going on): the moves
    print, the deals are said to be unrevealed, and --verify names what is missing."""
    lines = finished.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:20]))
    shown = arena("replay", str(cut))
    assert shown.returncode == 0, shown.stderr
    assert "seed not revealed" in shown.stdout and "(cards not revealed yet)" in shown.stdout
    verified = arena("replay", "--verify", str(cut))
    assert verified.returncode == 1
    assert "seed commitment absent: the replay stops before the seed is revealed" in verified.stdout
