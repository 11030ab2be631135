"""One seat's view of a replay: the games re-played through the engine, shown as that
seat saw them.

At each of the seat's decisions: its hand, the discard pile, the stock, what it
knows of the other hands, the melds on the table (all from the observation the
referee sent it), then what it chose, how long it took and its comment.  Between
its decisions: the public events, as every seat saw them (a stock draw without its
card, except the seat's own).  Hand ends show the reveal every seat is sent.

Everything goes through the game's ``Table`` and protocol messages, so any game
with a table works; only ``_game_details`` knows a game's own observation fields.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games.registry import find_game
from arena.proto import bot_pb2 as pb
from arena.protocol.table import Table
from arena.replays.engine import Disagreement, EngineReplay, FinishedHand, GameLookup, game_of
from arena.replays.files import ReplayError, read_replay
from arena.replays.records import (
    ActionRecord,
    DealRecord,
    FaultRecordLine,
    GameEndRecord,
    GameStartRecord,
    HandEndRecord,
    MatchEndRecord,
    MatchHeader,
    Record,
)

__all__ = [
    "Deal",
    "SelectionError",
    "check_selection",
    "dealt_hands",
    "decision_lines",
    "event_text",
    "seat_labels",
    "seat_view",
]

_KIND = pb.Event.Kind


class SelectionError(ReplayError):
    """A seat, game or hand the replay does not have."""


def seat_labels(names: Sequence[str]) -> list[str]:
    """What the text views call each seat: its bot's name, told apart by seat where a bot
    plays more than one (``random#1``, ``random#2``; ``#`` is in no bot's name)."""
    return [f"{name}#{seat}" if names.count(name) > 1 else name for seat, name in enumerate(names)]


def _span(values: Sequence[int]) -> str:
    if not values:
        return "none"
    ordered = sorted(set(values))
    if ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}-{ordered[-1]}" if len(ordered) > 1 else str(ordered[0])
    return ", ".join(str(value) for value in ordered)


def check_selection(
    path: Path,
    records: Sequence[Record],
    seat: int | None,
    game: int | None,
    hand: int | None,
) -> None:
    """``SelectionError`` (one line) unless the replay has that seat, game and hand.

    ``game`` and ``hand`` count from 0, as the records do; the messages count games
    and hands from 1, as every listing shows them (``arena play``, ``arena replay``)."""
    header = records[0]
    seats = len(header.players) if isinstance(header, MatchHeader) else 0
    if seat is not None and not 0 <= seat < seats:
        raise SelectionError(f"--seat {seat}: {path} has seats {_span(range(seats))}")
    games = [record.game for record in records if isinstance(record, GameStartRecord)]
    if game is not None and game not in games:
        raise SelectionError(f"--game {game + 1}: {path} has games {_span([g + 1 for g in games])}")
    if hand is not None:
        deals = [
            record.hand + 1
            for record in records
            if isinstance(record, DealRecord) and (game is None or record.game == game)
        ]
        if hand + 1 not in deals:
            where = f"game {game + 1}" if game is not None else "no game of the replay"
            has = f"has hands {_span(deals)}" if game is not None else f"has a hand {hand + 1}"
            raise SelectionError(f"--hand {hand + 1}: {where} {has} ({path})")


def seat_view(
    path: Path,
    seat: int,
    *,
    game: int | None = None,
    hand: int | None = None,
    find: GameLookup = find_game,
) -> Iterator[str]:
    """The lines of ``seat``'s view of the replay at ``path`` (only game ``game``,
    only hand ``hand`` of each game, when given).  ``SelectionError`` for a seat, game
    or hand the replay lacks; ``ReplayError`` when the engine disagrees with it."""
    replay = read_replay(path)
    records, header = replay.records, replay.header
    check_selection(path, records, seat, game, hand)
    spec = game_of(header, find, f"{path}:1: ")
    view = _View(path, header, spec, seat, game, hand)
    yield from view.header()
    for line, record in enumerate(records[1:], start=2):
        yield from view.record(line, record)


@dataclass(frozen=True)
class Deal:
    """A deal as the engine made it: each seat's cards (by seat) and the upcard."""

    hands: list[list[str]]
    upcard: str


def dealt_hands(
    records: Sequence[Record], find: GameLookup = find_game
) -> dict[tuple[int, int], Deal]:
    """Every deal of the replay by (game, hand), from re-playing it through the engine.
    A game stops at its first action the engine refuses (``--verify`` says why)."""
    header = records[0]
    if not isinstance(header, MatchHeader):
        return {}
    try:
        spec = find(header.game_id)
    except LookupError:
        return {}
    engine = EngineReplay(spec, header)
    seats = len(header.players)
    deals: dict[tuple[int, int], Deal] = {}
    for line, record in enumerate(records[1:], start=2):
        try:
            engine.feed(line, record)
        except Disagreement:
            continue  # a game without its seed yet (a match still going on), or refused
        table, number = engine.table, engine.game
        if table is not None and isinstance(record, DealRecord):
            upcard = table.event_to_proto(table.game.hand.events[0]).card
            hands = [list(table.hand_start(seat, number).hand) for seat in range(seats)]
            deals[number, table.hand_number] = Deal(hands, upcard)
    return deals


class _View:
    def __init__(
        self,
        path: Path,
        header: MatchHeader,
        spec: Any,
        seat: int,
        game: int | None,
        hand: int | None,
    ) -> None:
        self.path = path
        self.header_record = header
        self.engine = EngineReplay(spec, header)
        self.seat = seat
        self.only_game = game
        self.only_hand = hand
        names = [player["name"] for player in header.players]
        self.labels = [
            "you" if index == seat else label for index, label in enumerate(seat_labels(names))
        ]
        self.number = -1  # the game being re-played
        self.hand: Any = None  # the engine's hand being shown (kept after it ends)
        self.shown = False  # is the current hand selected?
        self.printed = 0  # events of ``self.hand`` already shown
        self.holding: Counter[str] = Counter()  # the seat's cards, as last seen
        self.ends: list[pb.HandEnd] = []  # hand results the engine produced, not yet shown
        self.request_id = 0
        self.faults: list[str] = []  # the seat's fault lines not shown yet

    def who(self, seat: int) -> str:
        return self.labels[seat] if 0 <= seat < len(self.labels) else f"seat {seat}"

    def header(self) -> Iterator[str]:
        record = self.header_record
        players = ", ".join(
            f"seat {index}: {player['name']} {player['version']}"
            for index, player in enumerate(record.players)
        )
        seed = "not revealed" if record.seed is None else record.seed
        yield f"match {record.match_id}: {record.game_id}, seed {seed}, {record.games} game{'' if record.games == 1 else 's'}"
        yield f"  {players}"
        yield f"  the view of seat {self.seat} ({record.players[self.seat]['name']})"

    # -- records ----------------------------------------------------------------------

    def record(self, line: int, record: Record) -> Iterator[str]:
        if self.faults and not (isinstance(record, ActionRecord) and record.seat == self.seat):
            yield from self.faults  # no replacement follows: the seat forfeited
            self.faults = []
        if isinstance(record, GameStartRecord):
            yield from self.start_game(line, record)
        elif isinstance(record, FaultRecordLine):
            if record.seat == self.seat and (self.shown or record.game < 0):
                # Shown after the decision it concerns, when a replacement follows.
                self.faults.append(
                    f"      FAULT (you): {record.status}: {record.reason} -> {record.consequence}"
                )
        elif isinstance(record, MatchEndRecord):
            if self.only_game is None and self.only_hand is None:
                yield ""
                yield self.match_end(record)
        elif self.table is None:
            return
        elif isinstance(record, DealRecord):
            yield from self.deal(line, record)
        elif isinstance(record, ActionRecord):
            yield from self.action(line, record)
        elif isinstance(record, HandEndRecord):
            if self.ends:
                end = self.ends.pop(0)
                if self.shown:
                    yield from self.hand_end(end)
        elif isinstance(record, GameEndRecord):
            winner = "nobody" if record.winner is None else self.who(record.winner)
            if self.only_hand is None or self.shown:
                yield f"game {record.game + 1} over ({record.reason}): scores {list(record.scores)}, winner {winner}"
            self.engine.table = None

    @property
    def live_table(self) -> Table:
        table = self.engine.table
        assert table is not None  # asked only inside a game the walk follows
        return table

    @property
    def table(self) -> Table | None:
        """The game being re-played; None while skipping a game that is not selected."""
        return self.engine.table

    def feed(self, line: int, record: Record, follow: bool = True) -> list[FinishedHand]:
        try:
            return self.engine.feed(line, record, follow=follow)
        except Disagreement as problem:
            raise self.disagree(line, problem.message) from None

    def start_game(self, line: int, record: GameStartRecord) -> Iterator[str]:
        self.number = record.game
        self.shown = False
        selected = self.only_game is None or self.number == self.only_game
        self.feed(line, record, follow=selected)
        if not selected:
            return
        self.ends = []
        yield ""
        yield f"game {self.number + 1} (seed {record.seed})"

    def deal(self, line: int, record: DealRecord) -> Iterator[str]:
        self.feed(line, record)
        table = self.table
        assert table is not None
        self.hand = table.game.hand
        self.printed = 0
        self.shown = self.only_hand is None or record.hand == self.only_hand
        start = table.hand_start(self.seat, self.number)
        self.holding = Counter(start.hand)
        if self.shown:
            scores = "-".join(str(score) for score in start.scores)
            dealt = " ".join(start.hand) or "no cards (out of the game)"
            yield f"  hand {record.hand + 1}: {self.who(start.dealer)} deal{'' if start.dealer == self.seat else 's'}; scores {scores}"
            yield f"    you are dealt {dealt}"
            yield from self.events(acting=None)

    def action(self, line: int, record: ActionRecord) -> Iterator[str]:
        table = self.table
        assert table is not None
        actor = record.seat
        if table.current_seat() != actor:  # before the seat's request is built from it
            raise self.disagree(
                line, f"seat {actor} acts, but the engine waits for seat {table.current_seat()}"
            )
        request: pb.DecisionRequest | None = None
        if actor == self.seat:
            self.request_id += 1
            request = table.decision(self.seat, self.number, self.request_id).decision
            if self.shown:
                yield from self.decision(request)
            yield from self.faults
            self.faults = []
        self.ends += [hand.end for hand in self.feed(line, record)]
        before, self.holding = self.holding, self.current_holding()
        gained = self.holding - before
        if request is not None and self.shown:
            flag = (
                " (played by the referee: the bot's reply was refused)" if record.replaced else ""
            )
            got = f" (+{' '.join(sorted(gained.elements()))})" if gained else ""
            comment = f"  # {record.comment}" if record.comment else ""
            yield f"      -> {record.action}{got}{flag}  [{record.ms:.2f} ms]{comment}"
        if self.shown:
            yield from self.events(acting=actor, gained=gained)

    # -- pieces -------------------------------------------------------------------------

    def current_holding(self) -> Counter[str]:
        message = pb.Observation()
        self.live_table.observation_to_proto(self.hand.observation(self.seat), self.number, message)
        return Counter(message.hand)

    def events(self, acting: int | None, gained: Counter[str] | None = None) -> Iterator[str]:
        """The hand's events since the last look; the acting seat's own events are its
        chosen action, already shown when that seat is this one."""
        new = self.hand.events[self.printed :]
        self.printed = len(self.hand.events)
        for event in new:
            message = self.live_table.event_to_proto(event)
            if message.kind == _KIND.KIND_HAND_OVER:
                continue  # the hand end follows, with the reveal
            if acting == self.seat and message.seat == self.seat:
                continue
            text = event_text(message, self.who)
            if message.kind == _KIND.KIND_DRAW_STOCK and message.seat == self.seat and gained:
                text += f": {' '.join(sorted(gained.elements()))}"
            yield f"    {text}"

    def decision(self, request: pb.DecisionRequest) -> Iterator[str]:
        yield from decision_lines(request, self.seat, self.who)

    def hand_end(self, end: pb.HandEnd) -> Iterator[str]:
        winner = f", won by {self.who(end.winner)}" if end.winner >= 0 else ", no winner"
        yield f"  hand {end.hand_number + 1} ends: {end.termination}{winner}"
        for index, seat in enumerate(end.seats):
            melds = " ".join("-".join(meld.cards) for meld in seat.melds) or "-"
            layoffs = " ".join(f"{layoff.card}>{layoff.meld_id}" for layoff in seat.layoffs)
            left = " ".join(seat.unmatched) or "-"
            yield (
                f"    {self.who(index):>12}: melds {melds}; left {left} = {seat.deadwood}"
                + (f"; layoffs {layoffs}" if layoffs else "")
                + f"; {seat.points} point{'s' if seat.points != 1 else ''}"
            )
        yield f"    totals {'-'.join(str(score) for score in end.scores)}"

    def match_end(self, record: MatchEndRecord) -> str:
        bots = record.result["bots"]
        return ", ".join(
            f"{self.who(index)}: {bot['wins']} wins, {bot['points']} points, {bot['faults']} faults"
            for index, bot in enumerate(bots)
        )

    def disagree(self, line: int, message: str) -> ReplayError:
        return ReplayError(
            f"{self.path}:{line}: game {self.number}: {message} (arena replay --verify lists every disagreement)"
        )


def decision_lines(request: pb.DecisionRequest, seat: int, who: Callable[[int], str]) -> list[str]:
    """A decision as the seat's view shows it (``arena replay --seat``, ``--ask``): the
    phase and hand, the pile and stock, the other seats, the game's own fields."""
    observation = request.observation
    phase = pb.Phase.Name(observation.phase).removeprefix("PHASE_").lower()
    hand = " ".join(observation.hand)
    lines = [f"    your turn ({phase}): {hand}  [{len(observation.hand)} cards]"]
    pile = observation.discard_pile
    top = f"top {pile[-1]} ({len(pile)} card{'s' if len(pile) != 1 else ''})" if pile else "empty"
    parts = [f"discard pile {top}", f"stock {observation.stock_size}"]
    for index, view in enumerate(observation.seats):
        if index == seat:
            continue
        known = " ".join(view.known_cards) or "-"
        out = ", out of the game" if view.eliminated else ""
        parts.append(f"{who(index)}: {view.hand_size} cards, known {known}{out}")
    lines.append("      " + "; ".join(parts))
    details = _game_details(observation, who)
    if observation.table:
        details.insert(0, "table " + "  ".join(_meld_text(meld, who) for meld in observation.table))
    if observation.forbidden_discard:
        details.append(f"may not discard {observation.forbidden_discard}")
    details.append(
        f"{len(request.legal_actions)} legal action{'s' if len(request.legal_actions) != 1 else ''}"
    )
    lines.append("      " + "; ".join(details))
    return lines


# -- text forms of protocol messages --------------------------------------------------------


def _cards(meld: pb.Meld) -> str:
    text = "-".join(meld.cards)
    return f"{text} (wild for {' '.join(meld.stands_for)})" if meld.stands_for else text


def _meld_text(meld: pb.Meld, who: Any) -> str:
    owner = f" ({who(meld.owner)})" if meld.owner >= 0 else ""
    return f"#{meld.id} {_cards(meld)}{owner}"


def event_text(event: pb.Event, who: Any) -> str:
    """One public event in words, ``who(seat)`` naming the seats (replays and ``arena play``)."""
    actor = who(event.seat)

    def does(verb: str) -> str:  # "greedy draws", "you draw"
        return f"{actor} {verb.removesuffix('s') if actor == 'you' else verb}"

    kind = event.kind
    melds = " ".join(f"#{meld.id} {_cards(meld)}" for meld in event.melds)
    if kind == _KIND.KIND_UPCARD:
        return f"upcard {event.card}"
    if kind == _KIND.KIND_PASS:
        return f"{actor} {'pass' if actor == 'you' else 'passes'}"
    if kind == _KIND.KIND_DRAW_STOCK:
        return f"{does('draws')} from the stock"
    if kind == _KIND.KIND_DRAW_DISCARD:
        return f"{does('takes')} {event.card} from the discard pile"
    if kind == _KIND.KIND_DISCARD:
        return f"{does('discards')} {event.card}"
    if kind in (_KIND.KIND_KNOCK, _KIND.KIND_DEFEND):
        verb = does("knocks") if kind == _KIND.KIND_KNOCK else f"{does('lays')} down"
        layoffs = " ".join(f"{layoff.card}>{layoff.meld_id}" for layoff in event.layoffs)
        text = f"{verb}: melds {melds or '-'}; unmatched {' '.join(event.cards) or '-'}"
        return text + (f"; layoffs {layoffs}" if layoffs else "")
    if kind == _KIND.KIND_LAY_MELD:
        return f"{does('lays')} down {melds}"
    if kind == _KIND.KIND_LAY_OFF:
        card = event.layoffs[0].card if event.layoffs else event.card
        return f"{does('lays')} off {card}: {melds}"
    if kind == _KIND.KIND_SWAP_JOKER:
        return f"{does('swaps')} {event.card} for {' '.join(event.cards)}: {melds}"
    if kind == _KIND.KIND_RESHUFFLE:
        return f"the discard pile becomes the stock; {event.card} stays up"
    return f"{actor}: {pb.Event.Kind.Name(kind).removeprefix('KIND_').lower()}"


def _game_details(observation: pb.Observation, who: Any) -> list[str]:
    """The game's own fields of an observation (the one game-specific piece)."""
    details: list[str] = []
    if observation.HasField("gin"):
        gin = observation.gin
        details.append(f"knock limit {gin.knock_limit}" + (", doubled" if gin.doubled else ""))
        if gin.knocker >= 0:
            unmatched = " ".join(gin.knocker_unmatched) or "none (gin)"
            details.append(f"{who(gin.knocker)} knocked, unmatched {unmatched}")
    if observation.HasField("rummy"):
        rummy = observation.rummy
        details.append(f"reshuffles {rummy.reshuffles}/{rummy.max_reshuffles}")
        if rummy.melded_this_hand:
            details.append("you have melded this hand")
    return details
