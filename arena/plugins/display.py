"""Match displays on the terminal: every decision (``--verbose``)."""

from __future__ import annotations

import sys
from typing import TextIO

from arena.referee.observers import MatchObserver
from arena.replays.records import ActionRecord, FaultRecordLine, HandEndRecord, Record

__all__ = ["VerbosePrinter"]


class VerbosePrinter(MatchObserver):
    """Prints every decision, fault and hand result as it happens (to stderr), games
    and hands numbered from 1 (``g1 h2``) as everywhere a person reads them."""

    def __init__(self, names: list[str], stream: TextIO | None = None) -> None:
        self.names = names
        self.stream = stream or sys.stderr

    def _name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def on_record(self, record: Record) -> None:
        if isinstance(record, ActionRecord):
            flag = " (replaced)" if record.replaced else ""
            comment = f"  # {record.comment}" if record.comment else ""
            line = f"g{record.game + 1} h{record.hand + 1} {self._name(record.seat):>12}: {record.action}{flag} [{record.ms:.2f} ms]{comment}"
        elif isinstance(record, FaultRecordLine):
            line = f"FAULT {self._name(record.seat)}: {record.status}: {record.reason} -> {record.consequence}"
        elif isinstance(record, HandEndRecord):
            result = record.result
            winner = result.get("winner")
            who = "nobody" if winner is None or winner < 0 else self._name(int(winner))
            line = f"g{record.game + 1} h{record.hand + 1} ended: {result['termination']}, won by {who}, {result['points']} points"
        else:
            return
        print(line, file=self.stream, flush=True)
