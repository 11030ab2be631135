"""A new version of a bot, re-asked along the old one's replay, shows exactly the
decisions where the two versions answer differently; a bot that crashes or times out
at a re-ask gets that decision reported as its fault, and the run goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.games.registry import find_game
from arena.replays.engine import EngineReplay
from arena.replays.files import read_replay
from arena.replays.records import ActionRecord, DealRecord, GameStartRecord

from .bots.edgebot import choose
from .helpers import arena, edge_manifest, record, shown, summary

pytestmark = pytest.mark.slow  # every test here starts bot processes


def _where_versions_part(replay: Path, seat: int) -> set[tuple[int, int, int]]:
    """Each decision of ``seat`` (game, hand, step from 1) where ``lowest`` would not
    answer what was recorded, from the engine's own observations (not the protocol
    stream the re-ask sends)."""
    read = read_replay(replay)
    records, header = read.records, read.header
    engine = EngineReplay(find_game(header.game_id), header)
    parts: set[tuple[int, int, int]] = set()
    game = hand = step = 0
    for line, entry in enumerate(records[1:], start=2):
        if isinstance(entry, GameStartRecord):
            game = entry.game
        elif isinstance(entry, DealRecord):
            hand, step = entry.hand, 0
        elif isinstance(entry, ActionRecord) and entry.seat == seat:
            step += 1
            table = engine.table
            assert table is not None
            observation = table.game.hand.observation(seat)
            legal = list(table.legal_actions())
            assert str(choose("highest", observation, legal)) == entry.action  # as recorded
            if str(choose("lowest", observation, legal)) != entry.action:
                parts.add((game + 1, hand + 1, step))
        engine.feed(line, entry)
    return parts


def test_a_changed_bot_shows_exactly_where_it_differs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    highest = edge_manifest(tmp_path / "highest", "highest")
    lowest = edge_manifest(tmp_path / "lowest", "lowest")
    replay = record(capsys, tmp_path / "r", str(highest), "random", "--games", "2", "--seed", "8")
    expected = _where_versions_part(replay, 0)
    assert expected  # the two versions do part somewhere in this match
    status, out, err = arena(
        capsys, "replay", str(replay), "--seat", "0", "--ask", str(lowest), "--sandbox", "none"
    )
    assert status == 0, err
    listed = shown(out)
    assert set(listed) == expected
    assert set(listed.values()) == {"different"}
    counts = summary(out)
    assert counts["different"] == len(expected)
    assert counts["same"] == counts["asked"] - len(expected)
    assert counts["illegal"] == counts["faults"] == 0
    # and the old version itself differs nowhere
    status, out, err = arena(
        capsys, "replay", str(replay), "--seat", "0", "--ask", str(highest), "--sandbox", "none"
    )
    assert status == 0, err
    assert shown(out) == {}
    assert summary(out)["same"] == summary(out)["asked"]


@pytest.mark.parametrize("how", ["crash-at", "sleep-at", "late-at", "illegal-at"])
def test_a_fault_or_an_illegal_answer_is_that_decisions_and_the_run_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, how: str
) -> None:
    highest = edge_manifest(tmp_path / "highest", "highest")
    replay = record(
        capsys,
        tmp_path / "r",
        str(highest),
        "random",
        "--games", "1", "--hands", "--seed", "4", "--decision-ms", "1000", "--bank-ms", "0",
    )  # fmt: skip
    # The seat's third decision: its request id, from the recorded decision list.
    status, out, err = arena(capsys, "replay", str(replay), "--seat", "0", "--at", "1.1.3")
    assert status == 0, err
    request = int(out.split("(request ")[1].split(")")[0])
    # late-at: 1.5 s for a 1 s deadline, and its answer comes (the run goes on with the
    # same process); sleep-at: 30 s (the bot is started again).
    extra = ["--sleep-s", "1.5"] if how == "late-at" else []
    flag = "--sleep-at" if how == "late-at" else f"--{how}"
    faulty = edge_manifest(tmp_path / how, "highest", flag, str(request), *extra)
    status, out, err = arena(
        capsys, "replay", str(replay), "--seat", "0", "--ask", str(faulty), "--sandbox", "none"
    )
    assert status == 0, err
    counts = summary(out)
    if how == "illegal-at":  # an answer the engine refuses there: illegal, the stream goes on
        assert shown(out) == {(1, 1, 3): "illegal"}
        assert "(ILLEGAL: " in out
        assert counts["illegal"] == 1 and counts["faults"] == 0
    else:
        assert shown(out) == {(1, 1, 3): "fault"}
        assert f"FAULT {'crashed' if how == 'crash-at' else 'timeout'}" in out
        assert counts["faults"] == 1 and counts["illegal"] == 0
    assert counts["same"] == counts["asked"] - 1 > 2  # and every later decision is asked


def test_repeat_tells_a_bot_that_answers_the_same_question_differently(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    highest = edge_manifest(tmp_path / "highest", "highest")
    unseeded = edge_manifest(tmp_path / "unseeded", "highest", "--unseeded")
    replay = record(capsys, tmp_path / "r", str(highest), "random", "--games", "1", "--seed", "8")
    ask = ("replay", str(replay), "--seat", "0", "--sandbox", "none", "--repeat", "3")
    status, out, err = arena(capsys, *ask, "--ask", str(highest))
    assert status == 0, err
    assert out.splitlines()[-1].endswith("; the same answer every time over 3 asks")
    status, out, err = arena(capsys, *ask, "--ask", str(unseeded))
    assert status == 0, err
    last = out.splitlines()[-1]
    assert "; answered the same question differently at " in last and "over 3 asks" in last
    assert "answered differently over 3 asks" in out  # beside the decisions listed
    assert out.count("new #3:") >= 1  # every answer shown
