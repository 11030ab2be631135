"""The actions of Gin Rummy, with a text form that round-trips.

Text forms: ``draw stock``, ``draw discard``, ``pass``, ``discard 7H``,
``knock 7H 7C-7D-7S 8H-9H-TH ...`` (discard, then melds),
``defend 5C-5D-5H | 4H>0 JS>1`` (own melds, then layoffs as card>meld-index).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.cards import ALL_CARDS, Card, CardParseError, CardSet, InvalidMeldError, Layoff, Meld
from arena.cards.masks import of_mask, suit_table
from arena.games.base import ActionParseError
from arena.games.turns import DRAW_DISCARD, DRAW_STOCK, Draw, DrawSource, parse_draw

__all__ = [
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "PASS",
    "Action",
    "ActionParseError",
    "Defend",
    "Discard",
    "Draw",
    "DrawSource",
    "Knock",
    "Pass",
    "discard",
    "discards_of_mask",
    "parse_action",
]


@dataclass(frozen=True, slots=True)
class Pass:
    """Refuse the first upcard, or (last-discard variant) let the hand be cancelled."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Discard:
    card: Card

    def __str__(self) -> str:
        return f"discard {self.card}"


@dataclass(frozen=True, slots=True)
class Knock:
    """Discard ``card`` face down and lay down ``melds``; deadwood 0 is gin."""

    card: Card
    melds: tuple[Meld, ...]

    def __str__(self) -> str:
        return " ".join([f"knock {self.card}", *(str(meld) for meld in self.melds)])


@dataclass(frozen=True, slots=True)
class Defend:
    """The defender's own melds and his layoffs on the knocker's melds."""

    melds: tuple[Meld, ...]
    layoffs: tuple[Layoff, ...] = ()

    def __str__(self) -> str:
        parts = ["defend", *(str(meld) for meld in self.melds)]
        if self.layoffs:
            parts += ["|", *(str(layoff) for layoff in self.layoffs)]
        return " ".join(parts)


Action = Draw | Pass | Discard | Knock | Defend

PASS: Final = Pass()
_DISCARDS: Final = tuple(Discard(card) for card in ALL_CARDS)


def discard(card: Card) -> Discard:
    """The (shared, immutable) discard action for ``card``."""
    return _DISCARDS[card.index]


# Discard actions of each 13-bit suit mask: a hand's discards are four tuple lookups,
# the hot path of every turn.
_SUIT_DISCARDS: Final = suit_table(_DISCARDS)


def discards_of_mask(mask: int) -> list[Discard]:
    """The discard action of every card in a 52-bit hand mask, in card order."""
    return of_mask(_SUIT_DISCARDS, mask)


def _parse_meld(text: str) -> Meld:
    return Meld.of(CardSet.parse(text.split("-")))


def parse_action(text: str) -> Action:
    """Parse an action's text form; ``ActionParseError`` says what is wrong."""
    words = text.split()
    if not words:
        raise ActionParseError("empty action")
    verb, args = words[0].lower(), words[1:]
    try:
        draw = parse_draw(args) if verb == "draw" else None
        if draw is not None:
            return draw
        if verb in ("pass",) and not args:
            return PASS
        if verb == "discard" and len(args) == 1:
            return discard(Card.parse(args[0]))
        if verb == "knock" and args:
            return Knock(Card.parse(args[0]), tuple(_parse_meld(m) for m in args[1:]))
        if verb == "defend":
            split = args.index("|") if "|" in args else len(args)
            melds = tuple(_parse_meld(m) for m in args[:split])
            layoffs = []
            for item in args[split + 1 :]:
                card_text, _, index_text = item.partition(">")
                if not index_text.isdigit():
                    raise ActionParseError(f"bad layoff {item!r}: expected CARD>MELD_INDEX")
                layoffs.append(Layoff(Card.parse(card_text), int(index_text)))
            return Defend(melds, tuple(layoffs))
    except (CardParseError, InvalidMeldError) as error:
        raise ActionParseError(f"bad action {text!r}: {error}") from error
    raise ActionParseError(
        f"not an action: {text!r} (expected draw stock|discard, pass, discard CARD, "
        "knock CARD MELD..., defend MELD... | CARD>N...)"
    )
