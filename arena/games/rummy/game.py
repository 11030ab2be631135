"""A game of Basic Rummy: hands until one player is left (standard) or one reaches
the target (winner-takes-all).

- First dealer: every seat draws a card from a seeded shuffle (``draw_for_deal``);
  the highest rank deals (king high, ace low); tied players draw again.
- The deal passes one seat to the left (the next seat number still in the game)
  after every hand; the player at the dealer's left plays first.
- Deal ``k`` of a game seeded ``s`` uses ``seeded_deck(rules, players, derive_seed(s, 1, k))``
  and reshuffles with ``derive_seed(s, 2, k)``, so the seed alone fixes every card.
- Standard scoring: a seat whose total reaches ``target`` is eliminated and sits out
  the later hands; deck and hand size follow the number of players still in (a
  six-player game down to four players is dealt 7 cards each from one deck).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from arena.cards import Card, derive_seed, shuffled_deck
from arena.games.base import GameError, HandsGame, Outcome
from arena.games.rummy.actions import Action
from arena.games.rummy.cards import RummyCard
from arena.games.rummy.hand import RummyHand, seeded_deck
from arena.games.rummy.observation import RummyObservation
from arena.games.rummy.results import HandResult, Termination, hand_outcome
from arena.games.rummy.rules import RummyRules, Scoring

__all__ = ["GameSummary", "RummyGame", "SummaryReason", "draw_for_deal"]


def draw_for_deal(seed: int, num_seats: int) -> tuple[int, tuple[tuple[int, Card], ...]]:
    """The first dealer, and the cards drawn as (seat, card) in drawing order.

    Seats draw in seat order from ``shuffled_deck(derive_seed(seed, 0))``; the
    highest rank (K high, A low) deals; seats tied for highest draw again.
    """
    deck = shuffled_deck(derive_seed(seed, 0))
    contenders = list(range(num_seats))
    draws: list[tuple[int, Card]] = []
    position = 0
    while position + len(contenders) <= len(deck):
        drawn = [(seat, deck[position + k]) for k, seat in enumerate(contenders)]
        position += len(contenders)
        draws.extend(drawn)
        best = max(card.rank for _, card in drawn)
        contenders = [seat for seat, card in drawn if card.rank == best]
        if len(contenders) == 1:
            break
    return contenders[0], tuple(draws)


class SummaryReason(StrEnum):
    """Why a game ended (a ``StrEnum``: its text is what replays and the protocol carry)."""

    ELIMINATION = "elimination"  # standard scoring: one player left below the target
    TARGET = "target"  # winner-takes-all: a total reached the target
    DEAL_LIMIT = "deal limit"  # max_deals reached: the standing decides
    # a game of a single hand, by how the hand ended
    HAND_OUT = "hand: out"
    HAND_RUMMY = "hand: rummy"
    HAND_BLOCKED = "hand: blocked"

    @classmethod
    def of_hand(cls, termination: Termination) -> SummaryReason:
        return cls(f"hand: {termination.value}")


@dataclass(frozen=True, slots=True)
class GameSummary:
    """Final accounting of a finished game."""

    totals: tuple[int, ...]  # standard: penalty totals; winner-takes-all: points
    eliminated_in: tuple[int | None, ...]  # the hand that eliminated each seat (standard)
    winner: int | None
    reason: SummaryReason


class RummyGame(HandsGame[Action, RummyObservation, HandResult]):
    """Hands to the end of the game.  Offers the same interface as a single ``RummyHand``.

    ``max_deals`` (0 = none) stops a game that would not end; the standing then
    decides it.  ``single_hand`` makes the game one deal scored by its hand alone
    (no eliminations, no target): what a match of single hands plays.
    """

    over_rule = "rule 10: the game ends with one player left or a total at the target"
    hand: RummyHand

    def __init__(
        self,
        rules: RummyRules,
        seed: int,
        num_seats: int,
        *,
        first_dealer: int | None = None,
        max_deals: int = 0,
        single_hand: bool = False,
    ) -> None:
        rules.check_players(num_seats)
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        self.rules = rules
        self.seed = seed
        self.num_seats = num_seats
        self.max_deals = 1 if single_hand else max_deals
        self.single_hand = single_hand
        self.totals = [0] * num_seats
        self.eliminated_in: list[int | None] = [None] * num_seats
        self.results: list[HandResult] = []
        self.summary: GameSummary | None = None
        dealer = draw_for_deal(seed, num_seats)[0] if first_dealer is None else first_dealer
        if not 0 <= dealer < num_seats:
            raise ValueError(f"first_dealer must be a seat 0..{num_seats - 1}, got {dealer}")
        self.hand = self._deal(dealer)

    def active_seats(self) -> list[int]:
        """Seats still in the game."""
        return [seat for seat in range(self.num_seats) if self.eliminated_in[seat] is None]

    def _deck(self, number: int, players: Sequence[int], dealer: int) -> Sequence[RummyCard]:
        """The deck order of deal ``number`` (tests override this with hand-built deals)."""
        return seeded_deck(self.rules, len(players), derive_seed(self.seed, 1, number))

    def _deal(self, dealer: int) -> RummyHand:
        number = len(self.results)
        players = self.active_seats()
        return RummyHand(
            self.rules,
            self._deck(number, players, dealer),
            dealer,
            num_seats=self.num_seats,
            players=players,
            scores=tuple(self.totals),
            hand_number=number,
            reshuffle_seed=derive_seed(self.seed, 2, number),
        )

    def hand_over(self, result: HandResult) -> None:
        number = len(self.results)
        self.results.append(result)
        for seat_index, info in enumerate(result.seats):
            self.totals[seat_index] += info.points
        rules = self.rules
        if self.single_hand:
            self._finish(SummaryReason.of_hand(result.termination))
            return
        if rules.scoring is Scoring.STANDARD:
            for player in self.hand.players:
                if self.totals[player] >= rules.target:
                    self.eliminated_in[player] = number
            if len(self.active_seats()) == 1:
                self._finish(SummaryReason.ELIMINATION)
                return
        elif self.totals[result.winner] >= rules.target:
            self._finish(SummaryReason.TARGET)
            return
        if self.max_deals and len(self.results) >= self.max_deals:
            self._finish(SummaryReason.DEAL_LIMIT)
            return
        self.hand = self._deal(self._next_dealer(self.hand.dealer))

    def _next_dealer(self, dealer: int) -> int:
        for step in range(1, self.num_seats + 1):
            seat = (dealer + step) % self.num_seats
            if self.eliminated_in[seat] is None:
                return seat
        raise AssertionError("a game in progress always has players")

    def _finish(self, reason: SummaryReason) -> None:
        self.summary = GameSummary(tuple(self.totals), tuple(self.eliminated_in), None, reason)
        outcome = self.outcome()
        self.summary = GameSummary(
            tuple(self.totals), tuple(self.eliminated_in), outcome.winner, reason
        )

    def points(self) -> tuple[int, ...]:
        """The standing as "higher is better" points: winner-takes-all totals, or the
        negated penalty totals in standard scoring."""
        if self.rules.scoring is Scoring.STANDARD:
            return tuple(-total for total in self.totals)
        return tuple(self.totals)

    def outcome(self) -> Outcome:
        """Scores are ``points()``.  Ranks (for TrueSkill): standard scoring ranks the
        last player standing first, the others by elimination (later is better),
        then by total (lower is better); winner-takes-all ranks by total."""
        if self.summary is None:
            raise GameError("the game is not over")
        if self.single_hand:
            return hand_outcome(self.rules, self.results[-1])
        keys: list[tuple[int, ...]]
        if self.rules.scoring is Scoring.STANDARD:
            keys = []
            for seat, total in enumerate(self.totals):
                out = self.eliminated_in[seat]
                keys.append((0, 0, total) if out is None else (1, -out, total))
        else:
            keys = [(-total,) for total in self.totals]
        ranks = tuple(sum(1 for other in keys if other < key) for key in keys)
        first = [seat for seat, rank in enumerate(ranks) if rank == 0]
        return Outcome(self.points(), ranks, first[0] if len(first) == 1 else None)
