"""The ``arena`` command, run as a user runs it: the installed script, in a subprocess.

The expected melds and deadwood are worked out by hand beside each hand.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ARENA = Path(sys.executable).parent / "arena"
RANKS = "A23456789TJQK"

# Three melds (7C-7H-7S, AC-2C-3C, 4D-5D-6D) and KH QS: 20 at eleven cards.
# Throwing KH or QS leaves the other: 10.  Any other throw breaks a meld.
ELEVEN = ["AC", "2C", "3C", "4D", "5D", "6D", "7S", "7H", "7C", "KH", "QS"]
ELEVEN_MELDS = {"7C 7H 7S", "AC 2C 3C", "4D 5D 6D"}

# TH-JH-QH, 7D-7H-7S, 2C-3C-4C, and 9S: 9.  Typed with the input variants.
TEN = ["10♥", "j♥", "Q♥", "7h", "7s", "7d", "2c", "3c", "4C", "9S"]
TEN_MELDS = {"TH JH QH", "7D 7H 7S", "2C 3C 4C"}


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ARENA), *args], capture_output=True, text=True, encoding="utf-8", timeout=120
    )


def meld_sets(melds: list[list[str]] | set[str]) -> set[frozenset[str]]:
    return {frozenset(m.split() if isinstance(m, str) else m) for m in melds}


def is_meld(cards: list[str]) -> bool:
    if len(cards) < 3:
        return False
    if len({card[0] for card in cards}) == 1:
        return len(cards) <= 4
    ranks = sorted(RANKS.index(card[0]) for card in cards)
    return len({card[1] for card in cards}) == 1 and ranks == list(range(ranks[0], ranks[-1] + 1))


def test_the_script_is_installed() -> None:
    assert ARENA.exists(), f"no arena script beside {sys.executable}"


# -- arena gin analyze --------------------------------------------------------------


@pytest.mark.slow
def test_analyze_eleven_cards_json() -> None:
    run = arena("gin", "analyze", *ELEVEN, "--json")
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    result = json.loads(run.stdout)
    assert result["deadwood"] == 20
    assert meld_sets(result["melds"]) == meld_sets(ELEVEN_MELDS)
    assert all(is_meld(meld) for meld in result["melds"])
    assert set(result["unmatched"]) == {"KH", "QS"}
    assert {d["card"]: d["deadwood"] for d in result["discards"]} == {"KH": 10, "QS": 10}


@pytest.mark.slow
def test_analyze_eleven_cards_discards_at_a_lower_limit() -> None:
    # A-2-3-4 of clubs, three 5s, three 9s and KC: KC goes out for gin (0); AC or 4C
    # shortens the run and leaves KC (10).  Limit 9 leaves only the gin discard.
    hand = ["AC", "2C", "3C", "4C", "5D", "5H", "5S", "9D", "9H", "9S", "KC"]
    result = json.loads(arena("gin", "analyze", *hand, "--json").stdout)
    assert result["deadwood"] == 10
    assert result["unmatched"] == ["KC"]
    assert {d["card"]: d["deadwood"] for d in result["discards"]} == {
        "KC": 0,
        "AC": 10,
        "4C": 10,
    }
    assert [d["deadwood"] for d in result["discards"]] == sorted(
        d["deadwood"] for d in result["discards"]
    )
    limited = json.loads(arena("gin", "analyze", *hand, "--json", "--knock-limit", "9").stdout)
    assert limited["discards"] == [{"card": "KC", "deadwood": 0}]


@pytest.mark.slow
def test_analyze_ten_cards_json() -> None:
    run = arena("gin", "analyze", *TEN, "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["deadwood"] == 9
    assert meld_sets(result["melds"]) == meld_sets(TEN_MELDS)
    assert result["unmatched"] == ["9S"]
    assert "discards" not in result  # nothing to throw from ten cards


@pytest.mark.slow
def test_analyze_ten_cards_without_melds() -> None:
    # No two cards of a rank, no suit holds three in a row: every card is deadwood.
    hand = ["AC", "3D", "5H", "7S", "9C", "JD", "KH", "2S", "4C", "6D"]
    result = json.loads(arena("gin", "analyze", *hand, "--json").stdout)
    assert result["melds"] == []
    assert set(result["unmatched"]) == set(hand)
    assert result["deadwood"] == 1 + 3 + 5 + 7 + 9 + 10 + 10 + 2 + 4 + 6


@pytest.mark.slow
def test_analyze_text_output() -> None:
    run = arena("gin", "analyze", *ELEVEN)
    assert run.returncode == 0, run.stderr
    lines = {
        line.split(":", 1)[0]: line.split(":", 1)[1].split() for line in run.stdout.splitlines()
    }
    assert lines["deadwood"] == ["20"]
    assert meld_sets([meld.split("-") for meld in lines["melds"]]) == meld_sets(ELEVEN_MELDS)
    assert set(lines["unmatched"]) == {"KH", "QS"}
    knock_line = next(line for line in run.stdout.splitlines() if line.startswith("knock"))
    assert "limit 10" in knock_line
    assert set(re.findall(r"([2-9TJQKA][CDHS]) \((\d+)\)", knock_line)) == {
        ("KH", "10"),
        ("QS", "10"),
    }


@pytest.mark.slow
def test_analyze_text_output_without_knock() -> None:
    run = arena("gin", "analyze", *ELEVEN, "--knock-limit", "5")
    assert run.returncode == 0, run.stderr
    assert "knock discards (limit 5): none" in run.stdout.splitlines()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["XX", *ELEVEN[1:]], "XX"),  # a bad card
        ([*ELEVEN[:10], "1H"], "1H"),
        ([*ELEVEN[:9], "7h", "KS"], "7H"),  # 7H twice (7H is in ELEVEN[:9])
        ([*ELEVEN[:9], "10s", "TS"], "TS"),  # 10s and TS are the same card
        (ELEVEN[:9], "got 9"),  # too few
        ([*ELEVEN, "KS"], "got 12"),  # too many
        (ELEVEN[:1], "got 1"),
        ([*ELEVEN, "--knock-limit", "-1"], "-1"),
        ([*ELEVEN, "--knock-limit", "101"], "101"),
    ],
)
def test_analyze_errors(args: list[str], named: str) -> None:
    run = arena("gin", "analyze", *args)
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("arena: error: ")
    assert named in lines[0]


@pytest.mark.slow
def test_analyze_error_names_the_problem() -> None:
    assert "duplicate" in arena("gin", "analyze", *ELEVEN[:10], "ac").stderr
    assert "10 cards" in arena("gin", "analyze", *ELEVEN[:9]).stderr
    assert "not a card" in arena("gin", "analyze", "ZZ", *ELEVEN[1:]).stderr


# -- arena demo ----------------------------------------------------------------------


@pytest.mark.slow
def test_demo_seed_1() -> None:
    run = arena("demo", "--seed", "1")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    winners = [line for line in lines if line.startswith("winner: ")]
    assert len(winners) == 1
    winner = winners[0].removeprefix("winner: ")
    # One line per player: "<name>: <points> points, ..., final <n>".
    totals = {}
    for line in lines:
        match = re.match(r"^\s*(\S+#\d): +(\d+) points, .*final (\d+)$", line)
        if match:
            totals[match.group(1)] = int(match.group(2))
    assert len(totals) == 2
    if not winner.startswith("nobody"):
        assert winner in totals
        loser = next(name for name in totals if name != winner)
        assert totals[winner] > totals[loser]
    # Every hand line's points add up to the players' totals.
    scored = {name: 0 for name in totals}
    for line in lines:
        match = re.search(r": (\S+#\d) scores (\d+)$", line)
        if match:
            scored[match.group(1)] += int(match.group(2))
    assert scored == totals
    assert arena("demo", "--seed", "1").stdout == run.stdout  # seeded: the same game again


@pytest.mark.slow
def test_demo_rejects_a_negative_seed() -> None:
    run = arena("demo", "--seed", "-1")
    assert run.returncode == 2
    lines = run.stderr.splitlines()
    assert len(lines) == 1
    assert "-1" in lines[0]
