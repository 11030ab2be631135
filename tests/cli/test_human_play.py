"""``arena play``: a person against a bot in the terminal, through the real referee.

One run as a subprocess fed by a pipe, as a person's terminal would; the rest in
this process (the move prompt, leaving, the bot's own clock).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.bots import RandomBot
from arena.cards import Card
from arena.cli.human import HumanConnection, HumanPlayer, SeatClock, human_time_control
from arena.cli.main import main
from arena.games import gin_rummy as gin
from arena.games.gin_rummy.scenario import deck_order
from arena.games.registry import find_game
from arena.hosting.connection import InProcessConnection
from arena.hosting.faults import SeatStatus
from arena.proto import bot_pb2 as pb
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.settings import TimeControl
from arena.replays.files import read_replay
from arena.sdk import Bot, Decision

ARENA = Path(sys.executable).parent / "arena"


def replay_of(output: str) -> Path:
    (line,) = [line for line in output.splitlines() if line.startswith("replay: ")]
    return Path(line.removeprefix("replay: "))


@pytest.mark.slow
def test_a_scripted_session_in_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bad line, a move that is not legal now, then always the first move listed.
    moves = "xyz\ndiscard 2C\n" + "1\n" * 300
    run = subprocess.run(
        [str(ARENA), "play", "random", "--seed", "3", "--hands", "--sandbox", "none"],
        input=moves,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    out = run.stdout
    assert run.returncode == 0, run.stderr
    assert "against random: 1 single hand." in out
    # After each draw from the stock, the card drawn is named, and it is in the hand shown.
    drawn = re.findall(r"you draw from the stock: (\S\S)\n(?:.*\n)*?  your hand by suit: (.*)", out)
    assert drawn, "a draw from the stock names its card"
    assert all(card in hand.split() for card, hand in drawn)
    assert "your hand by suit:" in out and "by rank:" in out
    assert "best melds:" in out and "deadwood" in out
    assert "discard pile: top" in out and "stock 31 cards" in out
    assert "moves:\n     1. draw discard   (take" in out  # the numbered menu
    assert "not a move: 'xyz'" in out
    assert "not a legal move now: discard 2C" in out
    assert out.count("-- your turn") >= 3  # asked again, then played on
    assert "--- end of hand:" in out and "=== game 1 over" in out
    replay = tmp_path / replay_of(out)
    assert replay.is_file() and replay.parent == tmp_path / "replays"
    assert main(["replay", "--verify", str(replay)]) == 0
    # arena replay numbers the games and hands as arena play did, from 1
    played = re.findall(r"=== game (\d+), hand (\d+):", out)
    assert played == [("1", "1")]
    capsys.readouterr()
    assert main(["replay", str(replay), "--game", "1", "--hand", "1"]) == 0
    listed = capsys.readouterr().out
    assert re.findall(r"^game (\d+) \(seed", listed, re.M) == ["1"]
    assert re.findall(r"^  hand (\d+): ", listed, re.M) == ["1"]
    header = read_replay(replay).lines[0]
    assert [player["name"] for player in header["players"]] == ["human", "random"]


@pytest.mark.slow
def test_end_of_input_forfeits_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n1\n"))
    status = main(
        ["play", "random", "--seed", "3", "--replays", str(tmp_path), "--sandbox", "none"]
    )
    out = capsys.readouterr().out
    assert status == 3  # documented: you left
    assert "You left the table (end of input): the game is forfeited to random." in out
    assert "Result: you won 0, random won 1, of 1 game." in out
    replay = replay_of(out)
    assert main(["replay", "--verify", str(replay)]) == 0
    # arena replay numbers the games and hands as arena play did, from 1
    played = re.findall(r"=== game (\d+), hand (\d+):", out)
    assert played == [("1", "1")]
    capsys.readouterr()
    assert main(["replay", str(replay), "--game", "1", "--hand", "1"]) == 0
    listed = capsys.readouterr().out
    assert re.findall(r"^game (\d+) \(seed", listed, re.M) == ["1"]
    assert re.findall(r"^  hand (\d+): ", listed, re.M) == ["1"]
    faults = [record for record in read_replay(replay).lines if record["type"] == "fault"]
    assert faults[0]["status"] == "crashed" and "the player left" in faults[0]["reason"]


# -- the prompt ------------------------------------------------------------------------------


def first_turn_discard() -> tuple[gin.GinHand, HumanPlayer]:
    """Seat 1 (non-dealer) took the upcard 9C: 2C-3C-4C 5D-6D-7D 9C-9D-9H-9S KS."""
    deck = deck_order("2C 3C 4C 5D 6D 7D 9H 9S 9D KS", "AH 3H 5H 7H JC QS 2S 4S 6S TD", "9C")
    hand = gin.GinHand(gin.STANDARD, deck, dealer=0)
    hand.apply(gin.DRAW_DISCARD)
    player = HumanPlayer(io.StringIO(), io.StringIO())
    player.seat = 1
    return hand, player


def choose(hand: gin.GinHand, player: HumanPlayer, text: str) -> Any:
    seat = hand.current_seat()
    assert seat is not None
    return player.choose(text, hand.observation(seat), hand.legal_actions())


def refusal(hand: gin.GinHand, player: HumanPlayer, text: str) -> str:
    with pytest.raises(ValueError) as error:
        choose(hand, player, text)
    return str(error.value)


def test_moves_by_number_and_by_text() -> None:
    hand, player = first_turn_discard()
    legal = hand.legal_actions()
    assert choose(hand, player, "1") == legal[0]
    assert choose(hand, player, "discard ks") == gin.discard(Card.parse("KS"))
    assert "no move 99" in refusal(hand, player, "99")
    assert "discard 7H" in refusal(hand, player, "?")
    assert "not a move: 'hello'" in refusal(hand, player, "hello")


def test_illegal_moves_say_why() -> None:
    hand, player = first_turn_discard()
    assert "2H is not in your hand" in refusal(hand, player, "discard 2H")
    assert "you took 9C from the discard pile" in refusal(hand, player, "discard 9C")
    assert "now you discard a card, or knock" in refusal(hand, player, "draw stock")
    assert "above the knock limit" in refusal(hand, player, "knock 2C 9C-9D-9H-9S 5D-6D-7D")


def test_a_knock_with_other_melds_than_listed_is_accepted() -> None:
    hand, player = first_turn_discard()
    # Listed for KS: gin with the four nines; this keeps 9S out of the melds (deadwood 9).
    text = "knock KS 9C-9D-9H 2C-3C-4C 5D-6D-7D"
    action = choose(hand, player, text)
    assert action not in hand.legal_actions() and str(action) == text
    hand.apply(action)  # the engine agrees
    assert hand.phase is gin.Phase.DEFEND


def test_a_typed_defence_is_checked() -> None:
    deck = deck_order("5H 6H 7H 9C 9D 9S JD QD KD KC", "4H 8H 9H TD 3C 6C 8C JS AS QH", "2D")
    hand = gin.GinHand(gin.STANDARD, deck, dealer=0)
    hand.apply(gin.DRAW_DISCARD)
    hand.apply(gin.parse_action("knock KC 5H-6H-7H 9C-9D-9S JD-QD-KD"))
    player = HumanPlayer(io.StringIO(), io.StringIO())
    assert "not in your hand" in refusal(hand, player, "defend | 7C>0")
    assert refusal(hand, player, "defend | 3C>0").startswith("not a legal move now")
    defence = choose(hand, player, "defend | 8H>0 4H>0 9H>1 TD>2")
    hand.apply(defence)
    assert hand.result is not None and hand.result.seats[0].deadwood == 3 + 6 + 8 + 10 + 1 + 10


def test_the_position_is_shown_before_the_prompt() -> None:
    hand, _ = first_turn_discard()
    output = io.StringIO()
    player = HumanPlayer(io.StringIO("1\n"), output)
    player.seat = 1
    player.players = ["greedy", "you"]
    player.show(hand.observation(1), [], hand.legal_actions())
    text = output.getvalue()
    assert "your hand by suit: 2C 3C 4C 9C   5D 6D 7D 9D   9H   9S KS" in text
    assert "by rank: 2C 3C 4C 5D 6D 7D 9C 9D 9H 9S KS" in text
    assert "best melds:" in text
    assert "you took 9C: you may not discard it this turn" in text
    assert "(gin!)" in text  # the knock that leaves nothing is marked


# -- leaving, and the bot's own clock, in process ---------------------------------------------


def test_quit_forfeits_every_game_left() -> None:
    spec = find_game("gin-rummy/standard")
    config = MatchConfig(spec, games=3, hands_only=True, time_control=human_time_control(1000))
    human = HumanConnection(HumanPlayer(io.StringIO("quit\n"), io.StringIO()))
    result = play_match(
        config, [Seat(human, "me"), Seat(InProcessConnection(RandomBot()), "random")]
    )
    assert human.left == "quit"
    assert result.seats[0].status is SeatStatus.CRASHED
    assert [game.winner for game in result.games] == [1, 1, 1]


class _Sleepy(Bot):
    """Sleeps ``delay`` seconds per decision and notes the clocks it is shown."""

    name = "sleepy"

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.match_clock: tuple[int, int] | None = None
        self.clocks: list[tuple[int, int]] = []

    def on_match_start(self, message: pb.MatchStart) -> None:
        self.match_clock = (message.time_control.decision_ms, message.time_control.bank_ms)

    def decide(self, decision: Decision) -> int:
        self.clocks.append((decision.decision_ms, decision.bank_ms))
        time.sleep(self.delay)
        return 0


def test_the_bot_keeps_its_own_clock_while_the_person_has_a_day() -> None:
    spec = find_game("gin-rummy/standard")
    config = MatchConfig(spec, games=1, hands_only=True, time_control=human_time_control(1000))
    sleepy = _Sleepy(0.03)
    bot = SeatClock(InProcessConnection(sleepy), TimeControl(1000, 10, 45))
    human = HumanConnection(HumanPlayer(io.StringIO("1\n" * 100), io.StringIO()))
    result = play_match(config, [Seat(human, "me"), Seat(bot, "sleepy")])
    assert sleepy.match_clock == (10, 45)
    assert sleepy.clocks[0] == (10, 45)
    assert sleepy.clocks[1][1] < 45  # the bank shrinks by what it overran
    (fault,) = result.seats[1].faults
    assert fault.status is SeatStatus.TIMEOUT and "over the decision time and bank" in fault.reason
    assert result.seats[0].faults == []
    assert json.dumps(result.to_json())  # the result is still a plain record


@pytest.mark.slow
def test_without_seed_play_deals_fresh_cards_and_prints_the_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seeds = []
    for _ in range(2):
        monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
        main(["play", "random", "--hands", "--replays", str(tmp_path), "--sandbox", "none"])
        out = capsys.readouterr().out
        found = re.search(r"^seed (\d+) \(--seed \1 deals these cards again\)$", out, re.M)
        assert found, out
        seeds.append(int(found.group(1)))
        assert read_replay(tmp_path / replay_of(out).name).lines[0]["seed"] == seeds[-1]
    assert seeds[0] != seeds[1]
