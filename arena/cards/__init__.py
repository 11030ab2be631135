"""Cards, card sets, seeded decks and meld search (shared by every game)."""

from arena.cards.card import ALL_CARDS, Card, CardParseError, CardSet, Suit, card_value
from arena.cards.deck import SeededRng, derive_seed, shuffled_deck
from arena.cards.melds import (
    Arrangement,
    InvalidMeldError,
    Layoff,
    Meld,
    MeldKind,
    best_arrangement,
    deadwood_of_mask,
    knock_discards,
    layoff_options,
    min_deadwood,
    validate_layoffs,
)

__all__ = [
    "ALL_CARDS",
    "Arrangement",
    "Card",
    "CardParseError",
    "CardSet",
    "InvalidMeldError",
    "Layoff",
    "Meld",
    "MeldKind",
    "SeededRng",
    "Suit",
    "best_arrangement",
    "card_value",
    "deadwood_of_mask",
    "derive_seed",
    "knock_discards",
    "layoff_options",
    "min_deadwood",
    "shuffled_deck",
    "validate_layoffs",
]
