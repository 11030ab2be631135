"""No message the referee sends a seat names a card that seat may not know.

A wrapper around each seat's connection sees every ``RefereeMessage`` exactly as it
goes to the bot, and checks it at that moment against the referee's own table: no
string anywhere in it (observation, events, legal actions, hand start, notices...)
may name a card of the stock or of the opponent's hidden hand -- the cards the
opponent did not take from the discard pile and, after a knock, did not lay down,
plus the knocker's face-down discard.  Only ``HandEnd`` (the reveal) shows them.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor

from arena.cards import ALL_CARDS
from arena.games.gin_rummy import GinGame, GinRules
from arena.games.registry import find_game
from arena.games.spec import GameSpec
from arena.hosting.connection import InProcessConnection
from arena.hosting.launcher import HostedBot, LaunchSettings
from arena.proto import bot_pb2 as pb
from arena.protocol import codec_for
from arena.protocol import gin as gin_codec
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.results import MatchResult
from arena.referee.settings import FaultMode, FaultPolicy, TimeControl
from arena.sdk import Bot, Decision

from .conftest import host, zombie_children

_CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][CDHS](?![A-Za-z0-9])")
ALL = {str(card) for card in ALL_CARDS}


def strings_in(message: Any) -> Iterator[str]:
    """Every value of every string field of ``message``, however deep (map keys included).

    Bytes fields (the seed commitment, the salt) are random: read as text they name a
    card now and then by chance, so they are not strings here.
    """
    for descriptor, value in message.ListFields():
        values = value if descriptor.is_repeated else [value]
        entry = descriptor.message_type
        if entry is not None and entry.GetOptions().map_entry:
            yield from (key for key in value if isinstance(key, str))
            values = [value[key] for key in value]
            if entry.fields_by_name["value"].type == FieldDescriptor.TYPE_STRING:
                yield from values
            elif entry.fields_by_name["value"].type == FieldDescriptor.TYPE_MESSAGE:
                for inner in values:
                    yield from strings_in(inner)
        elif descriptor.type == FieldDescriptor.TYPE_STRING:
            yield from values
        elif descriptor.type == FieldDescriptor.TYPE_MESSAGE:
            for inner in values:
                yield from strings_in(inner)


def cards_in(message: Any) -> set[str]:
    """Every card named in any string field of ``message`` (free text included)."""
    return {card for text in strings_in(message) for card in _CARD.findall(text)}


def hidden_from(table: gin_codec.GinTable, seat: int) -> set[str]:
    """What ``seat`` may not know now, by the referee's own table."""
    hand = table.game.hand
    hidden = table.hidden_cards(seat)
    knock = hand.observation(seat).knock
    if knock is not None and knock.seat != seat:
        # The knocker's melds and unmatched cards are on the table; his discard is face down.
        laid = knock.unmatched
        for meld in knock.melds:
            laid = laid | meld.cards
        hidden = (hidden - laid) | hand.card_locations()["knock_discard"]
    return {str(card) for card in hidden}


@dataclass
class Audit:
    """Checks messages against the table the referee is playing (set by ``new_table``)."""

    table: gin_codec.GinTable | None = None
    leaks: list[str] = field(default_factory=list)
    sent: Counter[str] = field(default_factory=Counter)
    phases: Counter[str] = field(default_factory=Counter)
    revealed: int = 0  # cards HandEnd showed that were hidden at the seat's last decision
    last_hidden: dict[int, set[str]] = field(default_factory=dict)
    samples: list[tuple[pb.RefereeMessage, set[str]]] = field(default_factory=list)

    def check(self, seat: int, message: pb.RefereeMessage) -> None:
        kind = message.WhichOneof("body")
        self.sent[kind] += 1
        if kind == "hand_end":  # the reveal: everything may be shown
            self.revealed += len(cards_in(message) & self.last_hidden.get(seat, set()))
            return
        # Before the first deal (MatchStart) no card is known to anyone.
        hidden = ALL if self.table is None else hidden_from(self.table, seat)
        if kind == "decision":
            self.phases[pb.Phase.Name(message.decision.observation.phase)] += 1
            self.last_hidden[seat] = hidden
            if len(self.samples) < 20 and message.decision.events:
                copy = pb.RefereeMessage()
                copy.CopyFrom(message)
                self.samples.append((copy, hidden))
        leaked = cards_in(message) & hidden
        if leaked:
            self.leaks.append(f"{kind} to seat {seat} names {sorted(leaked)}:\n{message}")


class Spy:
    """A connection that lets the audit see each message before the real one sends it."""

    def __init__(self, inner: Any, seat: int, audit: Audit) -> None:
        self.inner = inner
        self.seat = seat
        self.audit = audit
        self.info = inner.info

    async def start_match(self) -> None:
        await self.inner.start_match()

    async def send(self, message: bytes) -> None:
        self.audit.check(self.seat, pb.RefereeMessage.FromString(message))
        await self.inner.send(message)

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        self.audit.check(self.seat, pb.RefereeMessage.FromString(message))
        reply: pb.DecisionReply = await self.inner.decide(message, request_id, timeout)
        return reply

    async def end_match(self) -> None:
        await self.inner.end_match()

    def close(self) -> None:
        self.inner.close()


@pytest.fixture
def audit(monkeypatch: pytest.MonkeyPatch) -> Audit:
    """An audit that learns every table the referee creates, as it creates it."""
    assert codec_for("gin-rummy/standard") is gin_codec
    audit = Audit()
    real_new_table = gin_codec.new_table

    def new_table(game_id: str, game: GinGame) -> gin_codec.GinTable:
        audit.table = real_new_table(game_id, game)
        return audit.table

    monkeypatch.setattr(gin_codec, "new_table", new_table)
    return audit


def play_audited(
    audit: Audit,
    bots: list[HostedBot],
    spec: GameSpec,
    *,
    games: int,
    seed: int,
    hands: bool,
    **settings: Any,
) -> MatchResult:
    seats = [Seat(Spy(bot.connection, index, audit), bot.name) for index, bot in enumerate(bots)]
    config = MatchConfig(spec, games=games, seed=seed, hands_only=hands, **settings)
    try:
        result = play_match(config, seats)
    finally:
        for bot in bots:
            bot.close()
    assert len(result.games) == games
    assert settings or not any(record.faults for record in result.seats)
    return result


def _variant() -> GameSpec:
    rules = GinRules(name="oklahoma-last-discard", oklahoma=True, last_discard=True)

    def new_game(seed: int, seats: int, *, hands_only: bool = False, max_deals: int = 0) -> Any:
        return GinGame(rules, seed, max_deals=max_deals, single_hand=hands_only)

    return GameSpec("gin-rummy/test-oklahoma-last-discard", "test variant", 2, 2, rules, new_game)


# (rules, seat 0, seat 1, games, hands only, seed): 34 games, each phase of the hand.
MATCHES = [
    (find_game("gin-rummy/standard"), "greedy", "random", 4, False, 1),
    (find_game("gin-rummy/classic"), "random", "greedy", 3, False, 2),
    (find_game("gin-rummy/standard"), "greedy", "greedy", 15, True, 3),
    (_variant(), "random", "random", 12, True, 4),
]


@pytest.mark.parametrize(
    ("spec", "first", "second", "games", "hands", "seed"),
    MATCHES,
    ids=[f"{m[0].id.split('/')[1]}-{m[1]}-{m[2]}" for m in MATCHES],
)
def test_no_message_names_a_hidden_card(
    audit: Audit, spec: GameSpec, first: str, second: str, games: int, hands: bool, seed: int
) -> None:
    settings = LaunchSettings(in_process=True)
    play_audited(
        audit,
        [host(first, settings), host(second, settings)],
        spec,
        games=games,
        seed=seed,
        hands=hands,
    )
    assert audit.leaks == [], audit.leaks[0]
    # Everything was looked at, and the check had something to find.
    assert audit.sent["match_start"] == 2 and audit.sent["match_end"] == 2
    assert audit.sent["hand_start"] == audit.sent["hand_end"] >= 2 * games
    assert audit.sent["decision"] > 20 * games
    assert audit.revealed > 0, "HandEnd should reveal cards that were hidden"
    if first == second == "greedy":  # greedy knocks at once: defences
        assert audit.phases["PHASE_DEFEND"] > 0
    assert isinstance(spec.rules, GinRules)  # every match here plays a Gin Rummy rule set
    if spec.rules.last_discard:
        assert audit.phases["PHASE_LAST_DISCARD"] > 0


@pytest.mark.slow
def test_no_message_over_grpc_names_a_hidden_card(audit: Audit, tmp_path: Any) -> None:
    settings = LaunchSettings(sandbox="auto", run_dir=tmp_path / "run")
    bots = [host("greedy", settings), host("random", settings)]
    play_audited(audit, bots, find_game("gin-rummy/standard"), games=6, seed=5, hands=True)
    assert zombie_children() == []
    assert audit.leaks == [], audit.leaks[0]
    assert audit.sent["decision"] > 60 and audit.revealed > 0


class Sluggish(Bot):
    """Random, but every fifth decision takes 20 ms: late, so the referee plays for it."""

    name = "sluggish"

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.decisions = 0

    def decide(self, decision: Decision) -> Any:
        self.decisions += 1
        if self.decisions % 5 == 0:
            time.sleep(0.02)
        return self.rng.choice(decision.legal_actions)


def test_notices_of_replaced_actions_name_no_hidden_card(audit: Audit) -> None:
    bots = [
        HostedBot("sluggish", InProcessConnection(Sluggish()), "in-process"),
        host("greedy", LaunchSettings(in_process=True)),
    ]
    result = play_audited(
        audit,
        bots,
        find_game("gin-rummy/standard"),
        games=10,
        seed=7,
        hands=True,
        time_control=TimeControl(decision_ms=5, bank_ms=0),
        fault_policy=FaultPolicy(FaultMode.RANDOM, 10_000),
    )
    assert audit.leaks == [], audit.leaks[0]
    replaced = [f for f in result.seats[0].faults if f.consequence.startswith("random: ")]
    assert audit.sent["notice"] >= len(replaced) > 0


def plant(message: pb.RefereeMessage, where: str, card: str) -> None:
    request = message.decision
    if where == "event":
        request.events.add(kind=pb.Event.KIND_DRAW_STOCK, card=card)
    elif where == "legal action":
        request.legal_actions.add().discard.card = card
    elif where == "known cards":
        request.observation.seats[0].known_cards.append(card)
    elif where == "table":
        request.observation.table.add(cards=[card])
    else:
        request.observation.gin.knocker_unmatched.append(card)


def test_the_check_finds_a_planted_card(audit: Audit) -> None:
    """The detector is not blind: a hidden card planted anywhere in a real message is found."""
    settings = LaunchSettings(in_process=True)
    spec = find_game("gin-rummy/standard")
    play_audited(
        audit,
        [host("random", settings), host("greedy", settings)],
        spec,
        games=1,
        seed=6,
        hands=True,
    )
    assert audit.samples
    for message, hidden in audit.samples:
        assert not cards_in(message) & hidden
        card = sorted(hidden)[0]
        for where in ("event", "legal action", "known cards", "table", "knocker unmatched"):
            planted = pb.RefereeMessage()
            planted.CopyFrom(message)
            plant(planted, where, card)
            assert cards_in(planted) & hidden == {card}, where
    start = pb.RefereeMessage(match_start=pb.MatchStart(rules={"name": "QS", "target": "100"}))
    assert cards_in(start) == {"QS"}  # a map's values are strings too
    start.match_start.seed_commitment = b"\x00&3C\x7f"  # random bytes that spell a card
    assert cards_in(start) == {"QS"}
    notice = pb.RefereeMessage(notice=pb.Notice(text="the referee played discard 7H for you"))
    assert cards_in(notice) == {"7H"}
    assert cards_in(pb.RefereeMessage(notice=pb.Notice(text="KIND_DISCARD 10 AC2 xTH"))) == set()
