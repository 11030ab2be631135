"""Basic Rummy <-> protocol messages, and the table the referee drives a Rummy game through.

Wild cards: ``Meld.stands_for`` holds one natural card for each wild card in
``Meld.cards``, in order.  Which cards are wild depends on the rule set, which a
message does not carry, so the entries are matched to the cards without it: to
the jokers when there are as many entries as jokers, otherwise to the jokers and
deuces together (deuces wild, where every deuce names a card, itself if need be);
any other count is a ``ProtocolError``.

Duplicates: with two decks the same card text can occur twice in a hand, a pile
or a meld, so ``hidden_cards`` returns a multiset (``Counter`` of card texts).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import fields
from enum import Enum
from typing import Any

from arena.cards import Card
from arena.games.base import IllegalActionError
from arena.games.rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    JOKER,
    Action,
    Discard,
    Draw,
    EventKind,
    HandResult,
    LayMeld,
    LayOff,
    Phase,
    PublicEvent,
    RummyCard,
    RummyGame,
    RummyObservation,
    RummyRules,
    SeatInfo,
    SwapJoker,
    TableMeld,
    discard,
    parse_action,
    parse_card,
)
from arena.proto import bot_pb2 as pb
from arena.protocol.common import ProtocolError
from arena.protocol.table import Table

__all__ = [
    "RummyTable",
    "action_from_proto",
    "action_to_proto",
    "event_from_proto",
    "event_to_proto",
    "hand_result_record",
    "hand_result_to_proto",
    "new_table",
    "observation_from_proto",
    "observation_to_proto",
    "parse_action",
    "rules_map",
]

_PHASES = {Phase.DRAW: pb.PHASE_DRAW, Phase.PLAY: pb.PHASE_PLAY, Phase.OVER: pb.PHASE_OVER}
_PHASES_BACK = {value: key for key, value in _PHASES.items()}
_EVENTS = {
    EventKind.UPCARD: pb.Event.KIND_UPCARD,
    EventKind.DRAW_STOCK: pb.Event.KIND_DRAW_STOCK,
    EventKind.DRAW_DISCARD: pb.Event.KIND_DRAW_DISCARD,
    EventKind.LAY_MELD: pb.Event.KIND_LAY_MELD,
    EventKind.LAY_OFF: pb.Event.KIND_LAY_OFF,
    EventKind.SWAP_JOKER: pb.Event.KIND_SWAP_JOKER,
    EventKind.DISCARD: pb.Event.KIND_DISCARD,
    EventKind.RESHUFFLE: pb.Event.KIND_RESHUFFLE,
    EventKind.HAND_OVER: pb.Event.KIND_HAND_OVER,
}
_EVENTS_BACK = {value: key for key, value in _EVENTS.items()}
_RULE_MELD = (
    "rule 5: a meld is a set (3-4 of a rank, any suits) or a run (3+ consecutive cards of a suit)"
)


def rules_map(rules: RummyRules) -> dict[str, str]:
    """Every rule parameter as text (``MatchStart.rules``)."""
    out: dict[str, str] = {}
    for field in fields(rules):
        value = getattr(rules, field.name)
        if isinstance(value, Enum):
            out[field.name] = str(value.value)
        elif isinstance(value, bool):
            out[field.name] = str(value).lower()
        else:
            out[field.name] = str(value)
    return out


# ------------------------------------------------------------------ cards --


def card_from_text(text: str, where: str) -> RummyCard:
    try:
        return parse_card(text)
    except ValueError as error:
        raise ProtocolError(f"{where}: {error}") from error


def natural_from_text(text: str, where: str) -> Card:
    card = card_from_text(text, where)
    if not isinstance(card, Card):
        raise ProtocolError(f"{where}: a natural card is needed here, not {text!r}")
    return card


def cards_to_texts(cards: Iterable[RummyCard]) -> list[str]:
    return [str(card) for card in cards]


def cards_from_texts(texts: Iterable[str], where: str) -> tuple[RummyCard, ...]:
    """A multiset of cards, in face order."""
    return tuple(sorted((card_from_text(text, where) for text in texts), key=lambda c: c.index))


def _is_deuce(card: RummyCard) -> bool:
    return isinstance(card, Card) and card.rank == 1


def _align_stands_for(
    cards: Sequence[RummyCard], texts: Sequence[str], where: str
) -> tuple[Card | None, ...]:
    """Per-card ``stands_for`` from the wild-card-ordered list of a message."""
    out: list[Card | None] = [None] * len(cards)
    if not texts:
        return tuple(out)
    jokers = [i for i, card in enumerate(cards) if card is JOKER]
    targets = jokers
    if len(texts) != len(jokers):
        targets = [i for i, card in enumerate(cards) if card is JOKER or _is_deuce(card)]
        if len(texts) != len(targets):
            raise ProtocolError(
                f"{where}: {len(texts)} stands_for entries for {len(jokers)} jokers "
                f"and {len(targets) - len(jokers)} deuces"
            )
    for index, text in zip(targets, texts, strict=True):
        out[index] = natural_from_text(text, f"{where}.stands_for")
    return tuple(out)


def _stands_texts(stands_for: Iterable[Card | None]) -> list[str]:
    return [str(card) for card in stands_for if card is not None]


def meld_to_proto(meld: TableMeld) -> pb.Meld:
    return pb.Meld(
        cards=cards_to_texts(meld.cards),
        stands_for=_stands_texts(meld.stands_for),
        id=meld.id,
        owner=meld.owner,
    )


def meld_from_proto(message: pb.Meld, where: str) -> TableMeld:
    cards = tuple(card_from_text(text, f"{where}.cards") for text in message.cards)
    return TableMeld(
        message.id, message.owner, cards, _align_stands_for(cards, message.stands_for, where)
    )


# ---------------------------------------------------------------- actions --

_DRAW_STOCK_PB = pb.Action(draw=pb.Draw(source=pb.Draw.SOURCE_STOCK))
_DRAW_DISCARD_PB = pb.Action(draw=pb.Draw(source=pb.Draw.SOURCE_DISCARD))
_DISCARD_PB: dict[int, pb.Action] = {}  # face index -> message, built on first use


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
    if isinstance(action, LayMeld):
        return pb.Action(
            lay_meld=pb.LayMeld(
                meld=pb.Meld(
                    cards=cards_to_texts(action.cards), stands_for=_stands_texts(action.stands_for)
                )
            )
        )
    if isinstance(action, LayOff):
        layoff = pb.Layoff(card=str(action.card), meld_id=action.meld_id)
        if action.stands_for is not None:
            layoff.stands_for = str(action.stands_for)
        return pb.Action(lay_off=pb.LayOff(layoff=layoff))
    return pb.Action(swap_joker=pb.SwapJoker(card=str(action.card), meld_id=action.meld_id))


def _check_meld_shape(action: LayMeld) -> None:
    """What any rule set rejects: fewer than 3 cards, a joker standing for nothing,
    neither one rank nor one suit, a set of more than 4 or a run with a card twice
    (a set ignores suits, so with two decks 7H-7H-7S is one)."""
    if len(action.cards) < 3:
        raise IllegalActionError(f"cannot {action}: a meld has at least 3 cards", _RULE_MELD)
    naturals: list[Card] = []
    for card, stands in zip(action.cards, action.stands_for, strict=True):
        natural = stands if stands is not None else card
        if not isinstance(natural, Card):
            raise IllegalActionError(
                f"cannot {action}: say which card the joker stands for (JK=7H)",
                "rule 11: a wild card stands for one named natural card in a meld",
            )
        naturals.append(natural)
    if len({c.rank for c in naturals}) == 1:
        if len(naturals) > 4:
            raise IllegalActionError(f"cannot {action}: a set has at most 4 cards", _RULE_MELD)
        return
    if len({c.suit for c in naturals}) != 1:
        raise IllegalActionError(f"cannot {action}: neither one rank nor one suit", _RULE_MELD)
    if len(set(naturals)) != len(naturals):
        raise IllegalActionError(
            f"cannot {action}: two cards of a run are (or stand for) the same card", _RULE_MELD
        )


def action_from_proto(message: pb.Action) -> Action:
    """A bot's action.  ``ProtocolError`` if malformed; ``IllegalActionError`` for a
    meld no rule set allows (the engine checks the rest when it is played)."""
    kind = message.WhichOneof("kind")
    if kind == "draw":
        if message.draw.source == pb.Draw.SOURCE_STOCK:
            return DRAW_STOCK
        if message.draw.source == pb.Draw.SOURCE_DISCARD:
            return DRAW_DISCARD
        raise ProtocolError("draw: source must be SOURCE_STOCK or SOURCE_DISCARD")
    if kind == "discard":
        return discard(card_from_text(message.discard.card, "discard.card"))
    if kind == "lay_meld":
        meld = message.lay_meld.meld
        cards = tuple(card_from_text(text, "lay_meld.meld.cards") for text in meld.cards)
        action = LayMeld(cards, _align_stands_for(cards, meld.stands_for, "lay_meld.meld"))
        _check_meld_shape(action)
        return action
    if kind == "lay_off":
        layoff = message.lay_off.layoff
        stands = (
            natural_from_text(layoff.stands_for, "lay_off.layoff.stands_for")
            if layoff.stands_for
            else None
        )
        return LayOff(card_from_text(layoff.card, "lay_off.layoff.card"), layoff.meld_id, stands)
    if kind == "swap_joker":
        swap = message.swap_joker
        return SwapJoker(natural_from_text(swap.card, "swap_joker.card"), swap.meld_id)
    if kind is None:
        raise ProtocolError("action: no action set")
    raise ProtocolError(f"action: {kind} is not a Basic Rummy action")


# ------------------------------------------------------------ observations --


def observation_to_proto(
    observation: RummyObservation,
    game_id: str,
    game_number: int,
    out: pb.Observation | None = None,
) -> pb.Observation:
    """The observation as a message, filled into ``out`` if given (no copy)."""
    message = pb.Observation() if out is None else out
    message.game_id = game_id
    message.seat = observation.seat
    message.num_seats = observation.num_seats
    message.dealer = observation.dealer
    message.phase = _PHASES[observation.phase]
    message.to_act = -1 if observation.to_act is None else observation.to_act
    message.game_number = game_number
    message.hand_number = observation.hand_number
    message.hand.extend(cards_to_texts(observation.hand))
    message.discard_pile.extend(cards_to_texts(observation.discard_pile))
    message.stock_size = observation.stock_size
    for info in observation.seats:
        message.seats.add(
            hand_size=info.hand_size,
            known_cards=cards_to_texts(info.known),
            score=info.score,
            eliminated=info.eliminated,
        )
    message.table.extend(meld_to_proto(meld) for meld in observation.table)
    if observation.forbidden_discard is not None:
        message.forbidden_discard = str(observation.forbidden_discard)
    rummy = message.rummy
    rummy.reshuffles = observation.reshuffles
    rummy.max_reshuffles = observation.max_reshuffles
    rummy.melded_this_hand = observation.melded_this_hand
    return message


def observation_from_proto(message: pb.Observation) -> RummyObservation:
    """The domain observation back from its message (what the Python SDK hands a bot)."""
    if message.phase not in _PHASES_BACK:
        raise ProtocolError(f"observation.phase: {message.phase} is not a Basic Rummy phase")
    forbidden: RummyCard | None = None
    if message.forbidden_discard:
        forbidden = card_from_text(message.forbidden_discard, "observation.forbidden_discard")
    return RummyObservation(
        seat=message.seat,
        num_seats=message.num_seats,
        dealer=message.dealer,
        phase=_PHASES_BACK[message.phase],
        to_act=None if message.to_act < 0 else message.to_act,
        hand=cards_from_texts(message.hand, "observation.hand"),
        discard_pile=tuple(
            card_from_text(text, "observation.discard_pile") for text in message.discard_pile
        ),
        stock_size=message.stock_size,
        seats=tuple(
            SeatInfo(
                view.hand_size,
                cards_from_texts(view.known_cards, "observation.seats.known_cards"),
                view.score,
                view.eliminated,
            )
            for view in message.seats
        ),
        table=tuple(meld_from_proto(meld, "observation.table") for meld in message.table),
        forbidden_discard=forbidden,
        reshuffles=message.rummy.reshuffles,
        max_reshuffles=message.rummy.max_reshuffles,
        melded_this_hand=message.rummy.melded_this_hand,
        hand_number=message.hand_number,
    )


def event_to_proto(event: PublicEvent) -> pb.Event:
    """``LAY_MELD``: ``melds[0]`` is the new meld.  ``LAY_OFF``: ``layoffs[0]`` the
    layoff, ``melds[0]`` the meld after it.  ``SWAP_JOKER``: ``card`` the natural card
    given, ``cards[0]`` the wild card taken, ``melds[0]`` the meld after.
    ``RESHUFFLE``: ``card`` is the discard that stays on the pile."""
    message = pb.Event(kind=_EVENTS[event.kind], seat=-1 if event.seat is None else event.seat)
    if event.card is not None:
        message.card = str(event.card)
    if event.meld is not None:
        message.melds.append(meld_to_proto(event.meld))
    if event.kind is EventKind.LAY_OFF and event.card is not None and event.meld is not None:
        layoff = message.layoffs.add(card=str(event.card), meld_id=event.meld.id)
        if event.stands_for is not None:
            layoff.stands_for = str(event.stands_for)
    if event.wild is not None:
        message.cards.append(str(event.wild))
    return message


def event_from_proto(message: pb.Event) -> PublicEvent:
    """The engine's event of an ``Event`` message (what the SDK gives a bot)."""
    kind = _EVENTS_BACK.get(message.kind)
    if kind is None:
        raise ProtocolError(f"event.kind: not a Basic Rummy event ({message.kind})")
    stands_for = None
    if message.layoffs and message.layoffs[0].stands_for:
        stands_for = natural_from_text(message.layoffs[0].stands_for, "event.layoffs")
    return PublicEvent(
        kind,
        None if message.seat < 0 else message.seat,
        card_from_text(message.card, "event.card") if message.card else None,
        meld_from_proto(message.melds[0], "event.melds") if message.melds else None,
        stands_for,
        card_from_text(message.cards[0], "event.cards") if message.cards else None,
    )


# ---------------------------------------------------------------- results --


def _layoff_to_proto(layoff: LayOff) -> pb.Layoff:
    message = pb.Layoff(card=str(layoff.card), meld_id=layoff.meld_id)
    if layoff.stands_for is not None:
        message.stands_for = str(layoff.stands_for)
    return message


def hand_result_to_proto(
    result: HandResult, game_number: int, hand_number: int, scores: Sequence[int]
) -> pb.HandEnd:
    """``SeatReveal.deadwood`` is the penalty of the cards left in hand."""
    return pb.HandEnd(
        game_number=game_number,
        hand_number=hand_number,
        termination=result.termination.value,
        winner=result.winner,
        seats=[
            pb.SeatReveal(
                hand=cards_to_texts(seat.hand),
                melds=[meld_to_proto(meld) for meld in seat.melds],
                layoffs=[_layoff_to_proto(layoff) for layoff in seat.layoffs],
                unmatched=cards_to_texts(seat.hand),
                deadwood=seat.penalty,
                points=seat.points,
            )
            for seat in result.seats
        ],
        scores=list(scores),
    )


def hand_result_record(result: HandResult) -> dict[str, Any]:
    """A hand result as plain JSON for replays (lists, never tuples: it must compare
    equal to itself read back)."""
    return {
        "termination": result.termination.value,
        "winner": result.winner,
        "points": result.points,
        "doubled": result.doubled,
        "reshuffles": result.reshuffles,
        "turns": result.turns,
        "seats": [
            {
                "played": seat.played,
                "hand": " ".join(cards_to_texts(seat.hand)),
                "melds": [f"#{meld.id} {meld}" for meld in seat.melds],
                "layoffs": [str(layoff).removeprefix("layoff ") for layoff in seat.layoffs],
                "penalty": seat.penalty,
                "points": seat.points,
            }
            for seat in result.seats
        ],
    }


# ------------------------------------------------------------------ table --


class RummyTable(Table):
    """A Basic Rummy game as the referee sees it."""

    family = "rummy"
    game: RummyGame

    def observation_to_proto(
        self, observation: RummyObservation, game_number: int, out: pb.Observation
    ) -> None:
        observation_to_proto(observation, self.game_id, game_number, out)

    def event_to_proto(self, event: PublicEvent) -> pb.Event:
        return event_to_proto(event)

    def action_to_proto(self, action: Action) -> pb.Action:
        return action_to_proto(action)

    def action_from_proto(self, message: pb.Action) -> Action:
        return action_from_proto(message)

    def hand_end(
        self, result: HandResult, game_number: int, hand_number: int, totals: list[int]
    ) -> pb.HandEnd:
        return hand_result_to_proto(result, game_number, hand_number, totals)

    def hand_record(self, result: HandResult) -> dict[str, Any]:
        return hand_result_record(result)

    def card_texts(self, cards: Iterable[RummyCard]) -> list[str]:
        return cards_to_texts(cards)

    def scores(self) -> tuple[int, ...]:
        """The standing as "higher is better" points (what a forfeited game is recorded
        with): winner-takes-all totals, or negated penalty totals in standard scoring."""
        return self.game.points()

    def end_reason(self) -> str:
        summary = self.game.summary
        assert summary is not None
        return summary.reason.value

    def hidden_cards(self, seat: int) -> Counter[str]:
        """Cards ``seat`` must not be told about, as a multiset of card texts: the
        other seats' cards not known to be held, and the stock.

        With two decks a hidden card's text may also be visible elsewhere (its twin
        on the pile); for each text, what ``seat`` is shown plus this count is
        every copy in the deal.
        """
        hand = self.game.hand
        locations = hand.card_locations()
        observation = hand.observation(seat)
        hidden: Counter[str] = Counter(str(card) for card in locations["stock"])
        for other in range(hand.num_seats):
            if other == seat:
                continue
            held = Counter(str(card) for card in locations[f"hand{other}"])
            held.subtract(str(card) for card in observation.seats[other].known)
            hidden.update(+held)
        return hidden


def new_table(game_id: str, game: RummyGame) -> RummyTable:
    return RummyTable(game_id, game)
