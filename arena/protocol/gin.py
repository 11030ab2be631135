"""Gin Rummy <-> protocol messages, and the table the referee drives a Gin game through."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from arena.cards import ALL_CARDS, Card, CardSet, InvalidMeldError
from arena.games.base import IllegalActionError
from arena.games.gin_rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Defend,
    Discard,
    Draw,
    EventKind,
    GinGame,
    GinObservation,
    GinRules,
    HandResult,
    Knock,
    KnockInfo,
    Pass,
    Phase,
    PublicEvent,
    VisibleState,
    discard,
    parse_action,
)
from arena.proto import bot_pb2 as pb
from arena.protocol.common import (
    ProtocolError,
    card_from_text,
    cards_from_texts,
    cards_to_texts,
    layoff_from_proto,
    layoff_to_proto,
    meld_from_proto,
    melds_to_proto,
)
from arena.protocol.table import Table
from arena.protocol.wire import CardField, int_field, message_field, string_field

__all__ = [
    "GinTable",
    "action_from_proto",
    "action_to_proto",
    "event_from_proto",
    "hand_result_record",
    "new_table",
    "observation_from_proto",
    "observation_to_proto",
    "parse_action",
    "rules_map",
]

_PHASES = {
    Phase.FIRST_UPCARD: pb.PHASE_FIRST_UPCARD,
    Phase.DRAW: pb.PHASE_DRAW,
    Phase.DISCARD: pb.PHASE_DISCARD,
    Phase.DEFEND: pb.PHASE_DEFEND,
    Phase.LAST_DISCARD: pb.PHASE_LAST_DISCARD,
    Phase.OVER: pb.PHASE_OVER,
}
_PHASES_BACK = {value: key for key, value in _PHASES.items()}
_EVENTS = {
    EventKind.UPCARD: pb.Event.KIND_UPCARD,
    EventKind.PASS: pb.Event.KIND_PASS,
    EventKind.DRAW_STOCK: pb.Event.KIND_DRAW_STOCK,
    EventKind.DRAW_DISCARD: pb.Event.KIND_DRAW_DISCARD,
    EventKind.DISCARD: pb.Event.KIND_DISCARD,
    EventKind.KNOCK: pb.Event.KIND_KNOCK,
    EventKind.DEFEND: pb.Event.KIND_DEFEND,
    EventKind.HAND_OVER: pb.Event.KIND_HAND_OVER,
}
_EVENTS_BACK = {value: key for key, value in _EVENTS.items()}


def rules_map(rules: GinRules) -> dict[str, str]:
    """Every rule parameter as text (``MatchStart.rules``)."""
    out: dict[str, str] = {}
    for field in fields(rules):
        value = getattr(rules, field.name)
        out[field.name] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


# ---------------------------------------------------------------- actions --

_DRAW_STOCK_PB = pb.Action(draw=pb.Draw(source=pb.Draw.SOURCE_STOCK))
_DRAW_DISCARD_PB = pb.Action(draw=pb.Draw(source=pb.Draw.SOURCE_DISCARD))
_PASS_PB = pb.Action(**{"pass": pb.Pass()})  # "pass" is a Python keyword
_DISCARD_PB: dict[int, pb.Action] = {}  # card index -> message, built on first use


def action_to_proto(action: Action) -> pb.Action:
    if isinstance(action, Discard):
        message = _DISCARD_PB.get(action.card.index)
        if message is None:
            message = _DISCARD_PB[action.card.index] = pb.Action(
                discard=pb.Discard(card=str(action.card))
            )
        return message
    if isinstance(action, Draw):
        return _DRAW_STOCK_PB if action == DRAW_STOCK else _DRAW_DISCARD_PB
    if isinstance(action, Pass):
        return _PASS_PB
    if isinstance(action, Knock):
        return pb.Action(knock=pb.Knock(card=str(action.card), melds=melds_to_proto(action.melds)))
    return pb.Action(
        defend=pb.Defend(
            melds=melds_to_proto(action.melds),
            layoffs=[layoff_to_proto(layoff) for layoff in action.layoffs],
        )
    )


def action_from_proto(message: pb.Action) -> Action:
    """A bot's action.  ``ProtocolError`` if malformed, ``IllegalActionError`` if no meld."""
    kind = message.WhichOneof("kind")
    try:
        if kind == "draw":
            if message.draw.source == pb.Draw.SOURCE_STOCK:
                return DRAW_STOCK
            if message.draw.source == pb.Draw.SOURCE_DISCARD:
                return DRAW_DISCARD
            raise ProtocolError("draw: source must be SOURCE_STOCK or SOURCE_DISCARD")
        if kind == "pass":
            return PASS
        if kind == "discard":
            return discard(card_from_text(message.discard.card, "discard.card"))
        if kind == "knock":
            return Knock(
                card_from_text(message.knock.card, "knock.card"),
                tuple(meld_from_proto(meld, "knock.melds") for meld in message.knock.melds),
            )
        if kind == "defend":
            return Defend(
                tuple(meld_from_proto(meld, "defend.melds") for meld in message.defend.melds),
                tuple(
                    layoff_from_proto(layoff, "defend.layoffs") for layoff in message.defend.layoffs
                ),
            )
    except InvalidMeldError as error:
        raise IllegalActionError(str(error), "rule 4/5: melds are sets or runs") from error
    if kind is None:
        raise ProtocolError("action: no action set")
    raise ProtocolError(f"action: {kind} is not a Gin Rummy action")


# ------------------------------------------------------------ observations --


_HAND = CardField(9)  # Observation.hand
_DISCARD_PILE = CardField(10)  # Observation.discard_pile
_KNOWN = CardField(2)  # SeatView.known_cards
_UNMATCHED = CardField(4)  # GinView.knocker_unmatched

# The small fields of an observation, ready-made: a request is built every decision.
_SEAT = (int_field(2, 0), int_field(2, 1))  # Observation.seat
_NUM_SEATS = int_field(3, 2)  # Observation.num_seats
_DEALER = (int_field(4, 0), int_field(4, 1))  # Observation.dealer
_PHASE = {phase: int_field(5, code) for phase, code in _PHASES.items()}  # Observation.phase
_TO_ACT = {None: int_field(6, -1), 0: int_field(6, 0), 1: int_field(6, 1)}  # Observation.to_act
_STOCK_SIZE = tuple(int_field(11, size) for size in range(53))  # Observation.stock_size
_HAND_SIZE = tuple(int_field(1, size) for size in range(53))  # SeatView.hand_size
_NO_KNOCKER = int_field(3, -1)  # GinView.knocker
# Observation.forbidden_discard, by card index
_FORBIDDEN = tuple(string_field(14, str(card)) for card in ALL_CARDS)


class _PileField:
    """``Observation.discard_pile``, remembered from one request to the next: the
    pile changes by a card on top at most, and re-encoding it whole is the dearest
    part of an observation late in a hand."""

    __slots__ = ("_cards", "_data")

    def __init__(self) -> None:
        self._cards: tuple[Card, ...] = ()
        self._data = b""

    def of(self, pile: tuple[Card, ...]) -> bytes:
        cards = self._cards
        if pile != cards:  # identical cards: a C-level scan, cheap
            size = len(cards)
            if len(pile) == size + 1 and pile[:size] == cards:
                self._data += _DISCARD_PILE.of_cards(pile[size:])
            elif len(pile) == size - 1 and pile == cards[: size - 1]:
                self._data = self._data[: -len(_DISCARD_PILE.of_cards(cards[size - 1 :]))]
            else:
                self._data = _DISCARD_PILE.of_cards(pile)
            self._cards = pile
        return self._data


class _SeatEncoder:
    """Encodes one seat's observations during one hand.  What stays all hand (the
    game and seat, the dealer, scores, the knock limit) is encoded once; each
    decision adds only what a ``VisibleState`` holds."""

    __slots__ = ("_first", "_gin", "_head", "_limits", "_middle", "_pile", "_scores", "_seats")

    def __init__(
        self,
        game_id: bytes,
        game_number: int,
        seat: int,
        dealer: int,
        hand_number: int,
        scores: tuple[int, int],
        knock_limit: int,
        doubled: bool,
        pile: _PileField,
    ) -> None:
        self._first = seat == 0  # Observation.seats lists seat 0 first
        self._head = game_id + _SEAT[seat] + _NUM_SEATS + _DEALER[dealer]
        self._middle = int_field(7, game_number) + int_field(8, hand_number)
        self._scores = (int_field(3, scores[seat]), int_field(3, scores[1 - seat]))
        self._limits = int_field(1, knock_limit) + int_field(2, doubled)
        self._gin = message_field(15, self._limits + _NO_KNOCKER)  # until someone knocks
        self._pile = pile  # shared by both seats: the pile is public
        # Observation.seats by (own size, own known, other size, other known): a
        # handful a hand, as sizes go 10, 11, 10 and known cards change only when
        # one is taken from the discard pile or let go again.
        self._seats: dict[tuple[int, int, int, int], bytes] = {}

    def encode(self, view: VisibleState) -> bytes:
        """The observation, serialized."""
        phase, to_act, hand, pile, stock, other_size, other_known, own_known, forbidden, knock = (
            view
        )
        key = (hand.bit_count(), own_known, other_size, other_known)
        seats = self._seats.get(key)
        if seats is None:
            seats = self._seats[key] = self._seat_fields(*key)
        if knock is None:
            table = b""
            gin = self._gin
        else:
            table = b"".join(
                message_field(13, meld.SerializeToString())
                for meld in melds_to_proto(knock.melds, knock.seat)
            )
            unmatched = _UNMATCHED.of_mask(knock.unmatched.mask)
            gin = message_field(15, self._limits + int_field(3, knock.seat) + unmatched)
        return b"".join(
            (
                self._head,
                _PHASE[phase],
                _TO_ACT[to_act],
                self._middle,
                _HAND.of_mask(hand),
                self._pile.of(pile),
                _STOCK_SIZE[stock],
                seats,
                table,
                b"" if forbidden is None else _FORBIDDEN[forbidden.index],
                gin,
            )
        )

    def _seat_fields(
        self, own_size: int, own_known: int, other_size: int, other_known: int
    ) -> bytes:
        """Both ``Observation.seats`` entries, seat 0 first."""
        own_score, other_score = self._scores
        own = message_field(12, _HAND_SIZE[own_size] + _KNOWN.of_mask(own_known) + own_score)
        other = message_field(
            12, _HAND_SIZE[other_size] + _KNOWN.of_mask(other_known) + other_score
        )
        return own + other if self._first else other + own


def observation_bytes(observation: GinObservation, game_id: bytes, game_number: int) -> bytes:
    """The observation, serialized (``game_id`` already as its field: see ``string_field``)."""
    encoder = _SeatEncoder(
        game_id,
        game_number,
        observation.seat,
        observation.dealer,
        observation.hand_number,
        observation.scores,
        observation.knock_limit,
        observation.doubled,
        _PileField(),
    )
    view = VisibleState(
        observation.phase,
        observation.to_act,
        observation.hand.mask,
        observation.discard_pile,
        observation.stock_size,
        observation.opponent_hand_size,
        observation.opponent_known.mask,
        observation.own_known.mask,
        observation.forbidden_discard,
        observation.knock,
    )
    return encoder.encode(view)


def observation_to_proto(
    observation: GinObservation, game_id: str, game_number: int
) -> pb.Observation:
    """The observation as a message (the referee sends ``observation_bytes`` directly)."""
    message = pb.Observation()
    message.ParseFromString(observation_bytes(observation, string_field(1, game_id), game_number))
    return message


def observation_from_proto(message: pb.Observation) -> GinObservation:
    """The domain observation back from its message (what the Python SDK hands a bot)."""
    seat = message.seat
    other = 1 - seat
    knock = None
    if message.gin.knocker >= 0:
        knock = KnockInfo(
            message.gin.knocker,
            tuple(meld_from_proto(meld, "observation.table") for meld in message.table),
            cards_from_texts(message.gin.knocker_unmatched, "observation.gin.knocker_unmatched"),
        )
    forbidden: Card | None = None
    if message.forbidden_discard:
        forbidden = card_from_text(message.forbidden_discard, "observation.forbidden_discard")
    return GinObservation(
        seat=seat,
        dealer=message.dealer,
        phase=_PHASES_BACK[message.phase],
        to_act=None if message.to_act < 0 else message.to_act,
        hand=cards_from_texts(message.hand, "observation.hand"),
        discard_pile=tuple(
            card_from_text(text, "observation.discard_pile") for text in message.discard_pile
        ),
        stock_size=message.stock_size,
        opponent_hand_size=message.seats[other].hand_size,
        opponent_known=cards_from_texts(message.seats[other].known_cards, "observation.seats"),
        own_known=cards_from_texts(message.seats[seat].known_cards, "observation.seats"),
        knock_limit=message.gin.knock_limit,
        doubled=message.gin.doubled,
        forbidden_discard=forbidden,
        knock=knock,
        scores=(message.seats[0].score, message.seats[1].score),
        hand_number=message.hand_number,
    )


# The events without melds (a draw, a discard, a pass...), encoded once: the engine
# makes each of them once, so they are known by id.  An entry keeps its event, so
# the id cannot pass to another object; the bound keeps events made elsewhere from
# piling up.
_EVENT_FIELDS: dict[int, tuple[PublicEvent, bytes]] = {}
_EVENT_FIELDS_BOUND = 4096


def event_to_proto(event: PublicEvent) -> pb.Event:
    message = pb.Event(kind=_EVENTS[event.kind], seat=-1 if event.seat is None else event.seat)
    if event.card is not None:
        message.card = str(event.card)
    if event.melds:
        message.melds.extend(melds_to_proto(event.melds, -1 if event.seat is None else event.seat))
    if event.cards:
        message.cards.extend(cards_to_texts(event.cards))
    if event.layoffs:
        message.layoffs.extend(layoff_to_proto(layoff) for layoff in event.layoffs)
    return message


def event_from_proto(message: pb.Event) -> PublicEvent:
    """The engine's event of an ``Event`` message (what the SDK gives a bot)."""
    kind = _EVENTS_BACK.get(message.kind)
    if kind is None:
        raise ProtocolError(f"event.kind: not a Gin Rummy event ({message.kind})")
    return PublicEvent(
        kind,
        None if message.seat < 0 else message.seat,
        card_from_text(message.card, "event.card") if message.card else None,
        tuple(meld_from_proto(meld, "event.melds") for meld in message.melds),
        cards_from_texts(message.cards, "event.cards"),
        tuple(layoff_from_proto(layoff, "event.layoffs") for layoff in message.layoffs),
    )


# ---------------------------------------------------------------- results --


def hand_result_to_proto(
    result: HandResult, game_number: int, hand_number: int, scores: tuple[int, int]
) -> pb.HandEnd:
    return pb.HandEnd(
        game_number=game_number,
        hand_number=hand_number,
        termination=result.termination.value,
        winner=-1 if result.winner is None else result.winner,
        seats=[
            pb.SeatReveal(
                hand=cards_to_texts(seat.hand),
                melds=melds_to_proto(seat.melds, index),
                layoffs=[layoff_to_proto(layoff) for layoff in seat.layoffs],
                unmatched=cards_to_texts(seat.unmatched),
                deadwood=seat.deadwood,
                points=seat.points,
            )
            for index, seat in enumerate(result.seats)
        ],
        scores=list(scores),
        knock_discard="" if result.knock_discard is None else str(result.knock_discard),
    )


def hand_result_record(result: HandResult) -> dict[str, Any]:
    """A hand result as plain JSON for replays."""
    return {
        "termination": result.termination.value,
        "winner": result.winner,
        "knocker": result.knocker,
        "points": result.points,
        "knock_limit": result.knock_limit,
        "doubled": result.doubled,
        "knock_discard": None if result.knock_discard is None else str(result.knock_discard),
        "seats": [
            {
                "hand": str(seat.hand),
                "melds": [str(meld) for meld in seat.melds],
                "layoffs": [str(layoff) for layoff in seat.layoffs],
                "unmatched": str(seat.unmatched),
                "deadwood": seat.deadwood,
                "points": seat.points,
            }
            for seat in result.seats
        ],
    }


# ------------------------------------------------------------------ table --


class GinTable(Table):
    """A Gin Rummy game as the referee sees it."""

    family = "gin-rummy"
    game: GinGame

    def __init__(self, game_id: str, game: GinGame) -> None:
        super().__init__(game_id, game)
        self._game_id_field = string_field(1, game_id)
        self._encoders: tuple[object, int, list[_SeatEncoder]] = (None, 0, [])  # for which hand

    def observation_bytes(self, seat: int, game_number: int) -> bytes:
        hand = self.game.hand
        if self._encoders[0] is not hand or self._encoders[1] != game_number:
            pile = _PileField()
            self._encoders = (
                hand,
                game_number,
                [
                    _SeatEncoder(
                        self._game_id_field,
                        game_number,
                        index,
                        hand.dealer,
                        hand.hand_number,
                        hand.scores,
                        hand.knock_limit,
                        hand.doubled,
                        pile,
                    )
                    for index in (0, 1)
                ],
            )
        return self._encoders[2][seat].encode(hand.visible(seat))

    def observation_to_proto(
        self, observation: GinObservation, game_number: int, out: pb.Observation
    ) -> None:
        out.ParseFromString(observation_bytes(observation, self._game_id_field, game_number))

    def event_to_proto(self, event: PublicEvent) -> pb.Event:
        return event_to_proto(event)

    def event_field(self, event: PublicEvent) -> bytes:
        known = _EVENT_FIELDS.get(id(event))
        if known is not None:
            return known[1]
        field = super().event_field(event)
        simple = not (event.melds or event.cards or event.layoffs)  # not a knock or defence
        if simple and len(_EVENT_FIELDS) < _EVENT_FIELDS_BOUND:
            _EVENT_FIELDS[id(event)] = (event, field)
        return field

    def action_to_proto(self, action: Action) -> pb.Action:
        return action_to_proto(action)

    def action_from_proto(self, message: pb.Action) -> Action:
        return action_from_proto(message)

    def hand_end(
        self, result: HandResult, game_number: int, hand_number: int, totals: list[int]
    ) -> pb.HandEnd:
        return hand_result_to_proto(result, game_number, hand_number, (totals[0], totals[1]))

    def hand_record(self, result: HandResult) -> dict[str, Any]:
        return hand_result_record(result)

    def scores(self) -> tuple[int, int]:
        """Game totals so far (what a forfeited game is recorded with)."""
        return (self.game.totals[0], self.game.totals[1])

    def end_reason(self) -> str:
        if self.game.single_hand:
            return f"hand: {self.game.results[-1].termination.value}"
        summary = self.game.summary
        assert summary is not None
        reached = any(total >= self.game.rules.target for total in summary.totals)
        return "target" if reached else "deal limit"

    def hidden_cards(self, seat: int) -> CardSet:
        """Cards ``seat`` must not be told about now: the stock, the face-down knock
        discard, and the opponent's cards except those seen taken or laid down."""
        hand = self.game.hand
        locations = hand.card_locations()
        observation = hand.observation(seat)
        shown = observation.opponent_known
        if observation.knock is not None and observation.knock.seat != seat:
            for meld in observation.knock.melds:
                shown = shown | meld.cards
            shown = shown | observation.knock.unmatched
        opponent = locations[f"hand{1 - seat}"] - shown
        return opponent | locations["stock"] | locations["knock_discard"]


def new_table(game_id: str, game: GinGame) -> GinTable:
    return GinTable(game_id, game)
