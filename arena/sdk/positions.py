"""Saved positions in a bot's own unit tests: the ``Decision`` its ``decide`` receives
at a position (``arena replay FILE --seat N --at G.H.S --save POS.json``), and its
answer there after the whole message stream (docs/REPLAY.md, "Positions")::

    from arena.sdk import answer_position, position_decision

    def test_keeps_the_run() -> None:
        decision = position_decision("tests/positions/keep-run.json")
        assert MyBot().decide(decision) != gin.discard(Card.parse("8H"))

    def test_same_as_recorded() -> None:
        assert str(answer_position(MyBot(), "tests/positions/keep-run.json")) == "discard KS"

The position file is read by ``arena.replays.positions`` (JSON and protocol messages
only: no referee, no hosting).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.protocol import ProtocolError, codec_for
from arena.sdk.bot import Bot, BotSession, Decision

__all__ = ["answer_position", "position_decision"]


def _position(position: str | Path | Any) -> Any:
    from arena.replays.positions import Position, read_position

    if isinstance(position, Position):
        return position
    return read_position(Path(position))


def position_decision(position: str | Path | Any) -> Decision[Any, Any]:
    """The ``Decision`` a bot's ``decide`` is given at ``position`` (a position file's
    path, or a ``Position``): its observation, events, legal actions and clock.  Only
    the decision itself: a bot whose ``decide`` needs what its hooks saw earlier in the
    match wants ``answer_position``."""
    loaded = _position(position)
    return Decision(loaded.game_id, loaded.request, codec_for(loaded.game_id))


def answer_position(bot: Bot[Any, Any], position: str | Path | Any) -> Any:
    """``bot``'s answer at ``position``, as the game's action: every message of the
    position is handed to the bot in order, as a match would (its hooks are called and
    its earlier decisions asked, their answers dropped), and its answer to the last
    request is returned (a ``Reply``'s comment is dropped; an index becomes the action
    it names).  ``ProtocolError`` if that answer is no action of the game."""
    loaded = _position(position)
    from arena.proto import bot_pb2 as pb

    session = BotSession(bot)
    reply: pb.BotMessage | None = None
    for data in loaded.messages:
        reply = session.handle(pb.RefereeMessage.FromString(data))
    assert reply is not None  # a position ends with a decision request
    codec = codec_for(loaded.game_id)
    decision = reply.decision
    choice = decision.WhichOneof("choice")
    if choice == "legal_index":
        legal = loaded.request.legal_actions
        if decision.legal_index >= len(legal):
            raise ProtocolError(
                f"legal_index {decision.legal_index} out of range: {len(legal)} legal actions"
            )
        return codec.action_from_proto(legal[decision.legal_index])
    if choice == "action":
        return codec.action_from_proto(decision.action)
    raise ProtocolError(f"{bot.name} answered no action ({decision.comment or 'no comment'})")
