"""What the referee drives a game through: the state plus the messages about it.

``Table`` holds what every game shares (whose turn, hand starts, decision
requests, hand results since the last look); each game's subclass supplies its
conversions.  The game is a ``PlayedGame`` (``arena.games.base``): ``current_seat``,
``legal_actions``, ``apply``, ``is_terminal`` and ``outcome`` (the table passes them
on as its own), ``hand`` (the current hand: ``events``, ``observation(seat)``,
``hand_of(seat)``, ``deck``, ``dealer``, ``scores``, ``hand_number``) and ``results``
(finished hands, each with ``seats[i].points``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from arena.games.base import Outcome, PlayedGame
from arena.proto import bot_pb2 as pb
from arena.protocol.common import cards_to_texts
from arena.protocol.wire import int_field, message_field, message_header

__all__ = ["Table"]

_DECISION_FIELD = pb.RefereeMessage.DESCRIPTOR.fields_by_name["decision"].number


class Table:
    family: ClassVar[str]

    def __init__(self, game_id: str, game: PlayedGame) -> None:
        self.game_id = game_id
        self.game = game
        # The game's own methods, bound once: the referee calls them every decision.
        self.current_seat: Callable[[], int | None] = game.current_seat
        self.legal_actions: Callable[[], Sequence[Any]] = game.legal_actions
        self.apply: Callable[[Any, int], None] = game.apply
        self.is_terminal: Callable[[], bool] = game.is_terminal
        self.outcome: Callable[[], Outcome] = game.outcome
        self._seen = [0] * game.num_seats  # per seat: events of the current hand it was sent
        self._hand: object = None  # the hand HandStart was last sent for
        self._event_fields: list[
            bytes
        ] = []  # the current hand's events, encoded once for all seats
        # Legal actions already encoded in this game, by id: hashing an action (a
        # dataclass) costs more than encoding most of them.  ``_encoded`` keeps each
        # action alive, so its id cannot pass to another object.
        self._action_fields: dict[int, bytes] = {}
        self._encoded: list[Any] = []
        self._reported = 0  # hand results already reported
        self._clock = ((0, 0), message_field(5, b""))  # the last clocks sent, as a field
        self.legal: Sequence[Any] = []  # the legal actions of the last decision request

    # -- each game's conversions ---------------------------------------------

    def observation_to_proto(self, observation: Any, game_number: int, out: pb.Observation) -> None:
        raise NotImplementedError

    def event_to_proto(self, event: Any) -> pb.Event:
        raise NotImplementedError

    def action_to_proto(self, action: Any) -> pb.Action:
        raise NotImplementedError

    def action_from_proto(self, message: pb.Action) -> Any:
        raise NotImplementedError

    def hand_end(
        self, result: Any, game_number: int, hand_number: int, totals: list[int]
    ) -> pb.HandEnd:
        raise NotImplementedError

    def hand_record(self, result: Any) -> dict[str, Any]:
        raise NotImplementedError

    def scores(self) -> tuple[int, ...]:
        """The standing as "higher is better" points (what a forfeited game records)."""
        raise NotImplementedError

    def end_reason(self) -> str:
        """Why the game ended (``GameEnd.reason``), once it is over."""
        raise NotImplementedError

    def observation_bytes(self, seat: int, game_number: int) -> bytes:
        """``seat``'s observation now, serialized (a game may encode it directly: see Gin)."""
        message = pb.Observation()
        self.observation_to_proto(self.game.hand.observation(seat), game_number, message)
        data: bytes = message.SerializeToString()
        return data

    def event_field(self, event: Any) -> bytes:
        """The event as ``DecisionRequest.events`` entry (a game may cache these: see Gin)."""
        return message_field(3, self.event_to_proto(event).SerializeToString())

    def card_texts(self, cards: Any) -> list[str]:
        """Text forms of the game's cards (a game with jokers overrides this)."""
        return cards_to_texts(cards)

    @staticmethod
    def format_action(action: Any) -> str:
        return str(action)

    # -- messages --------------------------------------------------------------

    def hand_started(self) -> bool:
        """True once per new hand (including the first): time to send HandStart."""
        if self.game.hand is self._hand:
            return False
        self._hand = self.game.hand
        self._seen = [0] * self.game.num_seats
        self._event_fields = []
        return True

    @property
    def hand_number(self) -> int:
        return self.game.hand.hand_number

    def deck(self) -> list[str]:
        return self.card_texts(self.game.hand.deck)

    def dealer(self) -> int:
        return self.game.hand.dealer

    def hand_start(self, seat: int, game_number: int) -> pb.HandStart:
        hand = self.game.hand
        return pb.HandStart(
            game_number=game_number,
            hand_number=hand.hand_number,
            dealer=hand.dealer,
            hand=self.card_texts(hand.hand_of(seat)),
            scores=list(hand.scores),
        )

    def decision_bytes(
        self, seat: int, game_number: int, request_id: int, decision_ms: int = 0, bank_ms: int = 0
    ) -> bytes:
        """The serialized ``RefereeMessage`` asking ``seat`` to decide; remembers its
        legal actions for ``legal_index``.  Built from encoded fragments (the referee's
        hot path): each event is encoded once for every seat, each action once a game."""
        events = self.game.hand.events
        encoded = self._event_fields
        if len(encoded) < len(events):
            encoded += [self.event_field(event) for event in events[len(encoded) :]]
        start = self._seen[seat]
        self._seen[seat] = len(events)
        self.legal = legal = self.legal_actions()
        actions = self._action_fields
        try:
            legal_fields = [actions[id(action)] for action in legal]
        except KeyError:  # actions new to this game
            legal_fields = [self._action_field(action) for action in legal]
        if self._clock[0] != (decision_ms, bank_ms):  # the bank seldom changes
            clock = message_field(5, int_field(1, decision_ms) + int_field(2, bank_ms))
            self._clock = ((decision_ms, bank_ms), clock)
        observation = self.observation_bytes(seat, game_number)
        body = b"".join(
            (
                int_field(1, request_id),
                message_header(2, len(observation)),
                observation,
                *encoded[start:],
                *legal_fields,
                self._clock[1],
            )
        )
        return message_header(_DECISION_FIELD, len(body)) + body

    def _action_field(self, action: Any) -> bytes:
        """The action as ``DecisionRequest.legal_actions`` entry, encoded once a game."""
        field = self._action_fields.get(id(action))
        if field is None:
            field = message_field(4, self.action_to_proto(action).SerializeToString())
            self._action_fields[id(action)] = field
            self._encoded.append(action)
        return field

    def decision(self, seat: int, game_number: int, request_id: int) -> pb.RefereeMessage:
        """``decision_bytes`` as a message (for tools and tests)."""
        message = pb.RefereeMessage()
        message.ParseFromString(self.decision_bytes(seat, game_number, request_id))
        return message

    def finished_hands(self, game_number: int) -> list[tuple[pb.HandEnd, Any]]:
        """Hands that ended since the last call: the reveal message and the engine's
        result (``hand_record`` makes the replay's record of it, when one is kept)."""
        results = self.game.results
        if self._reported == len(results):  # asked after every action: mostly nothing new
            return []
        out = []
        while self._reported < len(results):
            totals = [0] * self.game.num_seats
            for result in results[: self._reported + 1]:
                for seat, info in enumerate(result.seats):
                    totals[seat] += info.points
            result = results[self._reported]
            out.append((self.hand_end(result, game_number, self._reported, totals), result))
            self._reported += 1
        return out
