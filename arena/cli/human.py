"""``arena play BOT``: a person plays Gin Rummy against a bot in the terminal.

The person is a seat like any other: ``HumanPlayer`` is an SDK ``Bot`` whose
``decide`` shows the position and asks on the terminal, called in-process through
``HumanConnection``; the referee (``play_match``) deals, checks every move and
writes the replay, exactly as in ``arena match``.

Clocks: the referee's time control is per match, not per seat.  The match runs
with the person's clock (``HUMAN_DECISION_MS``, a day per move, no bank), and the
bot's connection is wrapped in ``SeatClock``, which shows the bot and enforces its
own clock (``--decision-ms``/``--bank-ms``, the usual defaults).  The replay's
header records the match's time control, the person's.

Leaving: end of input, ``quit`` or Ctrl-C at a prompt is a seat fault (``crashed``,
"the player left"), so the referee forfeits the game, and every later one, to the
bot, and the replay records it.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any, TextIO

from arena.cards import (
    Arrangement,
    CardParseError,
    CardSet,
    InvalidMeldError,
    best_arrangement,
    min_deadwood,
    validate_layoffs,
)
from arena.errors import ArenaError
from arena.games import gin_rummy as gin
from arena.hosting.connection import BotConnection, check_handshake, handshake_request
from arena.hosting.faults import BotFault, SeatStatus
from arena.proto import bot_pb2 as pb
from arena.referee.settings import TimeControl
from arena.replays.seat_view import event_text
from arena.sdk import Bot, BotSession, Decision
from arena.sdk.bot import report_crash

__all__ = [
    "HUMAN_DECISION_MS",
    "HumanConnection",
    "HumanPlayer",
    "PlayerLeft",
    "SeatClock",
    "human_time_control",
]

#: The person's time per move: a day (the referee wants a number; nobody is rushed).
HUMAN_DECISION_MS = 86_400_000

_PHASE_HELP = {
    gin.Phase.FIRST_UPCARD: "take the first upcard ('draw discard') or 'pass'",
    gin.Phase.DRAW: "draw: from the stock or the discard pile",
    gin.Phase.DISCARD: "discard a card, or knock",
    gin.Phase.DEFEND: "lay down your melds and lay off on the knocker's melds",
    gin.Phase.LAST_DISCARD: "take the last discard to knock with it ('draw discard'), or 'pass'",
}


class PlayerLeft(ArenaError):
    """The person left at a prompt: end of input, ``quit`` or Ctrl-C."""


def human_time_control(startup_ms: int) -> TimeControl:
    """The match's time control when a person plays: a day per move."""
    return TimeControl(startup_ms=startup_ms, decision_ms=HUMAN_DECISION_MS, bank_ms=0)


# -- the person's seat -------------------------------------------------------------


class HumanPlayer(Bot[Any, Any]):
    """Shows each decision on ``output`` and reads the move from ``input``."""

    name = "human"
    author = "a person at the terminal"
    version = "1"
    games = ("gin-rummy/*",)

    def __init__(self, input: TextIO = sys.stdin, output: TextIO = sys.stdout) -> None:
        self.input = input
        self.output = output
        self.seat = 0
        self.players: list[str] = ["you", "bot"]
        # The hand held at the last draw decision: the stock card drawn since is the
        # one new card (the referee tells no seat what came off the stock).
        self._before_draw: CardSet | None = None

    # lifecycle ------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        print(text, file=self.output, flush=True)

    def who(self, seat: int) -> str:
        return "you" if seat == self.seat else self.players[seat]

    def on_match_start(self, message: pb.MatchStart) -> None:
        self.seat = message.seat
        self.players = list(message.players)
        opponent = self.players[1 - self.seat]
        count = message.games
        what = f"{count} {'single hand' if message.hands_only else 'game'}{'s' * (count != 1)}"
        self.say(f"Gin Rummy ({message.game_id}) against {opponent}: {what}.")
        self.say("At each prompt type a move's number or its text (e.g. 'discard 7H');")
        self.say("'?' shows the forms, 'quit' gives up.")

    def on_hand_start(self, message: pb.HandStart) -> None:
        self._before_draw = None
        self.say()
        self.say(
            f"=== game {message.game_number + 1}, hand {message.hand_number + 1}: "
            f"{self.who(message.dealer)} deal{'' if message.dealer == self.seat else 's'} ==="
        )

    def on_hand_end(self, message: pb.HandEnd) -> None:
        self.say()
        if message.winner < 0:
            self.say(f"--- end of hand: {message.termination}, nobody scores ---")
        else:
            winner = self.who(message.winner)
            self.say(
                f"--- end of hand: {message.termination}; {winner} score"
                f"{'' if winner == 'you' else 's'} {max(message.seats[message.winner].points, 0)} ---"
            )
        for seat, reveal in enumerate(message.seats):
            melds = " ".join("-".join(meld.cards) for meld in reveal.melds) or "-"
            layoffs = " ".join(f"{lay.card}>{lay.meld_id}" for lay in reveal.layoffs)
            self.say(
                f"  {self.who(seat):>10}: melds {melds}"
                + (f"  layoffs {layoffs}" if layoffs else "")
                + f"  unmatched {' '.join(reveal.unmatched) or '-'}  deadwood {reveal.deadwood}"
            )
        self.say(f"  totals: {self._scores(message.scores)}")

    def on_game_end(self, message: pb.GameEnd) -> None:
        winner = "nobody" if message.winner < 0 else self.who(message.winner)
        self.say()
        self.say(
            f"=== game {message.game_number + 1} over ({message.reason}): "
            f"{self._scores(message.scores)}; winner: {winner} ==="
        )

    def on_notice(self, message: pb.Notice) -> None:
        self.say(f"(referee: {message.text})")

    def _scores(self, scores: Any) -> str:
        return ", ".join(f"{self.who(seat)} {score}" for seat, score in enumerate(scores))

    # decisions --------------------------------------------------------------------

    def decide(self, decision: Decision[Any, Any]) -> Any:
        observation: gin.GinObservation = decision.observation
        legal = decision.legal_actions
        self.show(observation, decision.event_messages, legal)
        while True:
            numbers = "1" if len(legal) == 1 else f"1-{len(legal)}"
            self.output.write(f"your move [{numbers}, a move, ?]: ")
            self.output.flush()
            try:
                line = self.input.readline()
            except KeyboardInterrupt:
                raise PlayerLeft("interrupted (Ctrl-C)") from None
            if not line:
                self.say()
                raise PlayerLeft("end of input")
            text = line.strip()
            if not self.input.isatty():  # a scripted session: show what was read
                self.say(text)
            if text.lower() in ("quit", "exit"):
                raise PlayerLeft("quit")
            try:
                return self.choose(text, observation, legal)
            except ValueError as problem:
                self.say(f"  {problem}")

    def choose(self, text: str, observation: gin.GinObservation, legal: list[Any]) -> Any:
        """The move ``text`` names; ``ValueError`` says why it is not one to play now."""
        if not text or text in ("?", "help"):
            raise ValueError(
                f"type a number from 1 to {len(legal)}, or a move: draw stock, draw discard, "
                "pass, discard 7H, knock 7H 7C-7D-7S 8H-9H-TH, defend 5C-5D-5H | 4H>0"
            )
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= len(legal):
                raise ValueError(f"no move {number}: choose 1 to {len(legal)}")
            return legal[number - 1]
        try:
            action = gin.parse_action(text)
        except ValueError as error:
            # "bad action 'knock ...': not a meld: 9C 9D": the part after the quote helps
            detail = str(error).partition(": ")[2] if str(error).startswith("bad action") else ""
            raise ValueError(
                f"not a move: {text!r}{f' ({detail})' if detail else ''}; type a number from 1 "
                f"to {len(legal)} or a move such as 'discard 7H' ('?' lists the forms)"
            ) from None
        if action in legal:
            return action
        why = _why_not(action, observation, legal)
        if why is None:
            return action  # a knock or defence with other melds than the listed ones
        raise ValueError(f"not a legal move now: {action}: {why}")

    def show(
        self, observation: gin.GinObservation, events: list[pb.Event], legal: list[Any]
    ) -> None:
        say = self.say
        phase = observation.phase
        say()
        drawn = ""  # the card the stock gave this seat, which its draw event cannot name
        if phase in (gin.Phase.FIRST_UPCARD, gin.Phase.DRAW, gin.Phase.LAST_DISCARD):
            self._before_draw = observation.hand
        elif phase is gin.Phase.DISCARD and self._before_draw is not None:
            new = observation.hand - self._before_draw
            if len(new) == 1 and observation.forbidden_discard not in new:
                drawn = str(next(iter(new)))
            self._before_draw = None
        for event in events:
            text = event_text(event, self.who)
            if drawn and text == "you draw from the stock":
                text, drawn = f"{text}: {drawn}", ""  # as `arena replay --seat` says it
            say(f"  {text}")
        if drawn:  # the engine drew for this seat (both passed the first upcard)
            say(f"  you draw from the stock: {drawn}")
        opponent = 1 - self.seat
        limit = "gin only" if observation.knock_limit == 0 else str(observation.knock_limit)
        doubled = ", doubled" if observation.doubled else ""
        say(
            f"-- your turn: {_PHASE_HELP[phase]} --\n"
            f"  score: {self._scores(observation.scores)}   knock limit {limit}{doubled}   "
            f"stock {observation.stock_size} cards"
        )
        pile = observation.discard_pile
        if pile:
            under = (
                f" (then {' '.join(str(c) for c in reversed(pile[-4:-1]))}...)"
                if len(pile) > 1
                else ""
            )
            say(f"  discard pile: top {pile[-1]}{under}, {len(pile)} card{'s' * (len(pile) > 1)}")
        else:
            say("  discard pile: empty")
        hand = observation.hand
        say(f"  your hand by suit: {_by_suit(hand)}")
        say(f"            by rank: {' '.join(str(c) for c in hand.sorted_by_rank())}")
        arrangement = best_arrangement(hand)
        melds = " ".join(str(meld) for meld in arrangement.melds) or "none"
        say(
            f"  best melds: {melds}   deadwood {arrangement.deadwood}"
            + (f" ({arrangement.unmatched})" if arrangement.unmatched else "")
        )
        known = observation.opponent_known
        say(
            f"  {self.players[opponent]} holds {observation.opponent_hand_size} cards"
            + (f", known: {known}" if known else ", none known")
        )
        knock = observation.knock
        if knock is not None and knock.seat != self.seat:
            numbered = "  ".join(f"[{i}] {meld}" for i, meld in enumerate(knock.melds))
            say(
                f"  {self.players[opponent]} knocked: {numbered}; "
                f"unmatched {knock.unmatched or '-'} (deadwood {knock.deadwood})"
            )
        if observation.forbidden_discard is not None:
            say(f"  you took {observation.forbidden_discard}: you may not discard it this turn")
        say("  moves:")
        for number, action in enumerate(legal, start=1):
            say(f"  {number:>4}. {action}{_note(action, observation)}")


def _by_suit(hand: CardSet) -> str:
    groups: dict[int, list[str]] = {}
    for card in hand:  # suit by suit, ace to king
        groups.setdefault(int(card.suit), []).append(str(card))
    return "   ".join(" ".join(cards) for _, cards in sorted(groups.items()))


def _note(action: Any, observation: gin.GinObservation) -> str:
    """What a move leaves: deadwood after a discard or knock, a defence's deadwood."""
    hand = observation.hand
    if isinstance(action, gin.Discard) and len(hand) == 11:
        return f"   (deadwood {min_deadwood(hand.remove(action.card))})"
    if isinstance(action, gin.Knock):
        rest = hand.remove(action.card)
        deadwood = Arrangement.of(rest, action.melds).deadwood
        return "   (gin!)" if deadwood == 0 else f"   (deadwood {deadwood})"
    if isinstance(action, gin.Defend):
        laid = CardSet.of(layoff.card for layoff in action.layoffs)
        return f"   (your deadwood {Arrangement.of(hand - laid, action.melds).deadwood})"
    if action == gin.DRAW_DISCARD and observation.discard_pile:
        return f"   (take {observation.discard_pile[-1]})"
    return ""


def _why_not(action: Any, observation: gin.GinObservation, legal: list[Any]) -> str | None:
    """Why ``action`` (not listed) may not be played now; ``None``: it may (another
    arrangement of a listed kind of knock or defence)."""
    phase = observation.phase
    hand = observation.hand
    if isinstance(action, gin.Discard | gin.Knock) and phase is gin.Phase.DISCARD:
        card = action.card
        if card not in hand:
            return f"{card} is not in your hand"
        if card == observation.forbidden_discard:
            return f"you took {card} from the discard pile this turn"
        if isinstance(action, gin.Discard):
            return "you took the last discard: you must knock"
        try:
            deadwood = Arrangement.of(hand.remove(card), action.melds).deadwood
        except InvalidMeldError as error:
            return str(error)
        if deadwood > observation.knock_limit:
            return f"deadwood {deadwood} is above the knock limit {observation.knock_limit}"
        return None
    if isinstance(action, gin.Defend) and phase is gin.Phase.DEFEND:
        knock = observation.knock
        assert knock is not None
        try:
            laid = CardSet.of(layoff.card for layoff in action.layoffs)
        except CardParseError as error:
            return str(error)
        if not laid <= hand:
            return f"{laid - hand} not in your hand"
        try:
            Arrangement.of(hand - laid, action.melds)
            validate_layoffs(knock.melds, action.layoffs)
        except InvalidMeldError as error:
            return str(error)
        return None
    return f"now you {_PHASE_HELP[phase]}"


class HumanConnection:
    """The person's seat, called in the referee's process (a ``BotConnection``).

    Like ``InProcessConnection``, but leaving (``PlayerLeft``) is a fault without a
    traceback, and no clock applies (a person may think as long as the match allows).
    """

    def __init__(self, player: HumanPlayer) -> None:
        self.player = player
        self._session = BotSession(player)
        self.info = check_handshake(self._session.handshake(handshake_request()), player.name)
        self.left = ""  # why the person left, once they have

    async def start_match(self) -> None:
        self._session = BotSession(self.player)

    async def send(self, message: bytes) -> None:
        self._handle(message)

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        reply = self._handle(message)
        assert reply is not None
        return reply.decision

    def _handle(self, message: bytes) -> pb.BotMessage | None:
        try:
            return self._session.handle(pb.RefereeMessage.FromString(message))
        except PlayerLeft as left:
            self.left = str(left)
            raise BotFault(SeatStatus.CRASHED, f"the player left the table: {left}") from None
        except Exception:
            raise BotFault(SeatStatus.CRASHED, report_crash(self.player)) from None

    async def end_match(self) -> None:
        pass

    def close(self) -> None:
        pass


# -- the bot's own clock -------------------------------------------------------------


@dataclass
class _Bank:
    seconds: float


class SeatClock:
    """A bot's connection under its own clock, inside a match with a longer one.

    Shows the bot ``clock`` (in ``MatchStart`` and every request) and enforces it
    as the referee would: ``decision_ms`` free per decision, the excess from a
    ``bank_ms`` per game, a timeout when the bank would be overdrawn.
    """

    def __init__(self, inner: BotConnection, clock: TimeControl) -> None:
        self.inner = inner
        self.info = inner.info
        self.clock = clock
        self._bank = _Bank(clock.bank_ms / 1000)

    async def start_match(self) -> None:
        await self.inner.start_match()

    async def send(self, message: bytes) -> None:
        parsed = pb.RefereeMessage.FromString(message)
        kind = parsed.WhichOneof("body")
        if kind == "match_start":
            parsed.match_start.time_control.decision_ms = self.clock.decision_ms
            parsed.match_start.time_control.bank_ms = self.clock.bank_ms
            message = parsed.SerializeToString()
        elif kind == "game_start":
            self._bank.seconds = self.clock.bank_ms / 1000
        await self.inner.send(message)

    async def decide(self, message: bytes, request_id: int, timeout: float) -> pb.DecisionReply:
        free = self.clock.decision_ms / 1000
        parsed = pb.RefereeMessage.FromString(message)
        parsed.decision.clock.decision_ms = self.clock.decision_ms
        parsed.decision.clock.bank_ms = int(self._bank.seconds * 1000)
        started = time.perf_counter()
        reply = await self.inner.decide(
            parsed.SerializeToString(), request_id, min(timeout, free + self._bank.seconds)
        )
        elapsed = time.perf_counter() - started
        self._bank.seconds -= max(0.0, elapsed - free)
        if self._bank.seconds < 0:
            self._bank.seconds = 0.0
            raise BotFault(
                SeatStatus.TIMEOUT,
                f"answered after {elapsed * 1000:.0f} ms, over the decision time and bank",
            )
        return reply

    async def end_match(self) -> None:
        await self.inner.end_match()

    def close(self) -> None:
        self.inner.close()
