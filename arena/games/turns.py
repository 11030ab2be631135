"""The turn vocabulary Gin Rummy and Basic Rummy share: drawing, and whose turn it is.

A turn in both games starts with a ``Draw`` from the stock or the discard pile; the
two draws are interned singletons (``DRAW_STOCK``, ``DRAW_DISCARD``) that the
engines list and compare by identity on every turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from arena.games.base import IllegalActionError

__all__ = [
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "RULE_ORDER",
    "Draw",
    "DrawSource",
    "parse_draw",
    "turn_error",
]

RULE_ORDER: Final = "turn order: only the seat to act may act"


class DrawSource(Enum):
    STOCK = "stock"
    DISCARD = "discard"


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the top card of the stock or of the discard pile (in Gin Rummy, also
    the first upcard)."""

    source: DrawSource

    def __str__(self) -> str:
        return f"draw {self.source.value}"


DRAW_STOCK: Final = Draw(DrawSource.STOCK)
DRAW_DISCARD: Final = Draw(DrawSource.DISCARD)


def parse_draw(args: list[str]) -> Draw | None:
    """The draw that ``draw ARGS`` names (``stock`` or ``discard``), else ``None``."""
    if len(args) == 1:
        source = args[0].lower()
        if source == "stock":
            return DRAW_STOCK
        if source == "discard":
            return DRAW_DISCARD
    return None


def turn_error(
    action: object, seat: int | None, actor: int | None, over_rule: str
) -> IllegalActionError:
    """Why ``seat`` (``None``: whoever is to act) may not play ``action`` when
    ``actor`` is to act (``None``: the hand is over, under ``over_rule``).

    Engines test ``actor is None or (seat is not None and seat != actor)`` inline,
    on every action, and call this only to build the error they raise."""
    if actor is None:
        return IllegalActionError(f"cannot {action}: the hand is over", over_rule)
    return IllegalActionError(f"seat {seat} cannot {action}: it is seat {actor}'s turn", RULE_ORDER)
