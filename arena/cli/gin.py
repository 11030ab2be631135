"""``arena gin analyze``: best melds, deadwood and knock discards of a hand."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any

from arena.cards import Card, CardParseError, CardSet, best_arrangement, knock_discards
from arena.games.gin_rummy import STANDARD

__all__ = ["analyze", "register"]


def register(commands: Any) -> None:
    gin = commands.add_parser("gin", help="Gin Rummy tools")
    tools = gin.add_subparsers(dest="gin_command", required=True, metavar="TOOL")
    parser = tools.add_parser("analyze", help="best melds and deadwood of a 10- or 11-card hand")
    parser.add_argument("cards", nargs="+", metavar="CARD", help="cards like 7H TS 10c A♠")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--knock-limit",
        type=int,
        default=STANDARD.knock_limit,
        help="knock limit for the discards (default 10)",
    )
    parser.set_defaults(run=_run)


@dataclass(frozen=True)
class HandAnalysis:
    """A Gin hand's best arrangement; for an 11-card hand, the discards that allow a
    knock and the deadwood each leaves."""

    deadwood: int
    melds: tuple[tuple[str, ...], ...]
    unmatched: tuple[str, ...]
    discards: tuple[tuple[str, int], ...] | None  # (card, deadwood); None: a 10-card hand

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "deadwood": self.deadwood,
            "melds": [list(meld) for meld in self.melds],
            "unmatched": list(self.unmatched),
        }
        if self.discards is not None:
            data["discards"] = [{"card": card, "deadwood": left} for card, left in self.discards]
        return data


def analyze(cards: list[str], knock_limit: int) -> HandAnalysis:
    """The hand's analysis; ``ValueError`` (``CardParseError``) for bad input."""
    if not 0 <= knock_limit <= 100:  # the range GinRules accepts
        raise ValueError(f"--knock-limit must be 0..100, got {knock_limit}")
    parsed = [Card.parse(text) for text in cards]
    hand = CardSet.of(parsed)  # raises on a duplicate
    if len(hand) not in (10, 11):
        raise CardParseError(f"a Gin Rummy hand has 10 cards (11 after drawing), got {len(hand)}")
    arrangement = best_arrangement(hand)
    discards = None
    if len(hand) == 11:
        ordered = sorted(
            knock_discards(hand, knock_limit).items(), key=lambda item: (item[1], item[0].index)
        )
        discards = tuple((str(card), deadwood) for card, deadwood in ordered)
    return HandAnalysis(
        arrangement.deadwood,
        tuple(tuple(str(card) for card in _meld_order(meld.cards)) for meld in arrangement.melds),
        tuple(str(card) for card in arrangement.unmatched.sorted_by_rank()),
        discards,
    )


def _meld_order(cards: CardSet) -> list[Card]:
    return cards.sorted_by_rank() if len({card.rank for card in cards}) == 1 else list(cards)


def _run(args: argparse.Namespace) -> int:
    result = analyze(args.cards, args.knock_limit)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print("melds:    " + ("  ".join("-".join(meld) for meld in result.melds) or "none"))
    print("unmatched: " + (" ".join(result.unmatched) or "none"))
    print(f"deadwood: {result.deadwood}")
    if result.discards is not None:
        if result.discards:
            listed = ", ".join(f"{card} ({left})" for card, left in result.discards)
            print(f"knock discards (limit {args.knock_limit}): {listed}")
        else:
            print(f"knock discards (limit {args.knock_limit}): none")
    return 0
