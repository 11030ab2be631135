"""What ``arena match`` prints as games end and after the table: cutechess-style lines.

``Finished game 3 (strong vs greedy): 1-0 {strong reached 100: 112-45, 9 hands}`` as
each game ends, and for two bots the Elo difference with its 95% error and the
likelihood of superiority (LOS) at the end, from the games' wins, losses and draws.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import TextIO

from arena.referee.observers import MatchObserver
from arena.referee.results import MatchResult
from arena.replays.records import GameEndRecord, Record
from arena.stats import elo_summary

__all__ = ["GameLines", "elo_text", "game_line", "plural"]

_Z95 = 1.959963984540054


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 game``, ``2 games``; ``many`` for irregular plurals."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def game_line(record: GameEndRecord, names: Sequence[str]) -> str:
    """One finished game, from its ``game_end`` record (game numbers shown from 1)."""
    players = " vs ".join(names)
    values = list(record.scores)
    # "104-37" as cutechess writes it; "0, -102, -120" where a dash would read as a minus.
    joiner = "-" if len(values) == 2 and min(values) >= 0 else ", "
    scores = joiner.join(str(score) for score in values)
    winner = record.winner
    if len(names) == 2:
        result = {None: "1/2-1/2", 0: "1-0", 1: "0-1"}[winner]
    else:
        result = "draw" if winner is None else f"{names[winner]} wins"
    outcome = "draw" if winner is None else f"{names[winner]} wins"
    reason = record.reason.removeprefix("hand: ")
    hands = plural(record.hands, "hand")
    return (
        f"Finished game {record.game + 1} ({players}): {result} "
        f"{{{outcome}, {reason}; {scores} in {hands}}}"
    )


class GameLines(MatchObserver):
    """Prints a line as each game ends (two bots: with the running score)."""

    def __init__(self, names: Sequence[str], output: TextIO | None = None) -> None:
        self.names = list(names)
        self.output = output or sys.stdout
        self.tally = [0, 0, 0]  # first bot's wins, losses, draws

    def on_record(self, record: Record) -> None:
        if not isinstance(record, GameEndRecord):
            return
        line = game_line(record, self.names)
        if len(self.names) == 2:
            winner = record.winner
            self.tally[2 if winner is None else winner] += 1
            wins, losses, draws = self.tally
            played = wins + losses + draws
            line += f"  score {wins}-{losses}-{draws} [{(wins + draws / 2) / played:.3f}]"
        print(line, file=self.output, flush=True)


def _number(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def elo_text(result: MatchResult) -> str | None:
    """The line under a two-bot table: Elo difference, its error, LOS, win rate."""
    if len(result.seats) != 2 or not result.games:
        return None
    summary = elo_summary(result.wins(0), result.losses(0), result.draws(0))
    if math.isnan(summary.error):
        error = " (no interval: every game scored the same)"
    elif math.isinf(summary.error):  # a score of 0 or 1 in reach: give both ends
        error = f" (95%: {_number(summary.low)} .. {_number(summary.high)})"
    else:
        error = f" ± {summary.error:.1f} (95%)"
    rate, low, high = result.win_rate(0)
    first, second = result.seats[0].name, result.seats[1].name
    return (
        f"Elo difference ({first} - {second}): {_number(summary.elo)}{error}, "
        f"LOS {summary.los:.1%}; {first}'s win rate {rate:.1%} ({low:.1%}-{high:.1%})"
    )
