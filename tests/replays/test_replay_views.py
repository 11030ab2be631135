"""``arena replay FILE --seat N [--game G] [--hand K]``: what one seat saw.

Replays come from real matches (in-process bots, the referee's replay writer, or
``arena match --replays``).  What the view shows is checked against the engine
driven directly here, not through the protocol tables the view uses.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.bots.builtin import GreedyBot, RandomBot
from arena.cards import Card, CardSet
from arena.cli.main import main
from arena.games.gin_rummy import GinGame, Phase, discard, parse_action
from arena.games.registry import find_game
from arena.hosting.connection import InProcessConnection
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.settings import FaultPolicy
from arena.replays.files import ReplayWriter, read_replay
from arena.sdk import Bot, Decision, Reply

CARD = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])")
GIN_SEED = 5


class Commenter(GreedyBot):
    """Greedy, numbering its decisions in the comment."""

    name = "commenter"

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def decide(self, decision: Decision) -> Any:
        self.count += 1
        return Reply(super().decide(decision), f"decision {self.count}")


class OnceIllegal(RandomBot):
    """Random, but its first discard is of a card it does not hold."""

    name = "once-illegal"

    def __init__(self) -> None:
        super().__init__()
        self.done = False

    def decide(self, decision: Decision) -> Any:
        observation = decision.observation
        if not self.done and observation.phase is Phase.DISCARD:
            self.done = True
            return discard(next(card for card in CardSet.full() if card not in observation.hand))
        return super().decide(decision)


def record_match(
    path: Path,
    bots: list[Bot],
    game_id: str,
    games: int,
    seed: int,
    faults: str = "forfeit",
    hands_only: bool = False,
) -> list[dict[str, Any]]:
    config = MatchConfig(
        find_game(game_id),
        games=games,
        seed=seed,
        fault_policy=FaultPolicy.parse(faults),
        hands_only=hands_only,
    )
    seats = [Seat(InProcessConnection(bot), bot.name, "in-process") for bot in bots]
    play_match(config, seats, [ReplayWriter(path)])
    return list(read_replay(path).lines)  # with the seeds and decks revealed at the end


@pytest.fixture(scope="module")
def gin(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    path = tmp_path_factory.mktemp("gin") / "gin.jsonl"
    return path, record_match(path, [Commenter(), RandomBot()], "gin-rummy/standard", 2, GIN_SEED)


def arena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def with_hands(records: list[dict[str, Any]]) -> list[tuple[int, int, dict[str, Any]]]:
    """(game, hand, record) of every action, the hand taken from the last deal."""
    out = []
    game = hand = -1
    for record in records:
        if record["type"] == "deal":
            game, hand = record["game"], record["hand"]
        elif record["type"] == "action":
            out.append((game, hand, record))
    return out


def chosen(lines: list[str]) -> list[tuple[str, str, str]]:
    """(action, ms, comment) of each "-> " line of a view."""
    out = []
    for line in lines:
        found = re.match(
            r"^\s+-> (.*?)(?: \(\+[^)]*\))?(?: \(played by[^)]*\))?  \[([\d.]+) ms\](?:  # (.*))?$",
            line,
        )
        if found:
            out.append((found.group(1), found.group(2), found.group(3) or ""))
    return out


# -- gin rummy ------------------------------------------------------------------------


def test_every_decision_of_the_seat_with_its_time_and_comment(
    gin: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, records = gin
    status, lines, err = arena(capsys, "replay", str(path), "--seat", "0")
    assert status == 0, err
    expected = [
        (r["action"], f"{r['ms']:.2f}", r["comment"])
        for r in records
        if r["type"] == "action" and r["seat"] == 0
    ]
    assert chosen(lines) == expected
    assert expected[0][2] == "decision 1"
    assert lines[2] == "  the view of seat 0 (commenter)"
    # The other seat's decisions are not shown as choices, only as events.
    status, lines, _ = arena(capsys, "replay", str(path), "--seat", "1")
    assert [c[2] for c in chosen(lines)] == [""] * sum(
        1 for r in records if r["type"] == "action" and r["seat"] == 1
    )


def test_the_view_at_each_decision_is_the_engine_s(
    gin: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, records = gin
    for seat in (0, 1):
        _, lines, _ = arena(capsys, "replay", str(path), "--seat", str(seat))
        turns = [i for i, line in enumerate(lines) if line.startswith("    your turn (")]
        spec = find_game("gin-rummy/standard")
        seen = []
        for record in records:
            if record["type"] == "game":
                game = spec.new_game(record["seed"], 2, max_deals=records[0]["max_deals"])
            elif record["type"] == "action":
                if record["seat"] == seat:
                    assert isinstance(game, GinGame)
                    observation = game.observation(seat)
                    hand = " ".join(str(card) for card in observation.hand)
                    pile = observation.discard_pile
                    top = f"top {pile[-1]} ({len(pile)} card" if pile else "empty"
                    seen.append((observation.phase.value, hand, top, observation.stock_size))
                game.apply(parse_action(record["action"]), record["seat"])
        assert len(turns) == len(seen)
        for index, (phase, hand, top, stock) in zip(turns, seen, strict=True):
            assert lines[index].startswith(f"    your turn ({phase}): {hand}  [")
            assert f"discard pile {top}" in lines[index + 1]
            assert f"; stock {stock};" in lines[index + 1]


def test_dealt_cards_follow_the_deal_convention(
    gin: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/PERFORMANCE.md (Engines): the non-dealer gets cards 0, 2, .., 18 of the deck, the dealer 1, 3, .., 19.
    path, records = gin
    _, lines, _ = arena(capsys, "replay", str(path), "--seat", "1")
    dealt = [line.removeprefix("    you are dealt ") for line in lines if "you are dealt" in line]
    deals = [r for r in records if r["type"] == "deal"]
    assert len(dealt) == len(deals) >= 2
    for text, deal in zip(dealt, deals, strict=True):
        deck = deal["deck"]
        cards = deck[1:20:2] if deal["dealer"] == 1 else deck[0:20:2]
        assert text == str(CardSet.of(Card.parse(card) for card in cards))


def test_nothing_hidden_from_the_seat_is_shown_before_the_hand_ends(
    gin: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    """At each decision: no line of the hand so far names a card of the stock or an
    opponent's card the seat has not seen (the engine's card locations say which)."""
    path, records = gin
    spec = find_game("gin-rummy/standard")
    for seat in (0, 1):
        _, lines, _ = arena(capsys, "replay", str(path), "--seat", str(seat))
        hand_starts = [i for i, line in enumerate(lines) if re.match(r"^  hand \d+: ", line)]
        turns = iter(i for i, line in enumerate(lines) if line.startswith("    your turn ("))
        checked = 0
        for record in records:
            if record["type"] == "game":
                game = spec.new_game(record["seed"], 2, max_deals=records[0]["max_deals"])
            elif record["type"] == "action":
                if record["seat"] == seat:
                    assert isinstance(game, GinGame)
                    turn = next(turns)
                    start = max(i for i in hand_starts if i < turn)
                    shown_so_far = " ".join(lines[start : turn + 3])
                    hand = game.hand
                    observation = hand.observation(seat)
                    locations = hand.card_locations()
                    seen = observation.opponent_known
                    if observation.knock is not None:
                        for meld in observation.knock.melds:
                            seen = seen | meld.cards
                        seen = seen | observation.knock.unmatched
                    hidden = locations["stock"] | (locations[f"hand{1 - seat}"] - seen)
                    named = {Card.parse(text) for text in CARD.findall(shown_so_far)}
                    assert not named & set(hidden), (record, named & set(hidden))
                    checked += 1
                game.apply(parse_action(record["action"]), record["seat"])
        assert checked > 20


def test_stock_draws_show_the_card_to_the_drawer_only(
    gin: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = gin
    _, lines, _ = arena(capsys, "replay", str(path), "--seat", "0")
    other = [line for line in lines if line == "    random draws from the stock"]
    assert other, "the opponent never drew from the stock?"
    assert not any(
        line.startswith("    random draws from the stock") and line not in other for line in lines
    )
    own = [line for line in lines if line.lstrip().startswith("-> draw stock")]
    assert own and all(re.search(r"draw stock \(\+[A2-9TJQK][CDHS]\)", line) for line in own)


def test_the_referee_s_stock_draw_after_two_passes_shows_the_card_to_the_drawer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "passes.jsonl"
    records = record_match(
        path, [GreedyBot(), GreedyBot()], "gin-rummy/standard", 4, 0, hands_only=True
    )
    assert [r["action"] for r in records if r["type"] == "action"][:2] == ["pass", "pass"]
    non_dealer = 1 - next(r for r in records if r["type"] == "deal")["dealer"]
    _, lines, _ = arena(capsys, "replay", str(path), "--seat", str(non_dealer), "--game", "1")
    draw = next(i for i, line in enumerate(lines) if "you draw from the stock" in line)
    card = lines[draw].removeprefix("    you draw from the stock: ")
    assert CARD.fullmatch(card)
    assert lines[draw - 1] == f"    greedy#{1 - non_dealer} passes"
    assert card in lines[draw + 1].split()  # the next decision's hand holds it
    _, lines, _ = arena(capsys, "replay", str(path), "--seat", str(1 - non_dealer), "--game", "1")
    assert f"    greedy#{non_dealer} draws from the stock" in lines


def test_one_hand_of_every_game(
    gin: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, records = gin
    # Hands and games are numbered from 1 on the command line and in the listing (as in
    # arena play); the records count from 0.
    status, lines, _ = arena(capsys, "replay", str(path), "--seat", "0", "--hand", "2")
    assert status == 0
    expected = [r["action"] for g, h, r in with_hands(records) if h == 1 and r["seat"] == 0]
    assert [c[0] for c in chosen(lines)] == expected
    assert [line.split(":")[0] for line in lines if re.match(r"^  hand \d+", line)] == [
        "  hand 2",
        "  hand 2 ends",
    ] * len({g for g, h, _ in with_hands(records) if h == 1})


def test_one_hand_of_one_game(
    gin: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, records = gin
    status, lines, _ = arena(
        capsys, "replay", str(path), "--seat", "1", "--game", "2", "--hand", "1"
    )
    assert status == 0
    expected = [
        r["action"] for g, h, r in with_hands(records) if (g, h) == (1, 0) and r["seat"] == 1
    ]
    assert [c[0] for c in chosen(lines)] == expected
    assert [line for line in lines if line.startswith("game ")] == [
        next(line for line in lines if line.startswith("game 2 (seed "))
    ]


def test_the_plain_listing_narrows_to_a_hand(
    gin: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, records = gin
    status, lines, _ = arena(capsys, "replay", str(path), "--game", "1", "--hand", "2")
    assert status == 0
    actions = [
        line for line in lines if re.match(r"^\s+(commenter|random): ", line) and "[" in line
    ]
    expected = [r for g, h, r in with_hands(records) if (g, h) == (0, 1)]
    assert len(actions) == len(expected)
    assert [line.split(": ", 1)[1].split("  [")[0] for line in actions] == [
        r["action"] for r in expected
    ]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--seat", "2"], "--seat 2"),
        (["--seat", "-1"], "--seat -1"),
        (["--seat", "0", "--hand", "99"], "--hand 99"),
        (["--seat", "0", "--game", "7"], "--game 7"),
        (["--seat", "0", "--game", "1", "--hand", "40"], "--hand 40"),
        (["--seat", "0", "--game", "0"], "--game 0"),
        (["--hand", "99"], "--hand 99"),
        (["--verify", "--seat", "0"], "--verify"),
    ],
)
def test_a_bad_seat_game_or_hand_is_a_one_line_error(
    gin: tuple[Path, list[dict[str, Any]]],
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    named: str,
) -> None:
    path, _ = gin
    status, lines, err = arena(capsys, "replay", str(path), *args)
    assert status == 2
    assert lines == []
    assert len(err.splitlines()) == 1 and named in err


def test_a_replay_the_engine_refuses_is_a_one_line_error(
    gin: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, records = gin
    tampered = [dict(record) for record in records]
    index = next(
        i
        for i, r in enumerate(tampered)
        if r["type"] == "action" and r["action"].startswith("discard")
    )
    tampered[index]["action"] = "knock AS"  # not legal here
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(record) + "\n" for record in tampered))
    status, _, err = arena(capsys, "replay", str(bad), "--seat", "0")
    assert status == 2
    assert len(err.splitlines()) == 1
    assert f"bad.jsonl:{index + 1}:" in err and "--verify" in err


def test_a_replaced_action_and_the_fault_are_shown(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "faulty.jsonl"
    records = record_match(
        path,
        [OnceIllegal(), RandomBot()],
        "gin-rummy/standard",
        1,
        2,
        faults="random:3",
        hands_only=True,
    )
    assert any(r["type"] == "action" and r.get("replaced") for r in records)
    _, lines, _ = arena(capsys, "replay", str(path), "--seat", "0")
    fault = next(
        i for i, line in enumerate(lines) if line.startswith("      FAULT (you): illegal_action")
    )
    assert lines[fault - 3].startswith("    your turn (discard): ")
    assert "(played by the referee" in lines[fault + 1]
    _, others, _ = arena(capsys, "replay", str(path), "--seat", "1")
    assert not any("FAULT" in line for line in others)


# -- basic rummy ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def rummy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("rummy")
    status = main(
        ["match", "greedy-rummy", "random", "random", "--game", "rummy", "--games", "1",
         "--seed", "3", "--in-process", "--no-plugin-autoload", "--replays", str(folder)]
    )  # fmt: skip
    assert status == 0
    (path,) = folder.glob("*.jsonl")
    return path, list(read_replay(path).lines)


def test_a_rummy_seat_sees_its_decisions_and_the_others_events(
    rummy: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, records = rummy
    for seat in (0, 2):
        status, lines, err = arena(capsys, "replay", str(path), "--seat", str(seat))
        assert status == 0, err
        expected = [r["action"] for r in records if r["type"] == "action" and r["seat"] == seat]
        assert [c[0] for c in chosen(lines)] == expected
        dealt = [line for line in lines if "you are dealt" in line]
        # 7 cards each for 3 players, 10 for 2 once a player is out (standard scoring).
        assert len(CARD.findall(dealt[0])) == 7
        assert all(
            len(CARD.findall(line)) in (7, 10) or "out of the game" in line for line in dealt
        )
        views = [line for line in lines if line.startswith("      discard pile")]
        others = [
            name
            for index, name in enumerate(["greedy-rummy", "random#1", "random#2"])
            if index != seat
        ]
        assert all(f"{name}: " in line for line in views for name in others)
        assert any(line.startswith("      ") and "reshuffles 0/" in line for line in lines)
        # A stock draw by another seat never shows its card.
        draws = [line for line in lines if "draws from the stock" in line]
        assert draws and all(line.endswith("draws from the stock") for line in draws)


def test_the_plain_listing_of_a_rummy_replay_shows_every_seat_s_deal(
    rummy: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, records = rummy
    status, lines, err = arena(capsys, "replay", str(path))
    assert status == 0, err
    holds = [line for line in lines if re.match(r"^    seat \d holds ", line)]
    deals = [r for r in records if r["type"] == "deal"]
    assert len(holds) == 3 * len(deals)
    assert all(len(CARD.findall(line)) == 7 for line in holds[:3])
    assert sum(1 for line in lines if re.match(r"^  hand \d+ ends", line)) == len(deals)
