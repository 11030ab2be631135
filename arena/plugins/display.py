"""Match displays on the terminal: every decision (``--verbose``)."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from arena.referee.observers import MatchObserver

__all__ = ["VerbosePrinter"]


class VerbosePrinter(MatchObserver):
    """Prints every decision, fault and hand result as it happens (to stderr)."""

    def __init__(self, names: list[str], stream: TextIO | None = None) -> None:
        self.names = names
        self.stream = stream or sys.stderr

    def _name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def on_record(self, record: dict[str, Any]) -> None:
        kind = record["type"]
        if kind == "action":
            flag = " (replaced)" if record.get("replaced") else ""
            comment = f"  # {record['comment']}" if record.get("comment") else ""
            line = f"g{record['game']} h{record['hand']} {self._name(record['seat']):>12}: {record['action']}{flag} [{record['ms']:.2f} ms]{comment}"
        elif kind == "fault":
            line = f"FAULT {self._name(record['seat'])}: {record['status']}: {record['reason']} -> {record['consequence']}"
        elif kind == "hand_end":
            result = record["result"]
            line = f"g{record['game']} h{record['hand']} ended: {result['termination']}, winner {result['winner']}, {result['points']} points"
        else:
            return
        print(line, file=self.stream, flush=True)
