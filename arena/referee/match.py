"""Play a match: games (or single hands) between connected bots, under a seed.

The referee never raises because of a bot: every bot fault becomes a
``FaultRecord`` and a seat status.  Only misuse of this API raises.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.cards import derive_seed
from arena.eventloop import new_event_loop
from arena.games.base import IllegalActionError, Outcome
from arena.games.spec import GameSpec
from arena.hosting.connection import BotConnection
from arena.hosting.faults import BotFault, SeatStatus
from arena.proto import bot_pb2 as pb
from arena.protocol import ProtocolError, codec_for, plays_game
from arena.protocol.commitment import new_salt, seed_commitment
from arena.protocol.table import Table
from arena.referee.observers import MatchObserver
from arena.referee.results import FaultRecord, GameRecord, MatchResult, SeatRecord
from arena.referee.settings import FaultMode, FaultPolicy, MatchSettings, TimeControl
from arena.replays.records import (
    REPLAY_VERSION,
    ActionRecord,
    DealRecord,
    FaultRecordLine,
    GameEndRecord,
    GameStartRecord,
    HandEndRecord,
    MatchEndRecord,
    MatchHeader,
    Record,
    RevealRecord,
)

if TYPE_CHECKING:
    from arena.hosting.launcher import HostedBot

__all__ = ["MatchConfig", "Seat", "play_match"]


@dataclass
class Seat:
    """A bot in a seat: its connection (``None`` if it failed to start) and labels."""

    connection: BotConnection | None
    name: str
    sandbox: str = "none"
    stderr_path: str | None = None
    start_fault: BotFault | None = None

    @classmethod
    def of(
        cls,
        bot: HostedBot,
        name: str | None = None,
        *,
        connection: BotConnection | None = None,
        fault: BotFault | None = None,
    ) -> Seat:
        """The seat of a hosted bot, under ``name`` (its own by default), speaking
        through ``connection`` when the caller wraps the bot's (a clock, a recorder),
        or forfeiting with ``fault`` when it cannot take the seat."""
        if fault is not None:
            return cls(None, name or bot.name, bot.sandbox, bot.stderr_path, fault)
        return cls(
            connection or bot.connection,
            name or bot.name,
            bot.sandbox,
            bot.stderr_path,
            bot.start_fault,
        )


@dataclass(frozen=True)
class MatchConfig:
    """``seed`` makes the deals: callers draw it fresh (``referee.seeds``) unless the
    user asked for a reproducible one.  ``reveal_seed``: MatchEnd tells the bots the
    seed (and salt) of MatchStart's commitment; off where the same deals are played
    again in another match (a duplicate set), whose cards the reveal would tell.
    ``salt``: the commitment's salt, drawn fresh when ``None``; a re-run of a recorded
    match (``arena.replays.ask``) gives the recorded one, so that its MatchStart
    carries the recorded commitment."""

    spec: GameSpec
    games: int = 1
    seed: int = 0
    hands_only: bool = False
    time_control: TimeControl = field(default_factory=TimeControl)
    fault_policy: FaultPolicy = field(default_factory=FaultPolicy)
    match_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    max_deals: int = 200  # a game that would not end stops here (bots that never knock)
    reveal_seed: bool = True
    salt: bytes | None = None

    @classmethod
    def of(
        cls, spec: GameSpec, settings: MatchSettings, *, seed: int, match_id: str, reveal_seed: bool
    ) -> MatchConfig:
        """One match of a series played under ``settings``."""
        return cls(
            spec,
            games=settings.games,
            seed=seed,
            hands_only=settings.hands_only,
            time_control=settings.time_control,
            fault_policy=settings.fault_policy,
            match_id=match_id,
            reveal_seed=reveal_seed,
        )


class _Match:
    def __init__(
        self,
        config: MatchConfig,
        seats: Sequence[Seat],
        observers: Sequence[MatchObserver],
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.config = config
        self.clock = clock
        self.seats = list(seats)
        self.observers = list(observers)
        self.codec = codec_for(config.spec.id)
        self.rng = random.Random(derive_seed(config.seed, 2))  # replacement actions only
        self.salt = new_salt() if config.salt is None else config.salt
        self.commitment = seed_commitment(config.seed, self.salt)
        # The decks, kept back until the match is over: a replay is readable while
        # the match goes on, and a deck in it would tell the stock's order.
        self.decks: list[dict[str, Any]] = []
        self.records = [
            SeatRecord(
                seat.name,
                seat.connection.info.version if seat.connection else "",
                seat.sandbox,
                seat.stderr_path,
            )
            for seat in seats
        ]
        self.result = MatchResult(
            config.match_id,
            config.spec.id,
            config.seed,
            self.records,
            fault_policy=str(config.fault_policy),
            seed_commitment=self.commitment.hex(),
            seed_salt=self.salt.hex(),
            seed_revealed_to_bots=config.reveal_seed,
        )
        self.alive = [seat.connection is not None for seat in seats]
        self.replacements = [0] * len(seats)
        self.request_id = 0

    def emit(self, record: Record) -> None:
        for observer in self.observers:
            observer.on_record(record)

    async def broadcast(self, message: pb.RefereeMessage, game: int = -1, hand: int = -1) -> None:
        data = message.SerializeToString()
        await self.send_each({seat: data for seat in self.reachable()}, game, hand)

    def reachable(self) -> list[int]:
        return [
            index
            for index, seat in enumerate(self.seats)
            if self.alive[index] and seat.connection is not None
        ]

    async def send_each(self, messages: dict[int, bytes], game: int, hand: int) -> None:
        """Send each seat its message, to all seats at once: a send waits until the
        message is on its way, and one seat after another those waits add up."""
        await asyncio.gather(
            *(self._send(seat, data, game, hand) for seat, data in messages.items())
        )

    def fault(self, seat: int, fault: BotFault, game: int, hand: int, consequence: str) -> None:
        record = FaultRecord(seat, fault.status, fault.reason, game, hand, consequence)
        self.records[seat].faults.append(record)
        if self.records[seat].status is SeatStatus.OK or fault.status.fatal:
            self.records[seat].status = fault.status
        if fault.status.fatal:
            self.alive[seat] = False
        self.emit(FaultRecordLine(**record.to_json()))

    # -- the match ------------------------------------------------------------

    async def run(self) -> None:
        """Play the match into ``self.result``."""
        config = self.config
        spec = config.spec
        self.emit(
            MatchHeader(
                version=REPLAY_VERSION,
                match_id=config.match_id,
                game_id=spec.id,
                rules=self.codec.rules_map(spec.rules),
                seed_commitment=self.commitment.hex(),  # the seed comes at the end
                games=config.games,
                hands_only=config.hands_only,
                max_deals=config.max_deals,
                time_control={
                    "startup_ms": config.time_control.startup_ms,
                    "decision_ms": config.time_control.decision_ms,
                    "bank_ms": config.time_control.bank_ms,
                },
                fault_policy=str(config.fault_policy),
                players=[
                    {
                        "name": seat.name,
                        "version": record.version,
                        "sandbox": seat.sandbox,
                        "stderr": seat.stderr_path,
                    }
                    for seat, record in zip(self.seats, self.records, strict=True)
                ],
            )
        )
        for index, seat in enumerate(self.seats):
            if seat.start_fault is not None:
                self.fault(index, seat.start_fault, game=-1, hand=-1, consequence="forfeit")
            elif seat.connection is not None and not plays_game(
                seat.connection.info.games, spec.id
            ):
                plays = ", ".join(seat.connection.info.games) or "nothing"
                refusal = BotFault(
                    SeatStatus.PROTOCOL_ERROR,
                    f"{seat.name} does not play {spec.id} (its handshake lists: {plays})",
                )
                self.fault(index, refusal, game=-1, hand=-1, consequence="forfeit")
        for index, seat in enumerate(self.seats):
            if self.alive[index] and seat.connection is not None:
                try:
                    await seat.connection.start_match()
                    await seat.connection.send(self._match_start(index).SerializeToString())
                except BotFault as fault:
                    self.fault(index, fault, game=-1, hand=-1, consequence="forfeit")
                except Exception as error:  # the seat's fault, never the referee's crash
                    self.fault(index, _unexpected(error), game=-1, hand=-1, consequence="forfeit")
        try:
            for number in range(config.games):
                self.result.games.append(await self.play_game(number))
            wins = [self.result.wins(seat) for seat in range(len(self.seats))]
            end = pb.MatchEnd(wins=wins, reason="all games played")
            if config.reveal_seed:
                end.seed, end.seed_salt = config.seed, self.salt
            await self.broadcast(pb.RefereeMessage(match_end=end))
        finally:
            for seat in self.seats:
                if seat.connection is not None:
                    # One seat's broken stream must not keep the others' open.
                    with contextlib.suppress(Exception):
                        await seat.connection.end_match()
            # Also when the match is cut short: it is over, and the replay can be read.
            self.emit(RevealRecord(config.seed, self.salt.hex(), self.decks))
        self.emit(MatchEndRecord(self.result.to_json()))

    def _match_start(self, seat: int) -> pb.RefereeMessage:
        config = self.config
        tc = config.time_control
        return pb.RefereeMessage(
            match_start=pb.MatchStart(
                match_id=config.match_id,
                game_id=config.spec.id,
                rules=self.codec.rules_map(config.spec.rules),
                seat=seat,
                num_seats=len(self.seats),
                players=[s.name for s in self.seats],
                games=config.games,
                time_control=pb.TimeControl(
                    startup_ms=tc.startup_ms, decision_ms=tc.decision_ms, bank_ms=tc.bank_ms
                ),
                hands_only=config.hands_only,
                seed_commitment=self.commitment,
            )
        )

    async def play_game(self, number: int) -> GameRecord:
        config = self.config
        seed = derive_seed(config.seed, 1, number)
        game = config.spec.new_game(
            seed, len(self.seats), hands_only=config.hands_only, max_deals=config.max_deals
        )
        table = self.codec.new_table(config.spec.id, game)
        self.emit(GameStartRecord(number))
        await self.broadcast(pb.RefereeMessage(game_start=pb.GameStart(game_number=number)), number)
        banks = [config.time_control.bank_ms / 1000.0] * len(self.seats)
        forfeiters: list[int] = []
        forfeit_reason = ""
        while not table.is_terminal():
            if not all(self.alive):
                forfeiters = [seat for seat, alive in enumerate(self.alive) if not alive]
                forfeit_reason = "did not play"
                break
            if table.hand_started():
                if self.observers:
                    hand = table.hand_number
                    self.decks.append({"game": number, "hand": hand, "deck": table.deck()})
                    self.emit(DealRecord(number, hand, table.dealer()))
                starts = {
                    seat: pb.RefereeMessage(
                        hand_start=table.hand_start(seat, number)
                    ).SerializeToString()
                    for seat in self.reachable()
                }
                await self.send_each(starts, number, table.hand_number)
                if not all(self.alive):
                    continue
            seat_index = table.current_seat()
            assert seat_index is not None
            if not await self.play_turn(table, seat_index, number, banks):
                forfeiters = [seat_index]
                forfeit_reason = self.records[seat_index].faults[-1].status.value
                break
            for hand_end, result in table.finished_hands(number):
                if self.observers:
                    self.emit(
                        HandEndRecord(number, hand_end.hand_number, table.hand_record(result))
                    )
                await self.broadcast(
                    pb.RefereeMessage(hand_end=hand_end), number, hand_end.hand_number
                )
        if forfeiters:
            outcome = _forfeit_outcome(len(self.seats), forfeiters, table.scores())
            who = " and ".join(f"seat {seat}" for seat in forfeiters)
            reason = f"forfeit: {who} {forfeit_reason}"
        else:
            outcome = table.outcome()
            reason = table.end_reason()
        record = GameRecord(
            number,
            seed,
            outcome.scores,
            outcome.ranks,
            outcome.winner,
            reason,
            table.hand_number + 1,
        )
        # Without the game's seed: from it (SplitMix64 can be run backwards) the
        # match seed and every later game's deals follow; it comes with the reveal.
        self.emit(GameEndRecord(**record.to_json(without_seed=True)))
        await self.broadcast(
            pb.RefereeMessage(
                game_end=pb.GameEnd(
                    game_number=number,
                    scores=list(outcome.scores),
                    ranks=list(outcome.ranks),
                    winner=-1 if outcome.winner is None else outcome.winner,
                    reason=reason,
                )
            ),
            number,
        )
        return record

    async def _send(self, seat: int, data: bytes, game: int, hand: int) -> None:
        connection = self.seats[seat].connection
        assert connection is not None
        try:
            await connection.send(data)
        except BotFault as fault:
            self.fault(seat, fault, game, hand, "forfeit")
        except Exception as error:  # the seat's fault, never the referee's crash
            self.fault(seat, _unexpected(error), game, hand, "forfeit")

    async def play_turn(self, table: Table, seat: int, game: int, banks: list[float]) -> bool:
        """Ask ``seat`` for an action and play it (or a replacement); False: it forfeits."""
        connection = self.seats[seat].connection
        assert connection is not None
        decision_ms = self.config.time_control.decision_ms
        per_decision = decision_ms / 1000.0
        self.request_id += 1
        request_id = self.request_id
        bank = banks[seat]
        try:
            message = table.decision_bytes(seat, game, request_id, decision_ms, int(bank * 1000))
        except Exception as error:  # the seat's fault, never the referee's crash
            return await self._after_fault(table, seat, game, _unexpected(error), 0.0)
        hand = table.hand_number  # before the action: it may end the hand
        started = self.clock()
        try:
            reply = await connection.decide(message, request_id, per_decision + bank)
            elapsed = self.clock() - started
            if elapsed > per_decision:
                bank -= elapsed - per_decision
                if bank < 0:
                    banks[seat] = 0.0
                    raise BotFault(
                        SeatStatus.TIMEOUT,
                        f"answered after {elapsed * 1000:.0f} ms, over the decision time and bank",
                    )
                banks[seat] = bank
            action = self._action_of(table, reply)
            try:
                table.apply(action, seat)  # checks everything before it changes anything
            except IllegalActionError:
                raise
            except Exception as error:  # an action the engine chokes on: refused all the same
                raise BotFault(
                    SeatStatus.ILLEGAL_ACTION,
                    f"the engine refused {action!r}: {type(error).__name__}: {error}",
                ) from None
        except BotFault as fault:
            return await self._after_fault(table, seat, game, fault, self.clock() - started)
        except IllegalActionError as error:
            illegal = BotFault(SeatStatus.ILLEGAL_ACTION, str(error))
            return await self._after_fault(table, seat, game, illegal, self.clock() - started)
        except Exception as error:  # the connection or anything else serving this seat
            return await self._after_fault(
                table, seat, game, _unexpected(error), self.clock() - started
            )
        self.records[seat].decision_seconds.append(elapsed)
        if self.observers:  # skip building the record when nobody listens (hot path)
            self.emit(
                ActionRecord(
                    game,
                    hand,
                    seat,
                    table.format_action(action),
                    round(elapsed * 1000, 3),
                    reply.comment[:200],
                )
            )
        return True

    def _action_of(self, table: Table, reply: pb.DecisionReply) -> Any:
        choice = reply.WhichOneof("choice")
        if choice == "legal_index":
            legal = table.legal
            if reply.legal_index >= len(legal):
                raise BotFault(
                    SeatStatus.MALFORMED_REPLY,
                    f"legal_index {reply.legal_index} out of range: {len(legal)} legal actions",
                )
            return legal[reply.legal_index]
        if choice == "action":
            try:
                return table.action_from_proto(reply.action)
            except ProtocolError as error:
                raise BotFault(SeatStatus.MALFORMED_REPLY, str(error)) from None
            except IllegalActionError:
                raise
            except Exception as error:  # whatever the conversion chokes on is malformed too
                raise BotFault(
                    SeatStatus.MALFORMED_REPLY,
                    f"action could not be read: {type(error).__name__}: {error}",
                ) from None
        said = f" (its comment: {_quoted(reply.comment)})" if reply.comment else ""
        raise BotFault(
            SeatStatus.MALFORMED_REPLY, f"reply has neither legal_index nor action{said}"
        )

    async def _after_fault(
        self, table: Table, seat: int, game: int, fault: BotFault, elapsed: float
    ) -> bool:
        self.records[seat].decision_seconds.append(elapsed)
        policy = self.config.fault_policy
        replaceable = fault.status in (
            SeatStatus.TIMEOUT,
            SeatStatus.ILLEGAL_ACTION,
            SeatStatus.MALFORMED_REPLY,
        )
        if (
            replaceable
            and policy.mode is FaultMode.RANDOM
            and self.replacements[seat] < policy.max_replacements
        ):
            try:
                return await self._replace(table, seat, game, fault, elapsed)
            except Exception as error:  # no replacement to be had (an engine's bug): forfeit
                fault = BotFault(
                    fault.status,
                    f"{fault.reason}; no replacement could be played "
                    f"({type(error).__name__}: {error})",
                )
        self.fault(seat, fault, game, table.hand_number, "forfeit")
        return False

    async def _replace(
        self, table: Table, seat: int, game: int, fault: BotFault, elapsed: float
    ) -> bool:
        """The fault policy's random legal action in place of the seat's."""
        self.replacements[seat] += 1
        action = self.rng.choice(table.legal)
        text = table.format_action(action)
        self.fault(seat, fault, game, table.hand_number, f"random: {text}")
        await self._send(
            seat,
            pb.RefereeMessage(
                notice=pb.Notice(text=f"{fault}; the referee played {text} for you")
            ).SerializeToString(),
            game,
            table.hand_number,
        )
        self.emit(
            ActionRecord(
                game, table.hand_number, seat, text, round(elapsed * 1000, 3), "", replaced=True
            )
        )
        table.apply(action, seat)
        return True


def _unexpected(error: Exception) -> BotFault:
    """An exception raised while serving a seat (a connection's, a codec's): that
    seat's fault, fatal since nothing more can be trusted of its stream."""
    return BotFault(
        SeatStatus.CRASHED, f"serving this seat failed: {type(error).__name__}: {error}"
    )


def _quoted(text: str) -> str:
    """A bot's own text in a fault reason: one line, at most 200 characters."""
    return repr(" ".join(text.split())[:200])


def _forfeit_outcome(seats: int, forfeiters: Sequence[int], scores: Sequence[int]) -> Outcome:
    """Forfeiting seats rank last; the others share first (all forfeit: all tie).
    Scores stay as they were."""
    if len(forfeiters) == seats:
        return Outcome(tuple(scores), (0,) * seats, None)
    ranks = tuple(1 if seat in forfeiters else 0 for seat in range(seats))
    winners = [seat for seat in range(seats) if seat not in forfeiters]
    return Outcome(tuple(scores), ranks, winners[0] if len(winners) == 1 else None)


def play_match(
    config: MatchConfig,
    seats: Sequence[Seat],
    observers: Sequence[MatchObserver] = (),
    *,
    clock: Callable[[], float] = time.perf_counter,
) -> MatchResult:
    """Play ``config.games`` games between ``seats``.  Connections stay open (the caller closes them).
    ``clock`` times the decisions (seconds): a re-run of a recorded match passes one
    that advances by each recorded decision's time, so the banks run down as they did."""
    if not config.spec.min_seats <= len(seats) <= config.spec.max_seats:
        raise ValueError(
            f"{config.spec.id} needs {config.spec.min_seats}-{config.spec.max_seats} seats, got {len(seats)}"
        )
    if config.games < 1:
        raise ValueError(f"a match needs at least one game, got {config.games}")
    match = _Match(config, seats, observers, clock)
    try:
        # The coroutine returns nothing: asyncio.Runner formats its task, result and
        # all, when it puts the SIGINT handler back, and a match result can be long.
        with asyncio.Runner(loop_factory=new_event_loop) as runner:
            runner.run(match.run())
        return match.result
    finally:
        for observer in observers:
            observer.close()
