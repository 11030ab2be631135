"""How a bot failed: the statuses the referee records for a seat."""

from __future__ import annotations

from enum import Enum

from arena.errors import ArenaError

__all__ = ["BotFault", "SeatStatus"]


class SeatStatus(Enum):
    OK = "ok"
    TIMEOUT = "timeout"  # no reply within the decision time and bank
    CRASHED = "crashed"  # the process died or the connection broke
    MALFORMED_REPLY = "malformed_reply"  # a reply that is not a valid message for the request
    ILLEGAL_ACTION = "illegal_action"  # a well-formed action the rules do not allow
    PROTOCOL_ERROR = "protocol_error"  # handshake refused, wrong version, unexpected messages
    START_FAILED = "start_failed"  # did not come up (exit at start, never ready)

    @property
    def fatal(self) -> bool:
        """A seat that faults this way cannot go on: it forfeits every remaining game
        (a late or illegal answer may instead be replaced, under the random policy)."""
        return self in _FATAL


_FATAL = frozenset({SeatStatus.CRASHED, SeatStatus.PROTOCOL_ERROR, SeatStatus.START_FAILED})


class BotFault(ArenaError):
    """A bot misbehaved.  Raised by connections, turned into data by the referee."""

    def __init__(self, status: SeatStatus, reason: str) -> None:
        super().__init__(f"{status.value}: {reason}")
        self.status = status
        self.reason = reason
