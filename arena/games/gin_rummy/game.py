"""A game of Gin Rummy: hands until a player reaches the target, with the bonuses.

Dealers follow the classic procedure for every preset: the lower card of a seeded
cut deals first, the winner of a hand deals the next, and after a drawn (cancelled)
hand the same dealer deals again.  Deal ``k`` of a game seeded ``s`` uses the deck
``shuffled_deck(derive_seed(s, 1, k))``, so the seed alone fixes every deal.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.cards import Card, derive_seed, shuffled_deck
from arena.games.base import GameError, HandsGame, Outcome
from arena.games.gin_rummy.actions import Action
from arena.games.gin_rummy.hand import GinHand, GinObservation, HandResult
from arena.games.gin_rummy.rules import GinRules

__all__ = ["GameSummary", "GinGame", "cut_for_deal"]


def cut_for_deal(seed: int) -> tuple[int, tuple[Card, ...]]:
    """The first dealer (lower card of a cut; equal ranks cut again) and the cards cut."""
    deck = shuffled_deck(derive_seed(seed, 0))
    for i in range(0, 52, 2):
        first, second = deck[i], deck[i + 1]
        if first.rank != second.rank:
            return (0 if first.rank < second.rank else 1), deck[: i + 2]
    raise AssertionError("a 52-card deck always cuts two different ranks")


@dataclass(frozen=True, slots=True)
class GameSummary:
    """Final accounting of a finished game."""

    totals: tuple[int, int]  # hand points, what counts toward the target
    hands_won: tuple[int, int]
    box_bonus: tuple[int, int]
    game_bonus: tuple[int, int]
    winner: int | None
    shutout: bool

    @property
    def final(self) -> tuple[int, int]:
        return (
            self.totals[0] + self.box_bonus[0] + self.game_bonus[0],
            self.totals[1] + self.box_bonus[1] + self.game_bonus[1],
        )


class GinGame(HandsGame[Action, GinObservation, HandResult]):
    """Hands to the target.  Offers the same interface as a single ``GinHand``.

    ``max_deals`` (0 = none) stops a game that would not end, e.g. between bots that
    never knock; such a game is won by the higher total, without the game bonus.
    ``single_hand`` makes the game one deal scored by its hand points alone (no
    target, no bonuses): what a match of single hands plays.
    """

    num_seats = 2
    over_rule = "rule 8: the game ends when a player's total reaches the target"
    hand: GinHand

    def __init__(
        self,
        rules: GinRules,
        seed: int,
        *,
        first_dealer: int | None = None,
        max_deals: int = 0,
        single_hand: bool = False,
    ) -> None:
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        self.rules = rules
        self.seed = seed
        self.max_deals = 1 if single_hand else max_deals
        self.single_hand = single_hand
        self.totals = [0, 0]
        self.hands_won = [0, 0]
        self.results: list[HandResult] = []
        self.summary: GameSummary | None = None
        dealer = cut_for_deal(seed)[0] if first_dealer is None else first_dealer
        self.hand = self._deal(dealer)

    def _deal(self, dealer: int) -> GinHand:
        deck = shuffled_deck(derive_seed(self.seed, 1, len(self.results)))
        return GinHand(
            self.rules,
            deck,
            dealer,
            scores=(self.totals[0], self.totals[1]),
            hand_number=len(self.results),
        )

    def hand_over(self, result: HandResult) -> None:
        self.results.append(result)
        if result.winner is not None:
            self.totals[result.winner] += result.points
            self.hands_won[result.winner] += 1
        reached = [seat for seat in (0, 1) if self.totals[seat] >= self.rules.target]
        if reached:
            self._finish(reached[0], by_target=True)
        elif self.max_deals and len(self.results) >= self.max_deals:
            leader = (
                None if self.totals[0] == self.totals[1] else int(self.totals[1] > self.totals[0])
            )
            self._finish(leader, by_target=False)
        else:
            next_dealer = self.hand.dealer if result.winner is None else result.winner
            self.hand = self._deal(next_dealer)

    def _finish(self, winner: int | None, *, by_target: bool) -> None:
        rules = self.rules
        box_bonus = 0 if self.single_hand else rules.box_bonus
        box = (self.hands_won[0] * box_bonus, self.hands_won[1] * box_bonus)
        game_bonus = [0, 0]
        shutout = False
        if winner is not None and by_target:
            shutout = self.totals[1 - winner] == 0
            game_bonus[winner] = (
                rules.shutout_bonus if shutout and rules.shutout_bonus else rules.game_bonus
            )
        self.summary = GameSummary(
            (self.totals[0], self.totals[1]),
            (self.hands_won[0], self.hands_won[1]),
            box,
            (game_bonus[0], game_bonus[1]),
            winner,
            shutout,
        )

    def outcome(self) -> Outcome:
        summary = self.summary
        if summary is None:
            raise GameError("the game is not over")
        if summary.winner is None:
            return Outcome(summary.final, (0, 0), None)
        ranks = (0, 1) if summary.winner == 0 else (1, 0)
        return Outcome(summary.final, ranks, summary.winner)
