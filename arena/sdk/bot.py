"""The Python bot SDK: subclass ``Bot``, implement ``decide``, call ``serve``."""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from arena.proto import bot_pb2 as pb
from arena.protocol import PROTOCOL_VERSION, ProtocolError, codec_for, plays_game
from arena.protocol.commitment import RevealCheck, check_match_reveal

__all__ = ["Bot", "BotSession", "Decision", "GameEvent", "Reply"]

ObsT = TypeVar("ObsT")  # the game's observation, e.g. GinObservation
ActT = TypeVar("ActT")  # the game's action, e.g. gin.Action

if TYPE_CHECKING:  # a bot process imports only the game it plays
    from arena.games.gin_rummy import PublicEvent as GinEvent
    from arena.games.rummy import PublicEvent as RummyEvent

    GameEvent = GinEvent | RummyEvent


def __getattr__(name: str) -> Any:
    if name == "GameEvent":  # both games' event types: imported when asked for
        from arena.games.gin_rummy import PublicEvent as GinEvent
        from arena.games.rummy import PublicEvent as RummyEvent

        return GinEvent | RummyEvent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


"""An event as the engine records it: ``gin.PublicEvent`` or ``rummy.PublicEvent``."""


class Decision(Generic[ObsT, ActT]):
    """One decision: what the seat sees, what happened since, and what it may do.

    ``observation``, ``legal_actions`` and ``events`` are the engine's own types (for
    Gin Rummy ``Decision[GinObservation, gin.Action]``, events ``gin.PublicEvent``),
    converted on first use; ``message`` is the raw request.
    """

    def __init__(self, game_id: str, message: pb.DecisionRequest, codec: Any) -> None:
        self.game_id = game_id
        self.message = message
        self._codec = codec
        self._observation: ObsT | None = None
        self._legal: list[ActT] | None = None

    @property
    def observation(self) -> ObsT:
        if self._observation is None:
            self._observation = self._codec.observation_from_proto(self.message.observation)
        return self._observation

    @property
    def legal_actions(self) -> list[ActT]:
        if self._legal is None:
            self._legal = [
                self._codec.action_from_proto(action) for action in self.message.legal_actions
            ]
        return self._legal

    @property
    def events(self) -> list[GameEvent]:
        """What happened since the seat's last decision, oldest first."""
        convert = self._codec.event_from_proto
        return [convert(event) for event in self.message.events]

    @property
    def event_messages(self) -> list[pb.Event]:
        """The same events as the protocol's ``Event`` messages."""
        return list(self.message.events)

    @property
    def decision_ms(self) -> int:
        return self.message.clock.decision_ms

    @property
    def bank_ms(self) -> int:
        return self.message.clock.bank_ms


@dataclass(frozen=True, slots=True)
class Reply(Generic[ActT]):
    """An action (or an index into ``legal_actions``) with a comment for the replay."""

    action: ActT | int
    comment: str = ""


class Bot(Generic[ObsT, ActT]):
    """Base class of Python bots.  Only ``decide`` is required.

    Generic over the game's observation and action types, so that a type checker
    knows what ``decide`` is given and may return::

        class MyBot(Bot[GinObservation, gin.Action]):
            def decide(self, decision: Decision[GinObservation, gin.Action]) -> gin.Action:
                return decision.legal_actions[0]
    """

    name: ClassVar[str] = "python-bot"
    author: ClassVar[str] = ""
    version: ClassVar[str] = "0.1"
    games: ClassVar[tuple[str, ...]] = ("gin-rummy/*",)

    def decide(self, decision: Decision[ObsT, ActT]) -> ActT | int | Reply[ActT]:
        """Return an action from ``decision.legal_actions`` (or its index, or a ``Reply``)."""
        raise NotImplementedError

    # Optional lifecycle hooks; the messages are the protocol's own.
    def on_match_start(self, message: pb.MatchStart) -> None: ...
    def on_game_start(self, message: pb.GameStart) -> None: ...
    def on_hand_start(self, message: pb.HandStart) -> None: ...
    def on_hand_end(self, message: pb.HandEnd) -> None: ...
    def on_game_end(self, message: pb.GameEnd) -> None: ...
    def on_match_end(self, message: pb.MatchEnd) -> None: ...
    def on_seed_check(self, check: RevealCheck, seed: int) -> None:
        """At the match's end, before ``on_match_end``: whether the seed MatchEnd
        reveals opens MatchStart's commitment, i.e. the deals were fixed before the
        match began (docs/PROTOCOL.md, "Verifying the deals").  ABSENT: no
        commitment, or the reveal was withheld (a duplicate set replays the deals)."""
        if check is RevealCheck.MISMATCH:
            print(
                f"[{self.name}] the referee's seed reveal ({seed}) does not match its commitment",
                file=sys.stderr,
            )

    def on_notice(self, message: pb.Notice) -> None:
        print(f"[{self.name}] referee notice: {message.text}", file=sys.stderr)

    def plays(self, game_id: str) -> bool:
        return plays_game(self.games, game_id)


class BotSession:
    """Turns protocol messages into calls on a ``Bot`` (shared by gRPC and in-process)."""

    def __init__(self, bot: Bot[Any, Any]) -> None:
        self.bot = bot
        self.game_id = ""
        self._codec: Any = None
        self.match_start = pb.MatchStart()  # kept for the seed check at the end

    def handshake(self, request: pb.HandshakeRequest) -> pb.HandshakeReply:
        if request.protocol_version != PROTOCOL_VERSION:
            raise ProtocolError(
                f"protocol version mismatch: bot {self.bot.name} speaks version {PROTOCOL_VERSION}, "
                f"the referee version {request.protocol_version}"
            )
        return pb.HandshakeReply(
            name=self.bot.name,
            author=self.bot.author,
            version=self.bot.version,
            protocol_version=PROTOCOL_VERSION,
            games=list(self.bot.games),
        )

    def handle(self, message: pb.RefereeMessage) -> pb.BotMessage | None:
        """Dispatch one referee message; a decision request gets a reply."""
        kind = message.WhichOneof("body")
        bot = self.bot
        if kind == "decision":
            return pb.BotMessage(decision=self.decide(message.decision))
        if kind == "match_start":
            self.match_start = message.match_start
            self.game_id = message.match_start.game_id
            self._codec = codec_for(self.game_id)
            bot.on_match_start(message.match_start)
        elif kind == "game_start":
            bot.on_game_start(message.game_start)
        elif kind == "hand_start":
            bot.on_hand_start(message.hand_start)
        elif kind == "hand_end":
            bot.on_hand_end(message.hand_end)
        elif kind == "game_end":
            bot.on_game_end(message.game_end)
        elif kind == "match_end":
            end = message.match_end
            bot.on_seed_check(check_match_reveal(self.match_start, end), end.seed)
            bot.on_match_end(end)
        elif kind == "notice":
            bot.on_notice(message.notice)
        return None

    def decide(self, request: pb.DecisionRequest) -> pb.DecisionReply:
        if self._codec is None:  # a decision before MatchStart: take the game from it
            self.game_id = request.observation.game_id
            self._codec = codec_for(self.game_id)
        decision: Decision[Any, Any] = Decision(self.game_id, request, self._codec)
        answer: Any = self.bot.decide(decision)
        comment = ""
        if isinstance(answer, Reply):
            answer, comment = answer.action, answer.comment
        if not isinstance(comment, str):
            return self._mistake(request, f"Reply.comment is a {type(comment).__name__}, not a str")
        reply = pb.DecisionReply(request_id=request.request_id, comment=comment[:200])
        if isinstance(answer, int) and not isinstance(answer, bool):
            if not 0 <= answer < 2**32:  # an index past the end is the referee's to judge
                return self._mistake(request, f"returned index {answer}, which no reply can carry")
            reply.legal_index = answer
            return reply
        if answer is None:
            return self._mistake(request, "returned None (no return statement on some path?)")
        for index, action in enumerate(decision.legal_actions):
            if action == answer:  # one of the listed actions: its index is enough
                reply.legal_index = index
                return reply
        try:
            message = self._codec.action_to_proto(answer)
        except Exception:  # anything but an action of this game: the bot's mistake, named
            message = None
        if not isinstance(message, pb.Action) or message.WhichOneof("kind") is None:
            shown = repr(answer)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            return self._mistake(
                request,
                f"returned {shown} (a {type(answer).__name__}), not an action of {self.game_id}",
            )
        reply.action.CopyFrom(message)
        return reply

    def _mistake(self, request: pb.DecisionRequest, what: str) -> pb.DecisionReply:
        """A ``decide`` that returned no usable answer: say so on stderr and send a
        reply with no choice, which the referee records as a malformed reply (so the
        match's fault policy applies, as to any bot that sends one), its comment
        naming the mistake."""
        message = (
            f"{self.bot.name}: decide {what}; return one of decision.legal_actions, "
            "its index, or Reply(action, comment)"
        )
        print(message, file=sys.stderr, flush=True)
        return pb.DecisionReply(request_id=request.request_id, comment=message[:200])


def report_crash(bot: Bot[Any, Any]) -> str:
    """Print the current exception for the bot's author; return a one-line reason."""
    traceback.print_exc(file=sys.stderr)
    error = sys.exc_info()[1]
    return f"bot {bot.name} raised {type(error).__name__}: {error}"
