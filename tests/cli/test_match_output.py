"""What ``arena match`` prints: a line per game as it ends, the Elo difference with its
error and LOS beside the win rate, and wording that reads right."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.cli.match_report import plural
from arena.stats import elo_summary

LINE = re.compile(
    r"Finished game (\d+) \(simple vs greedy\): (1-0|0-1|1/2-1/2) "
    r"\{(simple wins|greedy wins|draw), [^;]+; (\d+)-(\d+) in (\d+) hands?\}  score (\d+)-(\d+)-(\d+) \[[01]\.\d{3}\]"
)


def arena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main([*args, "--no-plugin-autoload"])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_line_per_game_then_the_elo_difference(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = arena(
        capsys,
        "match",
        "simple",
        "greedy",
        "--games",
        "4",
        "--hands",
        "--seed",
        "3",
        "--in-process",
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "Playing 4 single hands of gin-rummy/standard, seed 3: simple vs greedy"
    games = [LINE.fullmatch(line) for line in lines if line.startswith("Finished game")]
    assert len(games) == 4 and all(games)
    assert [int(m[1]) for m in games if m] == [1, 2, 3, 4]  # numbered from 1, in order
    last = games[-1]
    assert last is not None
    wins, losses, draws = int(last[7]), int(last[8]), int(last[9])
    assert wins + losses + draws == 4
    assert wins == sum(1 for m in games if m and m[2] == "1-0")
    # the table below agrees with the running score
    row = next(line for line in lines if line.startswith("simple "))
    assert row.split()[1:4] == [str(wins), str(losses), str(draws)]
    elo = next(line for line in lines if line.startswith("Elo difference (simple - greedy): "))
    assert "LOS " in elo and "simple's win rate" in elo
    expected = elo_summary(wins, losses, draws)
    assert f"LOS {expected.los:.1%}" in elo


def test_the_json_carries_the_elo_difference(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = arena(
        capsys, "match", "simple", "greedy", "--games", "2", "--hands", "--in-process", "--json"
    )
    assert status == 0
    result = json.loads(out)  # nothing but the object: no game lines in JSON mode
    assert set(result["elo"]) == {"difference", "low95", "high95", "los"}
    assert 0.0 <= result["elo"]["los"] <= 1.0


def test_a_game_for_two_says_2_bots(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = arena(capsys, "match", "greedy", "greedy", "random")
    assert status == 2
    assert "gin-rummy/standard is for 2 bots, got 3" in err
    assert "2-2" not in err


def test_elo_summary_by_hand() -> None:
    # 6 wins, 4 losses: score 0.6, Elo -400 log10(1/0.6 - 1) = +70.4; the game scores'
    # variance 0.24 gives se = sqrt(0.024); LOS = (1 + erf(2 / sqrt(20))) / 2.
    summary = elo_summary(6, 4, 0)
    assert summary.elo == pytest.approx(70.437, abs=1e-3)
    se = math.sqrt(0.24 / 10)
    low = -400 * math.log10(1 / (0.6 - 1.959964 * se) - 1)
    high = -400 * math.log10(1 / (0.6 + 1.959964 * se) - 1)
    assert summary.low == pytest.approx(low, abs=1e-2)
    assert summary.high == pytest.approx(high, abs=1e-2)
    assert summary.error == pytest.approx((high - low) / 2, abs=1e-2)
    assert summary.los == pytest.approx(0.5 * (1 + math.erf(2 / math.sqrt(20))))
    even = elo_summary(0, 0, 5)  # every game drawn: no spread, no interval
    assert even.elo == 0.0 and math.isnan(even.error) and even.los == 0.5
    sweep = elo_summary(5, 0, 0)
    assert sweep.elo == math.inf and sweep.los == pytest.approx(
        0.5 * (1 + math.erf(5 / math.sqrt(10)))
    )


def test_plural() -> None:
    assert plural(1, "game") == "1 game"
    assert plural(2, "game") == "2 games"
    assert plural(0, "bot") == "0 bots"
    assert plural(3, "match", "matches") == "3 matches"


@pytest.mark.parametrize("command", ["match", "sprt"])
def test_an_unknown_game_family_names_the_families(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    extra = ["--elo0", "0", "--elo1", "10"] if command == "sprt" else []
    status, _, err = arena(capsys, command, "greedy", "random", "--game", "gin", *extra)
    assert status == 2
    assert "unknown game family 'gin' for --game: the families are gin-rummy, rummy" in err
    status, _, err = arena(capsys, command, "greedy", "random", "--rules", "fast", *extra)
    assert status == 2
    assert "unknown rules 'fast' for gin-rummy: --rules takes classic, oklahoma, standard" in err


def test_cards_run_together_get_a_hint_about_spaces(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["gin", "analyze", "7H8H", "9H", "TH"])
    err = capsys.readouterr().err
    assert status == 2
    assert "not a card: '7H8H'" in err and "put spaces between cards" in err
    assert err.count("\n") == 1  # one line


@pytest.mark.parametrize("command", ["match", "sprt", "play", "check"])
def test_help_shows_the_time_control_defaults(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for option, default in (("decision", 1000), ("bank", 10000), ("startup", 10000)):
        described = text.split(f" --{option}-ms ")[-1].split(" --")[0]  # its help text
        assert f"(default {default}" in described, option


def test_faults_name_the_game_as_the_lines_do(capsys: pytest.CaptureFixture[str]) -> None:
    # Nothing listens on port 9 (discard) here: the bot never starts.
    status, out, _ = arena(
        capsys,
        "match",
        "grpc://127.0.0.1:9",
        "random",
        "--games",
        "1",
        "--startup-ms",
        "1000",
        "--in-process",  # random starts at once
    )
    assert status == 0
    fault = next(line for line in out.splitlines() if line.startswith("fault: "))
    assert "before the first game: start_failed" in fault
    assert "Finished game 1 (grpc://127.0.0.1:9 vs random): 0-1" in out


def test_the_banner_names_the_fresh_seed(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = arena(capsys, "match", "greedy", "random", "--games", "1", "--in-process")
    assert status == 0
    banner = out.splitlines()[0]
    seed = re.search(r", seed (\d+): greedy vs random;", banner)
    assert seed is not None, banner  # not "seed None"
    assert f"--seed {seed[1]} plays these deals again" in out


def test_rummy_lines_tell_seats_apart_and_negative_scores_from_dashes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = arena(
        capsys, "match", "greedy-rummy", "random", "random", "--game", "rummy",
        "--games", "1", "--seed", "3", "--in-process",
    )  # fmt: skip
    assert status == 0
    assert "greedy-rummy vs random#1 vs random#2; each game runs over several hands until" in out
    line = next(line for line in out.splitlines() if line.startswith("Finished game 1 "))
    scores = re.search(r"; (-?\d+), (-?\d+), (-?\d+) in \d+ hands?\}", line)
    assert scores is not None and "--" not in line, line
    rows = [
        row.split()[0] for row in out.splitlines() if row.startswith(("greedy-rummy ", "random"))
    ]
    assert rows == ["greedy-rummy", "random#1", "random#2"]


def test_replay_shows_the_draw_the_rules_make_after_two_passes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = arena(
        capsys, "match", "random", "greedy", "--games", "12", "--hands", "--seed", "1",
        "--in-process", "--json", "--replays", str(tmp_path),
    )  # fmt: skip
    assert status == 0
    replay = json.loads(out)["replay"]
    records = [json.loads(line) for line in Path(replay).read_text().splitlines()]
    openings: dict[tuple[int, int], list[str]] = {}
    hand = (-1, -1)
    for record in records:
        if record["type"] == "deal":
            hand = (record["game"], record["hand"])
            openings[hand] = []
        elif record["type"] == "action" and len(openings[hand]) < 2:
            openings[hand].append(record["action"])
    passed = sum(1 for actions in openings.values() if actions == ["pass", "pass"])
    assert passed, "no hand opened with two passes: pick another seed"
    assert main(["replay", replay, "--no-plugin-autoload"]) == 0
    lines = capsys.readouterr().out.splitlines()
    drawn = [i for i, line in enumerate(lines) if "draw stock (by the rules: both passed" in line]
    assert len(drawn) == passed
    assert all(lines[i - 1].strip().startswith(("greedy: pass", "random: pass")) for i in drawn)
