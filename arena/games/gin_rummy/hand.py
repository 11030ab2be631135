"""One hand of Gin Rummy: the deal, the turns, the knock, layoffs and the hand score.

Deal (deck index 0 is the top): the non-dealer gets cards 0, 2, .., 18, the dealer
1, 3, .., 19; card 20 is the upcard that starts the discard pile; 21.. is the stock.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import (
    ALL_CARDS,
    Arrangement,
    Card,
    CardParseError,
    CardSet,
    InvalidMeldError,
    Suit,
    best_arrangement,
    deadwood_of_mask,
    knock_discards,
    layoff_options,
    shuffled_deck,
    validate_layoffs,
)
from arena.games.base import GameError, IllegalActionError, Outcome
from arena.games.gin_rummy.actions import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Defend,
    Discard,
    Draw,
    DrawSource,
    Knock,
    Pass,
    discards_of_mask,
)
from arena.games.gin_rummy.observation import (
    EventKind,
    GinObservation,
    Phase,
    PublicEvent,
    VisibleState,
)
from arena.games.gin_rummy.results import HandResult, KnockInfo, SeatResult, Termination
from arena.games.gin_rummy.rules import GinRules
from arena.games.turns import turn_error

__all__ = [
    "EventKind",
    "GinHand",
    "GinObservation",
    "HandResult",
    "KnockInfo",
    "Phase",
    "PublicEvent",
    "SeatResult",
    "Termination",
    "VisibleState",
]

_ALL_CARDS_MASK = (1 << 52) - 1


def _by_card(kind: EventKind, seat: int | None) -> tuple[PublicEvent, ...]:
    return tuple(PublicEvent(kind, seat, card) for card in ALL_CARDS)


# The events of the turns, made once (they are immutable): the same few hundred
# recur in every hand, and the referee encodes each of them once.
_UPCARD = _by_card(EventKind.UPCARD, None)  # by card index
_DRAW_DISCARD = (_by_card(EventKind.DRAW_DISCARD, 0), _by_card(EventKind.DRAW_DISCARD, 1))
_DISCARD = (_by_card(EventKind.DISCARD, 0), _by_card(EventKind.DISCARD, 1))  # by seat, card
_DRAW_STOCK = (PublicEvent(EventKind.DRAW_STOCK, 0), PublicEvent(EventKind.DRAW_STOCK, 1))
_PASS = (PublicEvent(EventKind.PASS, 0), PublicEvent(EventKind.PASS, 1))
_HAND_OVER = {winner: PublicEvent(EventKind.HAND_OVER, winner) for winner in (None, 0, 1)}


# Builds a VisibleState without NamedTuple's argument handling: a third of the cost,
# and one is built every decision.
_new_view = tuple.__new__

_RULE_TURN = "rule 2: a turn is draw one card, then discard one"
_RULE_SAME_CARD = "rule 3: a card taken from the discard pile may not be discarded in the same turn"
_RULE_KNOCK = "rule 4: knock only with deadwood at most the knock limit"
_RULE_LAYOFF = "rule 5: the defender lays off on the knocker's melds"
_RULE_FIRST = "first turn: the non-dealer, then the dealer, may take the upcard"
_RULE_LAST = "last-discard variant: take the last discard only to knock or go gin"
_RULE_OVER = "rules 4-7: the hand has ended (knock, gin or two cards left in the stock)"


class GinHand:
    """A hand in progress.  Mutable; ``apply`` advances it."""

    num_seats = 2

    def __init__(
        self,
        rules: GinRules,
        deck: Sequence[Card],
        dealer: int = 0,
        *,
        scores: tuple[int, int] = (0, 0),
        hand_number: int = 0,
    ) -> None:
        if dealer not in (0, 1):
            raise ValueError(f"dealer must be seat 0 or 1, got {dealer}")
        mask = 0
        for card in deck:
            mask |= 1 << card.index
        if len(deck) != 52 or mask != _ALL_CARDS_MASK:
            raise ValueError("a deck order must hold each of the 52 cards exactly once")
        self.rules = rules
        self.deck = tuple(deck)
        self.dealer = dealer
        self.scores = scores
        self.hand_number = hand_number
        first = 1 - dealer
        hands = [0, 0]
        for i in range(20):
            hands[first if i % 2 == 0 else dealer] |= 1 << deck[i].index
        self._hands = hands
        upcard = deck[20]
        self._discards: list[Card] = [upcard]
        self._stock: list[Card] = list(reversed(deck[21:]))  # top of stock at the end
        self._seen = [0, 0]
        self._forbidden: Card | None = None
        self._must_knock = False
        self._turns = 0  # turns completed by a discard
        self._phase = Phase.FIRST_UPCARD
        self._seat: int | None = first
        self._knock: KnockInfo | None = None
        self._knock_card: Card | None = None
        self.result: HandResult | None = None
        if rules.oklahoma:
            self.knock_limit = 0 if upcard.rank == 0 else upcard.value
            self.doubled = upcard.suit is Suit.SPADES
        else:
            self.knock_limit = rules.knock_limit
            self.doubled = False
        self.events: list[PublicEvent] = [_UPCARD[upcard.index]]

    @classmethod
    def from_seed(cls, rules: GinRules, seed: int, dealer: int = 0) -> GinHand:
        return cls(rules, shuffled_deck(seed), dealer)

    # -- the game interface -------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self._phase

    def current_seat(self) -> int | None:
        return self._seat

    def is_terminal(self) -> bool:
        return self.result is not None

    def hand_of(self, seat: int) -> CardSet:
        """A seat's cards (the referee's view; bots get ``observation``)."""
        return CardSet(self._hands[seat])

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    def legal_actions(self) -> list[Action]:
        phase = self._phase
        if phase is Phase.DRAW:
            return [DRAW_STOCK, DRAW_DISCARD] if self._discards else [DRAW_STOCK]
        if phase is Phase.DISCARD:
            return self._discard_actions()
        if phase is Phase.FIRST_UPCARD:
            return [DRAW_DISCARD, PASS]
        if phase is Phase.DEFEND:
            return self._defend_actions()
        if phase is Phase.LAST_DISCARD:
            assert self._seat is not None
            mask = self._hands[self._seat] | 1 << self._discards[-1].index
            can_knock = any(
                c is not self._discards[-1] for c in knock_discards(CardSet(mask), self.knock_limit)
            )
            return [DRAW_DISCARD, PASS] if can_knock else [PASS]
        return []

    def _discard_actions(self) -> list[Action]:
        seat = self._seat
        assert seat is not None
        mask = self._hands[seat]
        forbidden = self._forbidden
        actions: list[Action] = []
        if not self._must_knock:
            allowed = mask if forbidden is None else mask & ~(1 << forbidden.index)
            actions.extend(discards_of_mask(allowed))
        if deadwood_of_mask(mask) - 10 > self.knock_limit:
            return actions  # no discard can bring the deadwood within the limit
        for card in knock_discards(CardSet(mask), self.knock_limit):
            if card is not forbidden:
                arrangement = best_arrangement(CardSet(mask & ~(1 << card.index)))
                actions.append(Knock(card, arrangement.melds))
        return actions

    def _defend_actions(self) -> list[Action]:
        seat, knock = self._seat, self._knock
        assert seat is not None and knock is not None
        hand = CardSet(self._hands[seat])
        actions: list[Action] = []
        for layoffs, _ in layoff_options(knock.melds, hand):
            kept = hand - CardSet.of(layoff.card for layoff in layoffs)
            actions.append(Defend(best_arrangement(kept).melds, layoffs))
        return actions

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Play ``action`` for the seat to act (``seat``, if given, must be that seat)."""
        actor = self._seat
        if actor is None or (seat is not None and seat != actor):
            raise turn_error(action, seat, actor, _RULE_OVER)
        phase = self._phase
        if phase is Phase.DRAW:
            self._apply_draw(action)
        elif phase is Phase.DISCARD:
            self._apply_discard(action)
        elif phase is Phase.FIRST_UPCARD:
            self._apply_first_upcard(action)
        elif phase is Phase.DEFEND:
            self._apply_defend(action)
        else:
            self._apply_last_discard(action)

    # -- phases -------------------------------------------------------------

    def _take_discard(self, seat: int) -> None:
        card = self._discards.pop()
        self._hands[seat] |= 1 << card.index
        self._seen[seat] |= 1 << card.index
        self._forbidden = card
        self.events.append(_DRAW_DISCARD[seat][card.index])

    def _take_stock(self, seat: int) -> None:
        card = self._stock.pop()
        self._hands[seat] |= 1 << card.index
        self._forbidden = None
        self.events.append(_DRAW_STOCK[seat])

    def _apply_draw(self, action: Action) -> None:
        seat = self._seat
        assert seat is not None
        if not isinstance(action, Draw):
            raise IllegalActionError(f"cannot {action}: seat {seat} must draw first", _RULE_TURN)
        if action.source is DrawSource.STOCK:
            self._take_stock(seat)
        else:
            if not self._discards:
                raise IllegalActionError(
                    "cannot draw from the discard pile: it is empty", _RULE_TURN
                )
            self._take_discard(seat)
        self._phase = Phase.DISCARD

    def _apply_first_upcard(self, action: Action) -> None:
        seat = self._seat
        assert seat is not None
        if action == DRAW_DISCARD:
            self._take_discard(seat)
            self._phase = Phase.DISCARD
            return
        if not isinstance(action, Pass):
            raise IllegalActionError(f"cannot {action}: take the upcard or pass", _RULE_FIRST)
        self.events.append(_PASS[seat])
        if seat != self.dealer:
            self._seat = self.dealer
            return
        # Both passed: the non-dealer draws from the stock.
        first = 1 - self.dealer
        self._seat = first
        self._take_stock(first)
        self._phase = Phase.DISCARD

    def _check_discard(self, seat: int, card: Card) -> None:
        if not self._hands[seat] >> card.index & 1:
            raise IllegalActionError(
                f"cannot discard {card}: not in seat {seat}'s hand", _RULE_TURN
            )
        if card is self._forbidden:
            raise IllegalActionError(
                f"cannot discard {card}: taken from the discard pile this turn", _RULE_SAME_CARD
            )

    def _apply_discard(self, action: Action) -> None:
        seat = self._seat
        assert seat is not None
        if isinstance(action, Knock):
            self._apply_knock(seat, action)
            return
        if not isinstance(action, Discard):
            raise IllegalActionError(
                f"cannot {action}: seat {seat} must discard or knock", _RULE_TURN
            )
        if self._must_knock:
            raise IllegalActionError(
                f"cannot {action}: the last discard was taken to knock", _RULE_LAST
            )
        card = action.card
        self._check_discard(seat, card)
        bit = 1 << card.index
        self._hands[seat] ^= bit
        self._seen[seat] &= ~bit
        self._discards.append(card)
        self._forbidden = None
        self.events.append(_DISCARD[seat][card.index])
        self._turns += 1
        if self._turns >= self.rules.turn_limit:
            self._finish_draw()
            return
        if len(self._stock) <= 2:
            if self.rules.last_discard:
                self._seat = 1 - seat
                self._phase = Phase.LAST_DISCARD
            else:
                self._finish_draw()
            return
        self._seat = 1 - seat
        self._phase = Phase.DRAW

    def _apply_knock(self, seat: int, action: Knock) -> None:
        card = action.card
        self._check_discard(seat, card)
        rest = CardSet(self._hands[seat] & ~(1 << card.index))
        try:
            arrangement = Arrangement.of(rest, action.melds)
        except InvalidMeldError as error:
            raise IllegalActionError(f"cannot knock with {card}: {error}", _RULE_KNOCK) from error
        deadwood = arrangement.deadwood
        if deadwood > self.knock_limit:
            raise IllegalActionError(
                f"cannot knock with {card}: deadwood {deadwood} is above the knock limit {self.knock_limit}",
                _RULE_KNOCK,
            )
        self._hands[seat] = rest.mask
        self._seen[seat] &= ~(1 << card.index)
        self._knock_card = card
        self._forbidden = None
        self._must_knock = False
        self._knock = KnockInfo(seat, arrangement.melds, arrangement.unmatched)
        self.events.append(
            PublicEvent(EventKind.KNOCK, seat, None, arrangement.melds, arrangement.unmatched)
        )
        if deadwood == 0:
            self._finish_gin(seat)
        else:
            self._seat = 1 - seat
            self._phase = Phase.DEFEND

    def _apply_defend(self, action: Action) -> None:
        seat, knock = self._seat, self._knock
        assert seat is not None and knock is not None
        if not isinstance(action, Defend):
            raise IllegalActionError(
                f"cannot {action}: seat {seat} must lay down and lay off", _RULE_LAYOFF
            )
        hand = CardSet(self._hands[seat])
        try:
            laid = CardSet.of(layoff.card for layoff in action.layoffs)
        except CardParseError as error:
            raise IllegalActionError(f"cannot lay off: {error}", _RULE_LAYOFF) from error
        if not laid <= hand:
            raise IllegalActionError(
                f"cannot lay off {laid - hand}: not in seat {seat}'s hand", _RULE_LAYOFF
            )
        try:
            own = Arrangement.of(hand - laid, action.melds)
            validate_layoffs(knock.melds, action.layoffs)
        except InvalidMeldError as error:
            raise IllegalActionError(str(error), _RULE_LAYOFF) from error
        knocker_deadwood = knock.deadwood
        deadwood = own.deadwood
        points = 2 if self.doubled else 1
        if deadwood <= knocker_deadwood:
            termination, winner = Termination.UNDERCUT, seat
            points *= knocker_deadwood - deadwood + self.rules.undercut_bonus
        else:
            termination, winner = Termination.KNOCK, knock.seat
            points *= deadwood - knocker_deadwood
        self.events.append(
            PublicEvent(EventKind.DEFEND, seat, None, own.melds, own.unmatched, action.layoffs)
        )
        defender = SeatResult(
            hand,
            own.melds,
            action.layoffs,
            own.unmatched,
            deadwood,
            points if winner == seat else 0,
        )
        self._finish(termination, winner, points, defender)

    def _finish_gin(self, knocker: int) -> None:
        defender = 1 - knocker
        hand = CardSet(self._hands[defender])
        own = best_arrangement(hand)  # no layoffs against gin
        points = (own.deadwood + self.rules.gin_bonus) * (2 if self.doubled else 1)
        result = SeatResult(hand, own.melds, (), own.unmatched, own.deadwood, 0)
        self._finish(Termination.GIN, knocker, points, result)

    def _finish(
        self, termination: Termination, winner: int, points: int, defender: SeatResult
    ) -> None:
        knock = self._knock
        assert knock is not None
        knocker = SeatResult(
            CardSet(self._hands[knock.seat]),
            knock.melds,
            (),
            knock.unmatched,
            knock.deadwood,
            points if winner == knock.seat else 0,
        )
        seats = (knocker, defender) if knock.seat == 0 else (defender, knocker)
        self._end(
            HandResult(
                termination,
                winner,
                knock.seat,
                points,
                seats,
                self.knock_limit,
                self.doubled,
                self._knock_card,
            )
        )

    def _finish_draw(self) -> None:
        seats = []
        for seat in (0, 1):
            hand = CardSet(self._hands[seat])
            arrangement = best_arrangement(hand)
            seats.append(
                SeatResult(
                    hand, arrangement.melds, (), arrangement.unmatched, arrangement.deadwood, 0
                )
            )
        self._end(
            HandResult(
                Termination.DRAW,
                None,
                None,
                0,
                (seats[0], seats[1]),
                self.knock_limit,
                self.doubled,
            )
        )

    def _end(self, result: HandResult) -> None:
        self.result = result
        self._phase = Phase.OVER
        self._seat = None
        self.events.append(_HAND_OVER[result.winner])

    def _apply_last_discard(self, action: Action) -> None:
        seat = self._seat
        assert seat is not None
        if isinstance(action, Pass):
            self.events.append(_PASS[seat])
            self._finish_draw()
            return
        if action != DRAW_DISCARD:
            raise IllegalActionError(f"cannot {action}: take the last discard or pass", _RULE_LAST)
        if DRAW_DISCARD not in self.legal_actions():
            raise IllegalActionError(
                "cannot take the last discard: no knock would follow", _RULE_LAST
            )
        self._take_discard(seat)
        self._must_knock = True
        self._phase = Phase.DISCARD

    # -- information --------------------------------------------------------

    def visible(self, seat: int) -> VisibleState:
        """What ``seat`` may know now that changes during the hand: the one place
        that decides what a seat is shown (``observation`` is built from it)."""
        if seat != 0 and seat != 1:
            raise ValueError(f"no seat {seat} in Gin Rummy")
        to_act = self._seat
        return _new_view(
            VisibleState,
            (
                self._phase,
                to_act,
                self._hands[seat],
                tuple(self._discards),
                len(self._stock),
                self._hands[1 - seat].bit_count(),
                self._seen[1 - seat],
                self._seen[seat],
                self._forbidden if to_act == seat else None,
                self._knock,
            ),
        )

    def observation(self, seat: int) -> GinObservation:
        view = self.visible(seat)
        return GinObservation(
            seat=seat,
            dealer=self.dealer,
            phase=view.phase,
            to_act=view.to_act,
            hand=CardSet(view.hand),
            discard_pile=view.discard_pile,
            stock_size=view.stock_size,
            opponent_hand_size=view.opponent_hand_size,
            opponent_known=CardSet(view.opponent_known),
            own_known=CardSet(view.own_known),
            knock_limit=self.knock_limit,
            doubled=self.doubled,
            forbidden_discard=view.forbidden_discard,
            knock=view.knock,
            scores=self.scores,
            hand_number=self.hand_number,
        )

    def card_locations(self) -> dict[str, CardSet]:
        """Where every card is (hands, stock, discard pile, knock discard): for audits."""
        return {
            "hand0": CardSet(self._hands[0]),
            "hand1": CardSet(self._hands[1]),
            "stock": CardSet.of(self._stock),
            "discard_pile": CardSet.of(self._discards),
            "knock_discard": CardSet.of([self._knock_card] if self._knock_card else []),
        }

    def outcome(self) -> Outcome:
        """The hand on its own as a game: each seat's points for the hand."""
        if self.result is None:
            raise GameError("the hand is not over")
        result = self.result
        if result.winner is None:
            return Outcome(result.scores, (0, 0), None)
        return Outcome(result.scores, (0, 1) if result.winner == 0 else (1, 0), result.winner)
