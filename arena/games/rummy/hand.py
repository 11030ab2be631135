"""One hand of Basic Rummy: the deal, the turns, melds, layoffs, joker swaps, the score.

Deal (deck index 0 is the top): with ``p`` players and hands of ``h`` cards, card
``i < p*h`` goes to the ``(i mod p)``-th player in turn order, which starts at the
dealer's left (the next seat up that is still in the game); card ``p*h`` is the
upcard that starts the discard pile; the rest is the stock, drawn from card
``p*h + 1`` on.

A turn is one ``Draw``, then any number of ``LayMeld`` / ``LayOff`` / ``SwapJoker``
(each its own decision), then a ``Discard``.  The hand ends the moment a player's
hand is empty.  Choices this module makes where the rule texts are open:

- Identical cards (two decks) are interchangeable, so the card taken from the
  discard pile forbids discarding *that face* this turn, whichever copy.  Drawing
  from the discard pile is refused when every card in hand has the face on top
  (nothing could be discarded after it).
- A meld, layoff or swap may not leave the hand holding only the card taken from
  the discard pile (nothing could be discarded); lay that card down first.
- A set is 3 or 4 cards of one rank, whatever their suits: with two decks
  ``7H-7H-7S`` is a set (seed 004: "de cualquier palo").  A wild card in a set
  still names the natural card it stands for, of the set's rank; only that card
  can be swapped for it.  A set with fewer than 4 cards takes any card of its rank.
- A wild card stands for one named natural card (``stands_for``).  Any number of
  wild cards may be in a meld.  A wild deuce may stand for itself.  A player
  holding the natural card a wild card stands for may swap it in (``SwapJoker``)
  during his play; the wild card goes to his hand.  Swapped wild cards become
  known cards of that seat (everyone saw them taken).
- Laying down, laying off and swapping all count as "laid down" for the Rummy
  bonus: it needs a player who goes out in a turn that started with nothing of
  his on the table.
- The stock is rebuilt when it is empty at the end of a turn.  Reshuffle ``r``
  (0, 1, ..) of a hand shuffles the discard pile (bottom first, without its top
  card) with ``SeededRng(derive_seed(reshuffle_seed, r))``.  After
  ``max_reshuffles`` reshuffles, or when the pile has no card to give, an empty
  stock ends the hand ("blocked"): the lowest hand total wins, ties going to the
  first tied player in turn order.  ``turn_limit`` turns end it the same way.

``legal_actions`` (the ``listing`` module) lists every discard, every layoff of a held card on every meld
(a wild card once for each card it could stand for there; on a set, each card of
its rank the set does not hold), every swap, and as new melds every natural set
(each 3 or 4 held cards of a rank, twins included) and every natural run of 3 or
more, plus those with exactly one wild card standing for a card not held.
Melds with more wild cards, or a wild card standing for a card held, are not
listed (their number explodes) but ``apply`` accepts any valid meld.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import Card, SeededRng, derive_seed
from arena.cards.masks import bits
from arena.games.base import GameError, IllegalActionError, Outcome
from arena.games.rummy.actions import (
    DRAW_DISCARD,
    DRAW_STOCK,
    Action,
    Discard,
    Draw,
    DrawSource,
    LayMeld,
    LayOff,
    SwapJoker,
)
from arena.games.rummy.cards import FACES, JOKER_INDEX, PENALTIES, RummyCard
from arena.games.rummy.listing import Openings, openings, play_actions
from arena.games.rummy.melds import NATURAL_CARDS, LiveMeld, build_meld
from arena.games.rummy.observation import (
    EventKind,
    Phase,
    PublicEvent,
    RummyObservation,
    SeatInfo,
    TableMeld,
)
from arena.games.rummy.results import HandResult, SeatResult, Termination, hand_outcome
from arena.games.rummy.rules import Ace, RummyRules, Scoring
from arena.games.turns import turn_error

__all__ = [
    "EventKind",
    "HandResult",
    "Phase",
    "PublicEvent",
    "RummyHand",
    "RummyObservation",
    "SeatInfo",
    "SeatResult",
    "TableMeld",
    "Termination",
    "hand_outcome",
    "seeded_deck",
]


def seeded_deck(rules: RummyRules, players: int, seed: int) -> list[RummyCard]:
    """The deck order (index 0 = top) of a deal for ``players`` under ``seed``:
    the composition in face order, shuffled by ``SeededRng(seed)`` (same everywhere)."""
    deck = list(rules.composition(players))
    SeededRng(seed).shuffle(deck)
    return deck


# -- rules named in errors -------------------------------------------------------

_RULE_TURN = "rule 5: a turn is draw one card, meld and lay off as you like, then discard one"
_RULE_SAME_CARD = "rule 5: a card taken from the discard pile may not be discarded in the same turn"
_RULE_KEEP = "rule 5: keep a card you may discard, unless you go out"
_RULE_LAYOFF = (
    "rule 5: lay off single cards on a run's ends or on a set of fewer than 4; "
    "melds are never rearranged"
)
_RULE_WILD = "rule 11: a wild card stands for one named natural card in a meld"
_RULE_SWAP = "rule 11: a player holding the real card may swap it for the wild card on the table"
_RULE_HAND = "rule 5: play only cards you hold"
_RULE_OVER = "rules 6-8: the hand has ended"


class RummyHand:
    """A hand in progress.  Mutable; ``apply`` advances it."""

    def __init__(
        self,
        rules: RummyRules,
        deck: Sequence[RummyCard],
        dealer: int = 0,
        *,
        num_seats: int = 2,
        players: Sequence[int] | None = None,
        scores: Sequence[int] | None = None,
        hand_number: int = 0,
        reshuffle_seed: int = 0,
    ) -> None:
        active = tuple(range(num_seats)) if players is None else tuple(sorted(set(players)))
        rules.check_players(len(active))
        if any(not 0 <= seat < num_seats for seat in active):
            raise ValueError(f"players {active} are not all seats of a {num_seats}-seat game")
        if dealer not in active:
            raise ValueError(f"dealer {dealer} is not one of the players {active}")
        count = len(active)
        expected = [0] * 53
        for card in rules.composition(count):
            expected[card.index] += 1
        got = [0] * 53
        for card in deck:
            got[card.index] += 1
        if got != expected:
            raise ValueError(
                f"a deck order for {count} players must hold exactly the {len(rules.composition(count))} cards of the deal"
            )
        self.rules = rules
        self.deck = tuple(deck)
        self.dealer = dealer
        self.num_seats = num_seats
        self.players = active
        self.scores = tuple(scores) if scores is not None else (0,) * num_seats
        if len(self.scores) != num_seats:
            raise ValueError(f"scores must have one entry per seat, got {self.scores}")
        self.hand_number = hand_number
        self.reshuffle_seed = reshuffle_seed
        start = (active.index(dealer) + 1) % count
        self.order = active[start:] + active[:start]  # turn order, dealer's left first
        self._next = {seat: self.order[(i + 1) % count] for i, seat in enumerate(self.order)}
        self._wild = rules.wild_mask()
        self._top = 13 if rules.ace is Ace.HIGH else 12
        self._counts = [[0] * 53 for _ in range(num_seats)]
        self._masks = [0] * num_seats
        self._sizes = [0] * num_seats
        self._doubles = [0] * num_seats  # natural faces held twice (two decks)
        self._known: list[dict[int, int]] = [{} for _ in range(num_seats)]
        size = rules.hand_size(count)
        faces = [card.index for card in deck]
        for i in range(count * size):
            self._add(self.order[i % count], faces[i])
        upcard = faces[count * size]
        self._discards: list[int] = [upcard]
        self._stock: list[int] = faces[: count * size : -1]  # top of the stock at the end
        self._melds: list[LiveMeld] = []
        self._layoffs: list[list[LayOff]] = [[] for _ in range(num_seats)]
        self._melded = [False] * num_seats
        self._melded_before_turn = False
        self._forbidden: int | None = None
        self._phase = Phase.DRAW
        self._seat: int | None = self.order[0]
        self._legal: list[Action] | None = None
        self._openings: Openings | None = None  # the table's, until it changes
        self.reshuffles = 0
        self.turns = 0  # turns completed
        self.result: HandResult | None = None
        self.events: list[PublicEvent] = [PublicEvent(EventKind.UPCARD, None, FACES[upcard])]

    @classmethod
    def from_seed(
        cls, rules: RummyRules, seed: int, num_seats: int = 2, dealer: int = 0
    ) -> RummyHand:
        """A hand dealt from ``seeded_deck(rules, num_seats, seed)``; reshuffles use
        ``derive_seed(seed, 1)``."""
        deck = seeded_deck(rules, num_seats, seed)
        return cls(
            rules,
            deck,
            dealer,
            num_seats=num_seats,
            reshuffle_seed=derive_seed(seed, 1),
        )

    # -- hand bookkeeping ---------------------------------------------------------

    def _add(self, seat: int, face: int) -> None:
        counts = self._counts[seat]
        counts[face] += 1
        self._masks[seat] |= 1 << face
        self._sizes[seat] += 1
        if counts[face] == 2 and face != JOKER_INDEX:
            self._doubles[seat] |= 1 << face

    def _remove(self, seat: int, face: int) -> None:
        counts = self._counts[seat]
        counts[face] -= 1
        if not counts[face]:
            self._masks[seat] &= ~(1 << face)
        elif counts[face] == 1:
            self._doubles[seat] &= ~(1 << face)
        self._sizes[seat] -= 1
        known = self._known[seat]
        if face in known:  # everyone assumes the known copy was played
            if known[face] == 1:
                del known[face]
            else:
                known[face] -= 1

    def _cards_of(self, seat: int) -> tuple[RummyCard, ...]:
        counts = self._counts[seat]
        return tuple(FACES[face] for face in bits(self._masks[seat]) for _ in range(counts[face]))

    # -- the game interface ---------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self._phase

    def current_seat(self) -> int | None:
        return self._seat

    def is_terminal(self) -> bool:
        return self.result is not None

    def hand_of(self, seat: int) -> tuple[RummyCard, ...]:
        """A seat's cards in face order (the referee's view; bots get ``observation``)."""
        return self._cards_of(seat)

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    @property
    def discard_pile(self) -> tuple[RummyCard, ...]:
        return tuple(FACES[face] for face in self._discards)

    @property
    def table(self) -> tuple[TableMeld, ...]:
        return tuple(meld.snapshot(self._wild) for meld in self._melds)

    @property
    def forbidden_discard(self) -> RummyCard | None:
        return None if self._forbidden is None else FACES[self._forbidden]

    def legal_actions(self) -> list[Action]:
        """Every listed legal action (see the module docstring); a fresh list."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return list(legal)

    def _compute_legal(self) -> list[Action]:
        seat = self._seat
        if seat is None:
            return []
        if self._phase is Phase.DRAW:
            actions: list[Action] = [DRAW_STOCK] if self._stock else []
            if self._discards and self._counts[seat][self._discards[-1]] != self._sizes[seat]:
                actions.append(DRAW_DISCARD)
            return actions
        table = self._openings
        if table is None:
            table = self._openings = openings(self._melds, self._top, self._wild)
        return play_actions(
            self._counts[seat],
            self._masks[seat],
            self._sizes[seat],
            self._forbidden,
            self._wild,
            self._top,
            self._doubles[seat],
            self._melds,
            table,
        )

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Play ``action`` for the seat to act (``seat``, if given, must be that seat).

        Everything is checked before anything changes.
        """
        actor = self._seat
        if actor is None or (seat is not None and seat != actor):
            raise turn_error(action, seat, actor, _RULE_OVER)
        if self._phase is Phase.DRAW:
            if not isinstance(action, Draw):
                raise IllegalActionError(
                    f"cannot {action}: seat {actor} must draw first", _RULE_TURN
                )
            self._apply_draw(actor, action)
        elif isinstance(action, Discard):
            self._apply_discard(actor, action.card)
        elif isinstance(action, LayMeld):
            self._apply_meld(actor, action)
        elif isinstance(action, LayOff):
            self._apply_layoff(actor, action)
        elif isinstance(action, SwapJoker):
            self._apply_swap(actor, action)
        else:
            raise IllegalActionError(
                f"cannot {action}: seat {actor} has drawn; meld, lay off, swap or discard",
                _RULE_TURN,
            )
        self._legal = None

    # -- the steps of a turn ----------------------------------------------------------

    def _apply_draw(self, seat: int, action: Draw) -> None:
        if action.source is DrawSource.STOCK:
            if not self._stock:
                raise IllegalActionError("cannot draw from the stock: it is empty", _RULE_TURN)
            face = self._stock.pop()
            self._forbidden = None
            self._add(seat, face)
            self.events.append(PublicEvent(EventKind.DRAW_STOCK, seat))
        else:
            if not self._discards:
                raise IllegalActionError(
                    "cannot draw from the discard pile: it is empty", _RULE_TURN
                )
            face = self._discards[-1]
            if self._counts[seat][face] == self._sizes[seat]:
                raise IllegalActionError(
                    f"cannot take {FACES[face]}: every card in seat {seat}'s hand would be "
                    f"{FACES[face]}, which may not be discarded this turn",
                    _RULE_KEEP,
                )
            self._discards.pop()
            self._add(seat, face)
            known = self._known[seat]
            known[face] = known.get(face, 0) + 1
            self._forbidden = face
            self.events.append(PublicEvent(EventKind.DRAW_DISCARD, seat, FACES[face]))
        self._melded_before_turn = self._melded[seat]
        self._phase = Phase.PLAY

    def _check_held(self, seat: int, faces: Sequence[int], what: str) -> None:
        counts = self._counts[seat]
        for face in set(faces):
            if faces.count(face) > counts[face]:
                held = counts[face]
                detail = "not in" if held == 0 else f"only {held} in"
                raise IllegalActionError(
                    f"cannot {what}: {FACES[face]} {detail} seat {seat}'s hand", _RULE_HAND
                )

    def _check_keeps(self, seat: int, taken: Sequence[int], added: int, what: str) -> None:
        forbidden = self._forbidden
        if forbidden is None:
            return
        left = self._sizes[seat] - len(taken) + (added >= 0)
        if left == 0:
            return
        forbidden_left = (
            self._counts[seat][forbidden] - taken.count(forbidden) + (added == forbidden)
        )
        if left <= forbidden_left:
            raise IllegalActionError(
                f"cannot {what}: only {FACES[forbidden]}, taken from the discard pile this turn, "
                "would be left to discard",
                _RULE_KEEP,
            )

    def _resolve(self, card: RummyCard, stands_for: Card | None, what: str) -> int:
        """The natural card ``card`` stands for (its own face unless wild)."""
        face = card.index
        if self._wild >> face & 1:
            if stands_for is not None:
                return stands_for.index
            if face == JOKER_INDEX:
                raise IllegalActionError(
                    f"cannot {what}: say which card the joker stands for (JK=7H)", _RULE_WILD
                )
            return face  # a wild deuce naming nothing stands for itself
        if face == JOKER_INDEX:
            raise IllegalActionError(f"cannot {what}: no jokers in these rules", _RULE_WILD)
        if stands_for is not None and stands_for.index != face:
            raise IllegalActionError(
                f"cannot {what}: {card} is not a wild card in these rules", _RULE_WILD
            )
        return face

    def _apply_meld(self, seat: int, action: LayMeld) -> None:
        what = str(action)
        faces = [card.index for card in action.cards]
        naturals = [
            self._resolve(card, stands, what)
            for card, stands in zip(action.cards, action.stands_for, strict=True)
        ]
        meld = build_meld(naturals, faces, self._top, what)
        self._check_held(seat, faces, what)
        self._check_keeps(seat, faces, -1, what)
        meld.id, meld.owner = len(self._melds), seat
        self._melds.append(meld)
        self._openings = None
        for face in faces:
            self._remove(seat, face)
        self._melded[seat] = True
        self.events.append(PublicEvent(EventKind.LAY_MELD, seat, None, meld.snapshot(self._wild)))
        if not self._sizes[seat]:
            self._finish_out(seat)

    def _meld(self, meld_id: int, what: str) -> LiveMeld:
        if not 0 <= meld_id < len(self._melds):
            raise IllegalActionError(
                f"cannot {what}: no meld #{meld_id} on the table", _RULE_LAYOFF
            )
        return self._melds[meld_id]

    def _apply_layoff(self, seat: int, action: LayOff) -> None:
        what = str(action)
        meld = self._meld(action.meld_id, what)
        face = action.card.index
        natural = self._resolve(action.card, action.stands_for, what)
        position = -1
        for candidate in meld.open_positions(self._top):
            fits = meld.natural(candidate) == natural if meld.run else natural % 13 == meld.key
            if fits:
                position = candidate
                break
        if position < 0:
            shown = meld.snapshot(self._wild)
            target = "it" if natural == face else f"{NATURAL_CARDS[natural]}"
            raise IllegalActionError(
                f"cannot {what}: {target} does not extend meld #{meld.id} ({shown})", _RULE_LAYOFF
            )
        self._check_held(seat, [face], what)
        self._check_keeps(seat, [face], -1, what)
        meld.add(position, face, natural)
        self._openings = None
        self._remove(seat, face)
        stands_for = NATURAL_CARDS[natural] if self._wild >> face & 1 else None
        self._layoffs[seat].append(LayOff(action.card, meld.id, stands_for))
        self._melded[seat] = True
        self.events.append(
            PublicEvent(EventKind.LAY_OFF, seat, action.card, meld.snapshot(self._wild), stands_for)
        )
        if not self._sizes[seat]:
            self._finish_out(seat)

    def _apply_swap(self, seat: int, action: SwapJoker) -> None:
        what = str(action)
        meld = self._meld(action.meld_id, what)
        natural = action.card.index
        position = -1
        for candidate, face in meld.slots.items():
            if meld.natural(candidate) == natural and self._wild >> face & 1 and face != natural:
                position = candidate
                break
        if position < 0:
            raise IllegalActionError(
                f"cannot {what}: meld #{meld.id} ({meld.snapshot(self._wild)}) has no wild card "
                f"standing for {action.card}",
                _RULE_SWAP,
            )
        wild = meld.slots[position]
        self._check_held(seat, [natural], what)
        self._check_keeps(seat, [natural], wild, what)
        meld.slots[position] = natural
        meld.changed()
        self._openings = None
        self._remove(seat, natural)
        self._add(seat, wild)
        known = self._known[seat]
        known[wild] = known.get(wild, 0) + 1
        self._melded[seat] = True
        self.events.append(
            PublicEvent(
                EventKind.SWAP_JOKER,
                seat,
                action.card,
                meld.snapshot(self._wild),
                None,
                FACES[wild],
            )
        )

    def _apply_discard(self, seat: int, card: RummyCard) -> None:
        face = card.index
        if not self._counts[seat][face]:
            raise IllegalActionError(
                f"cannot discard {card}: not in seat {seat}'s hand", _RULE_HAND
            )
        if face == self._forbidden:
            raise IllegalActionError(
                f"cannot discard {card}: taken from the discard pile this turn", _RULE_SAME_CARD
            )
        self._remove(seat, face)
        self._discards.append(face)
        self._forbidden = None
        self.events.append(PublicEvent(EventKind.DISCARD, seat, card))
        self.turns += 1
        if not self._sizes[seat]:
            self._finish_out(seat)
            return
        if not self._stock:
            # (The pile always has a card to give here: the turn drew the stock's last
            # card and discarded on top of a non-empty pile; the check is defensive.)
            if self.reshuffles >= self.rules.max_reshuffles or len(self._discards) < 2:
                self._finish_blocked()
                return
            self._reshuffle()
        if self.turns >= self.rules.turn_limit:
            self._finish_blocked()
            return
        self._seat = self._next[seat]
        self._phase = Phase.DRAW

    def _reshuffle(self) -> None:
        top = self._discards[-1]
        pool = self._discards[:-1]
        SeededRng(derive_seed(self.reshuffle_seed, self.reshuffles)).shuffle(pool)
        self._stock = pool[::-1]  # pool[0] is the new top of the stock
        self._discards = [top]
        self.reshuffles += 1
        self.events.append(PublicEvent(EventKind.RESHUFFLE, None, FACES[top]))

    # -- the end of the hand ----------------------------------------------------------

    def _penalty(self, seat: int) -> int:
        counts = self._counts[seat]
        return sum(PENALTIES[face] * counts[face] for face in bits(self._masks[seat]))

    def _finish_out(self, seat: int) -> None:
        termination = Termination.OUT if self._melded_before_turn else Termination.RUMMY
        self._finish(termination, seat)

    def _finish_blocked(self) -> None:
        winner = min(self.order, key=self._penalty)  # min keeps the first of equals
        self._finish(Termination.BLOCKED, winner)

    def _finish(self, termination: Termination, winner: int) -> None:
        rules = self.rules
        penalties = [self._penalty(seat) for seat in range(self.num_seats)]
        points = [0] * self.num_seats
        doubled = False
        hand_points = 0
        if rules.scoring is Scoring.STANDARD:
            for seat in self.players:
                if seat != winner:
                    points[seat] = penalties[seat]
        else:
            hand_points = sum(penalties[seat] for seat in self.players if seat != winner)
            doubled = rules.rummy_bonus and termination is Termination.RUMMY
            if doubled:
                hand_points *= 2
            points[winner] = hand_points
        table = self.table
        seats = tuple(
            SeatResult(
                self._cards_of(seat),
                tuple(meld for meld in table if meld.owner == seat),
                tuple(self._layoffs[seat]),
                penalties[seat],
                points[seat],
                seat in self.players,
            )
            for seat in range(self.num_seats)
        )
        self.result = HandResult(
            termination, winner, hand_points, doubled, seats, self.reshuffles, self.turns
        )
        self._phase = Phase.OVER
        self._seat = None
        self._forbidden = None
        self.events.append(PublicEvent(EventKind.HAND_OVER, winner))

    # -- information --------------------------------------------------------------------

    def observation(self, seat: int) -> RummyObservation:
        if not 0 <= seat < self.num_seats:
            raise ValueError(f"no seat {seat} in a {self.num_seats}-seat game")
        infos = []
        for other in range(self.num_seats):
            known = self._known[other]
            infos.append(
                SeatInfo(
                    self._sizes[other],
                    tuple(FACES[f] for f in sorted(known) for _ in range(known[f])),
                    self.scores[other],
                    other not in self.players,
                )
            )
        forbidden = self._forbidden if self._seat == seat else None
        return RummyObservation(
            seat=seat,
            num_seats=self.num_seats,
            dealer=self.dealer,
            phase=self._phase,
            to_act=self._seat,
            hand=self._cards_of(seat),
            discard_pile=self.discard_pile,
            stock_size=len(self._stock),
            seats=tuple(infos),
            table=self.table,
            forbidden_discard=None if forbidden is None else FACES[forbidden],
            reshuffles=self.reshuffles,
            max_reshuffles=self.rules.max_reshuffles,
            melded_this_hand=self._melded[seat],
            hand_number=self.hand_number,
        )

    def card_locations(self) -> dict[str, tuple[RummyCard, ...]]:
        """Where every card is, for audits: each hand (face order), the stock (top
        first), the discard pile (bottom first), the table (meld by meld)."""
        out = {f"hand{seat}": self._cards_of(seat) for seat in range(self.num_seats)}
        out["stock"] = tuple(FACES[face] for face in reversed(self._stock))
        out["discard_pile"] = self.discard_pile
        out["table"] = tuple(card for meld in self.table for card in meld.cards)
        return out

    def outcome(self) -> Outcome:
        """The hand on its own as a game (see ``hand_outcome``)."""
        if self.result is None:
            raise GameError("the hand is not over")
        return hand_outcome(self.rules, self.result)
