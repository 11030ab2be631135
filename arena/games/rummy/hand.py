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

``legal_actions`` lists every discard, every layoff of a held card on every meld
(a wild card once for each card it could stand for there; on a set, each card of
its rank the set does not hold), every swap, and as new melds every natural set
(each 3 or 4 held cards of a rank, twins included) and every natural run of 3 or
more, plus those with exactly one wild card standing for a card not held.
Melds with more wild cards, or a wild card standing for a card held, are not
listed (their number explodes) but ``apply`` accepts any valid meld.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import combinations
from typing import Final, NamedTuple

from arena.cards import Card, MeldKind, SeededRng, derive_seed
from arena.cards.masks import bits, of_mask, suit_table
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
    discard,
)
from arena.games.rummy.cards import FACES, JOKER_INDEX, PENALTIES, RummyCard
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

_NATURALS: Final = (1 << 52) - 1
_SUIT: Final = 0x1FFF
_NATURAL_CARDS: Final[tuple[Card, ...]] = tuple(card for card in FACES if isinstance(card, Card))


class Phase(Enum):
    DRAW = "draw"
    PLAY = "play"  # meld, lay off, swap, then discard
    OVER = "over"


class Termination(Enum):
    OUT = "out"  # a player emptied his hand
    RUMMY = "rummy"  # ... in one turn, with nothing laid down before in the hand
    BLOCKED = "blocked"  # reshuffle cap, no cards to rebuild the stock, or turn limit


class EventKind(Enum):
    UPCARD = "upcard"  # the deal turned the first upcard
    DRAW_STOCK = "draw_stock"  # the card stays hidden
    DRAW_DISCARD = "draw_discard"
    LAY_MELD = "lay_meld"
    LAY_OFF = "lay_off"
    SWAP_JOKER = "swap_joker"
    DISCARD = "discard"
    RESHUFFLE = "reshuffle"  # the discard pile (but its top card) became the stock
    HAND_OVER = "hand_over"


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table.  ``stands_for[i]`` is the natural card ``cards[i]``
    stands for when it is wild (``None`` for a natural card).  Runs read low to
    high, sets in suit order."""

    id: int
    owner: int
    cards: tuple[RummyCard, ...]
    stands_for: tuple[Card | None, ...]

    @property
    def naturals(self) -> tuple[Card, ...]:
        """The natural card each position holds or stands for."""
        out: list[Card] = []
        for card, stands in zip(self.cards, self.stands_for, strict=True):
            natural = stands if stands is not None else card
            assert isinstance(natural, Card)
            out.append(natural)
        return tuple(out)

    @property
    def kind(self) -> MeldKind:
        first, second = self.naturals[:2]
        return MeldKind.SET if first.rank == second.rank else MeldKind.RUN

    def __str__(self) -> str:
        return "-".join(
            str(card) if stands is None else f"{card}={stands}"
            for card, stands in zip(self.cards, self.stands_for, strict=True)
        )


class PublicEvent(NamedTuple):
    """Something every seat saw happen.

    ``meld`` is the meld laid (``LAY_MELD``) or the meld after the change
    (``LAY_OFF``, ``SWAP_JOKER``); ``stands_for`` names what a wild card laid off
    stands for; ``wild`` is the wild card a swap took off the table.
    """

    kind: EventKind
    seat: int | None
    card: RummyCard | None = None
    meld: TableMeld | None = None
    stands_for: Card | None = None
    wild: RummyCard | None = None


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """What everyone knows about one seat."""

    hand_size: int
    known: tuple[RummyCard, ...]  # taken from the discard pile (or a swap) and still held
    score: int  # game total before this hand
    eliminated: bool


@dataclass(frozen=True, slots=True)
class RummyObservation:
    """Exactly what one seat may know: its own cards and what was played in the open."""

    seat: int
    num_seats: int
    dealer: int
    phase: Phase
    to_act: int | None
    hand: tuple[RummyCard, ...]  # face order, repeats for duplicates
    discard_pile: tuple[RummyCard, ...]  # bottom first; the last card is the top
    stock_size: int
    seats: tuple[SeatInfo, ...]
    table: tuple[TableMeld, ...]
    forbidden_discard: RummyCard | None  # taken from the discard pile this turn (own turn only)
    reshuffles: int
    max_reshuffles: int
    # this seat has laid down, laid off or swapped in this hand (this turn included;
    # going out is a Rummy if this was False when the turn's draw was made)
    melded_this_hand: bool
    hand_number: int


@dataclass(frozen=True, slots=True)
class SeatResult:
    hand: tuple[RummyCard, ...]  # cards held at the end
    melds: tuple[TableMeld, ...]  # melds this seat laid down, as they ended
    layoffs: tuple[LayOff, ...]  # layoffs this seat made
    penalty: int  # value of the cards held
    points: int  # added to this seat's game total by this hand
    played: bool  # False: eliminated before this hand


@dataclass(frozen=True, slots=True)
class HandResult:
    termination: Termination
    winner: int
    points: int  # winner-takes-all: what the winner scores; standard: 0
    doubled: bool  # the Rummy bonus doubled the penalties
    seats: tuple[SeatResult, ...]
    reshuffles: int
    turns: int

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(seat.points for seat in self.seats)


def seeded_deck(rules: RummyRules, players: int, seed: int) -> list[RummyCard]:
    """The deck order (index 0 = top) of a deal for ``players`` under ``seed``:
    the composition in face order, shuffled by ``SeededRng(seed)`` (same everywhere)."""
    deck = list(rules.composition(players))
    SeededRng(seed).shuffle(deck)
    return deck


def hand_outcome(rules: RummyRules, result: HandResult) -> Outcome:
    """A hand on its own as a game (a match of single hands).

    Scores are "higher is better": the winner's points in winner-takes-all, minus
    the penalty added in standard scoring.  Ranks: the winner first, the others by
    their penalty (lower is better), seats that did not play last.
    """
    keys = []
    scores = []
    for seat, info in enumerate(result.seats):
        if rules.scoring is Scoring.STANDARD:
            scores.append(-info.points)
        else:
            scores.append(info.points)
        keys.append((not info.played, seat != result.winner, info.penalty))
    ranks = tuple(sum(1 for other in keys if other < key) for key in keys)
    return Outcome(tuple(scores), ranks, result.winner)


# -- meld geometry -------------------------------------------------------------


def _run_intervals(top: int) -> tuple[tuple[int, int, int, int], ...]:
    """(lo, hi, mask, length) of every run position interval of length >= 3."""
    out = []
    for lo in range(top + 1):
        for hi in range(lo + 2, top + 1):
            if lo == 0 and hi == 13:
                continue  # K-A-2: the ace would be low and high at once
            out.append((lo, hi, ((1 << (hi - lo + 1)) - 1) << lo, hi - lo + 1))
    return tuple(out)


_INTERVALS: Final = {12: _run_intervals(12), 13: _run_intervals(13)}
# (extended rank mask, top position, wilds in hand) -> (lo, hi, missing position or -1)
_RUN_CACHE: dict[tuple[int, int, bool], tuple[tuple[int, int, int], ...]] = {}


def _run_options(ext: int, top: int, wild: bool) -> tuple[tuple[int, int, int], ...]:
    key = (ext, top, wild)
    found = _RUN_CACHE.get(key)
    if found is None:
        options = []
        for lo, hi, mask, length in _INTERVALS[top]:
            count = (ext & mask).bit_count()
            if count == length:
                options.append((lo, hi, -1))
            elif wild and count == length - 1:
                options.append((lo, hi, ((mask ^ ext) & mask).bit_length() - 1))
        found = _RUN_CACHE[key] = tuple(options)
    return found


_SetOptions = tuple[tuple[tuple[int, ...], ...], tuple[tuple[tuple[int, ...], int], ...]]


def _set_options(held: tuple[int, ...]) -> _SetOptions:
    """The suits of every natural set (3 or 4 cards) that ``held`` copies per suit
    allow, and of every pair or three completed by a wild card standing for a suit
    not held.  Twins (two decks) are one suit twice; each multiset comes once."""
    cards = [s for s in range(4) for _ in range(held[s])]
    missing = [s for s in range(4) if not held[s]]
    natural = tuple(dict.fromkeys(t for k in (3, 4) for t in combinations(cards, k)))
    partial = tuple(dict.fromkeys(t for k in (2, 3) for t in combinations(cards, k)))
    return natural, tuple((t, m) for t in partial for m in missing)


# Discard actions of each 13-bit suit mask: a hand's discards are four lookups (hot path).
_SUIT_DISCARDS: Final = suit_table([discard(card) for card in _NATURAL_CARDS])
_DISCARD_JOKER: Final = discard(FACES[JOKER_INDEX])
# Set options by copies held per suit (0-2 each): 81 entries at most, filled lazily.
_SET_CACHE: dict[tuple[int, ...], _SetOptions] = {}


class _Meld:
    """A table meld in play: ``slots`` maps a position (run: 0..13, 13 = ace high;
    set: 0..3 in the order laid) to the face that fills it; a set's ``members`` map
    each position to the natural card it holds or stands for."""

    __slots__ = (
        "hi", "id", "key", "lo", "members", "offers", "open", "owner", "public", "run", "slots",
    )  # fmt: skip

    def __init__(
        self,
        meld_id: int,
        owner: int,
        run: bool,
        key: int,
        slots: dict[int, int],
        members: dict[int, int],
    ) -> None:
        self.id = meld_id
        self.owner = owner
        self.run = run
        self.key = key  # run: its suit; set: its rank
        self.slots = slots
        self.members = members
        self.lo = min(slots)
        self.hi = max(slots)
        # caches, cleared by ``changed``: the snapshot, the natural cards that fit
        # (an ace fitting both ends once), and layoff actions by (face, natural)
        self.public: TableMeld | None = None
        self.open: list[int] | None = None
        self.offers: dict[int, LayOff] = {}

    def changed(self) -> None:
        self.lo = min(self.slots)
        self.hi = max(self.slots)
        self.public = None
        self.open = None
        self.offers = {}

    def open_naturals(self, top: int) -> list[int]:
        """The natural cards that extend the meld: a run's two ends (an ace fitting
        both once); a set's rank in every suit while it has fewer than 4 cards."""
        found = self.open
        if found is None:
            found = []
            if not self.run:
                if len(self.slots) < 4:
                    found = [13 * suit + self.key for suit in range(4)]
            else:
                for position in self.open_positions(top):
                    natural = self.natural(position)
                    if natural not in found:
                        found.append(natural)
            self.open = found
        return found

    def lacks(self, natural: int) -> bool:
        """Whether no card of the meld is (or stands for) ``natural``: where a wild card
        is offered (on a set, standing for a twin of a card there would add nothing
        new).  Runs keep no members: the cards that extend them are never in them."""
        return natural not in self.members.values()

    def offer(self, face: int, natural: int, stands_for: Card | None) -> LayOff:
        key = face << 6 | natural
        action = self.offers.get(key)
        if action is None:
            action = self.offers[key] = LayOff(FACES[face], self.id, stands_for)
        return action

    def natural(self, position: int) -> int:
        if self.run:
            return 13 * self.key + position % 13
        return self.members[position]

    def add(self, position: int, face: int, natural: int) -> None:
        self.slots[position] = face
        if not self.run:
            self.members[position] = natural
        self.changed()

    def open_positions(self, top: int) -> list[int]:
        """Where a card may be added: a set's next position (any suit of its rank
        fits there), a run's two ends."""
        if not self.run:
            return [len(self.slots)] if len(self.slots) < 4 else []
        out = []
        lo, hi = self.lo, self.hi
        if lo >= 1 and not (lo == 1 and hi == 13):
            out.append(lo - 1)
        if hi < top and not (hi == 12 and lo == 0):
            out.append(hi + 1)
        return out

    def snapshot(self, wild: int) -> TableMeld:
        if self.public is None:
            cards: list[RummyCard] = []
            stands: list[Card | None] = []
            order = (
                sorted(self.slots)
                if self.run
                else sorted(self.slots, key=lambda p: (self.members[p], self.slots[p]))
            )  # runs low to high, sets in suit order
            for position in order:
                face = self.slots[position]
                cards.append(FACES[face])
                stands.append(_NATURAL_CARDS[self.natural(position)] if wild >> face & 1 else None)
            self.public = TableMeld(self.id, self.owner, tuple(cards), tuple(stands))
        return self.public


# -- rules named in errors -------------------------------------------------------

_RULE_TURN = "rule 5: a turn is draw one card, meld and lay off as you like, then discard one"
_RULE_SAME_CARD = "rule 5: a card taken from the discard pile may not be discarded in the same turn"
_RULE_KEEP = "rule 5: keep a card you may discard, unless you go out"
_RULE_MELD = (
    "rule 5: a meld is a set (3-4 of a rank, any suits) or a run (3+ consecutive cards of a suit)"
)
_RULE_LAYOFF = (
    "rule 5: lay off single cards on a run's ends or on a set of fewer than 4; "
    "melds are never rearranged"
)
_RULE_ACE = "rule 11: the ace is high or low, never both in one run (K-A-2 never)"
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
        self._twins = rules.decks(count) > 1  # identical cards in play
        self._counts = [[0] * 53 for _ in range(num_seats)]
        self._masks = [0] * num_seats
        self._sizes = [0] * num_seats
        self._known: list[dict[int, int]] = [{} for _ in range(num_seats)]
        size = rules.hand_size(count)
        faces = [card.index for card in deck]
        for i in range(count * size):
            self._add(self.order[i % count], faces[i])
        upcard = faces[count * size]
        self._discards: list[int] = [upcard]
        self._stock: list[int] = faces[: count * size : -1]  # top of the stock at the end
        self._melds: list[_Meld] = []
        self._layoffs: list[list[LayOff]] = [[] for _ in range(num_seats)]
        self._melded = [False] * num_seats
        self._melded_before_turn = False
        self._forbidden: int | None = None
        self._phase = Phase.DRAW
        self._seat: int | None = self.order[0]
        self._legal: list[Action] | None = None
        self._table_wilds = 0  # wild cards on the table not standing for themselves
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
        self._counts[seat][face] += 1
        self._masks[seat] |= 1 << face
        self._sizes[seat] += 1

    def _remove(self, seat: int, face: int) -> None:
        counts = self._counts[seat]
        counts[face] -= 1
        if not counts[face]:
            self._masks[seat] &= ~(1 << face)
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
        return self._play_actions(seat)

    def _play_actions(self, seat: int) -> list[Action]:
        counts = self._counts[seat]
        mask = self._masks[seat]
        size = self._sizes[seat]
        forbidden = self._forbidden
        forbidden_held = -1 if forbidden is None else counts[forbidden]
        wild_mask = self._wild
        wilds = list(bits(mask & wild_mask))
        top = self._top
        if forbidden is not None:
            mask &= ~(1 << forbidden)
        actions: list[Action] = [*of_mask(_SUIT_DISCARDS, mask)]
        if mask >> JOKER_INDEX & 1:
            actions.append(_DISCARD_JOKER)
        mask = self._masks[seat]

        def keeps(taken: Sequence[int], added: int = -1) -> bool:
            """After playing ``taken`` (and taking ``added``), can the seat still discard?"""
            left = size - len(taken) + (added >= 0)
            if left == 0 or forbidden is None:
                return True
            return left > forbidden_held - taken.count(forbidden) + (added == forbidden)

        def stands(face: int, natural: int) -> Card | None:
            return _NATURAL_CARDS[natural] if wild_mask >> face & 1 else None

        # New melds: every natural set and run, and with one wild card each.
        naturals = mask & _NATURALS
        suits = [naturals >> (13 * s) & _SUIT for s in range(4)]
        s0, s1, s2, s3 = suits
        if wilds:
            ranks = (s0 & s1) | (s0 & s2) | (s0 & s3) | (s1 & s2) | (s1 & s3) | (s2 & s3)
        else:
            ranks = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
        if self._twins:  # two decks: twins make sets of fewer suits (7H-7H-7S)
            ranks = 0
            for rank in range(13):
                copies = counts[rank] + counts[13 + rank] + counts[26 + rank] + counts[39 + rank]
                if copies >= (2 if wilds else 3):
                    ranks |= 1 << rank
        for rank in bits(ranks):
            held = (counts[rank], counts[13 + rank], counts[26 + rank], counts[39 + rank])
            options = _SET_CACHE.get(held)
            if options is None:
                options = _SET_CACHE[held] = _set_options(held)
            natural_sets, wild_sets = options
            for chosen in natural_sets:
                faces = [13 * s + rank for s in chosen]
                if keeps(faces):
                    actions.append(
                        LayMeld(
                            tuple(FACES[f] for f in faces),
                            tuple(stands(f, f) for f in faces),
                        )
                    )
            if not wilds:
                continue
            for chosen, missing in wild_sets:
                faces = [13 * s + rank for s in chosen]
                natural = 13 * missing + rank
                for wild in wilds:
                    if counts[wild] <= faces.count(wild):
                        continue
                    used = [*faces, wild]
                    if not keeps(used):
                        continue
                    placed = sorted([(f, f) for f in faces] + [(natural, wild)])
                    actions.append(
                        LayMeld(
                            tuple(FACES[f] for _, f in placed),
                            tuple(stands(f, n) for n, f in placed),
                        )
                    )
        for suit in range(4):
            suit_mask = suits[suit]
            ext = suit_mask | (suit_mask & 1) << 13 if top == 13 else suit_mask
            if ext.bit_count() < (2 if wilds else 3):
                continue
            base = 13 * suit
            for lo, hi, missing in _run_options(ext, top, bool(wilds)):
                faces = [base + p % 13 for p in range(lo, hi + 1) if p != missing]
                if missing < 0:
                    if keeps(faces):
                        actions.append(
                            LayMeld(
                                tuple(FACES[f] for f in faces),
                                tuple(stands(f, f) for f in faces),
                            )
                        )
                    continue
                natural = base + missing % 13
                for wild in wilds:
                    if counts[wild] <= faces.count(wild):
                        continue
                    if not keeps([*faces, wild]):
                        continue
                    cards: list[RummyCard] = []
                    stand: list[Card | None] = []
                    for p in range(lo, hi + 1):
                        f = wild if p == missing else base + p % 13
                        cards.append(FACES[f])
                        stand.append(stands(f, base + p % 13))
                    actions.append(LayMeld(tuple(cards), tuple(stand)))

        # Layoffs: every card on every open position of every meld.
        for meld in self._melds:
            for natural in meld.open_naturals(top):
                if counts[natural] and (forbidden is None or keeps([natural])):
                    actions.append(meld.offer(natural, natural, stands(natural, natural)))
                if meld.lacks(natural):
                    for wild in wilds:
                        if wild != natural and (forbidden is None or keeps([wild])):
                            actions.append(meld.offer(wild, natural, _NATURAL_CARDS[natural]))

        # Swaps: a natural card for the wild card standing for it.
        if self._table_wilds:
            for meld in self._melds:
                for position, face in meld.slots.items():
                    if not wild_mask >> face & 1:
                        continue
                    natural = meld.natural(position)
                    if natural != face and counts[natural] and keeps([natural], face):
                        actions.append(SwapJoker(_NATURAL_CARDS[natural], meld.id))
        return actions

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

    def _build_meld(self, naturals: list[int], faces: list[int], what: str) -> _Meld:
        """A valid meld (its id and owner still to set), else an error."""
        count = len(naturals)
        if count < 3:
            raise IllegalActionError(f"cannot {what}: a meld has at least 3 cards", _RULE_MELD)
        rank = naturals[0] % 13
        if all(n % 13 == rank for n in naturals):
            if count > 4:
                raise IllegalActionError(f"cannot {what}: a set has at most 4 cards", _RULE_MELD)
            order = sorted(zip(naturals, faces, strict=True))  # suit order; suits may repeat
            slots = {p: f for p, (_, f) in enumerate(order)}
            return _Meld(-1, -1, False, rank, slots, {p: n for p, (n, _) in enumerate(order)})
        if len(set(naturals)) != count:
            raise IllegalActionError(
                f"cannot {what}: two cards of a run are (or stand for) the same card", _RULE_MELD
            )
        suit = naturals[0] // 13
        if any(n // 13 != suit for n in naturals):
            raise IllegalActionError(f"cannot {what}: neither one rank nor one suit", _RULE_MELD)
        ranks = 0
        for n in naturals:
            ranks |= 1 << (n % 13)
        if (ranks + (ranks & -ranks)) & ranks == 0:
            slots = {n % 13: f for n, f in zip(naturals, faces, strict=True)}
            return _Meld(-1, -1, True, suit, slots, {})
        if ranks & 1:
            high = (ranks & ~1) | 1 << 13
            if (high + (high & -high)) & high == 0:
                if self._top == 13:
                    slots = {(n % 13 or 13): f for n, f in zip(naturals, faces, strict=True)}
                    return _Meld(-1, -1, True, suit, slots, {})
                raise IllegalActionError(
                    f"cannot {what}: the ace is low in these rules (A-2-3, not Q-K-A)", _RULE_ACE
                )
            if ranks >> 12 & 1 and ranks >> 1 & 1:
                raise IllegalActionError(f"cannot {what}: K-A-2 is never a run", _RULE_ACE)
        raise IllegalActionError(f"cannot {what}: the ranks are not consecutive", _RULE_MELD)

    def _apply_meld(self, seat: int, action: LayMeld) -> None:
        what = str(action)
        faces = [card.index for card in action.cards]
        naturals = [
            self._resolve(card, stands, what)
            for card, stands in zip(action.cards, action.stands_for, strict=True)
        ]
        meld = self._build_meld(naturals, faces, what)
        self._check_held(seat, faces, what)
        self._check_keeps(seat, faces, -1, what)
        meld.id, meld.owner = len(self._melds), seat
        self._melds.append(meld)
        for face in faces:
            self._remove(seat, face)
        self._table_wilds += sum(
            1 for p, f in meld.slots.items() if self._wild >> f & 1 and f != meld.natural(p)
        )
        self._melded[seat] = True
        self.events.append(PublicEvent(EventKind.LAY_MELD, seat, None, meld.snapshot(self._wild)))
        if not self._sizes[seat]:
            self._finish_out(seat)

    def _meld(self, meld_id: int, what: str) -> _Meld:
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
            target = "it" if natural == face else f"{_NATURAL_CARDS[natural]}"
            raise IllegalActionError(
                f"cannot {what}: {target} does not extend meld #{meld.id} ({shown})", _RULE_LAYOFF
            )
        self._check_held(seat, [face], what)
        self._check_keeps(seat, [face], -1, what)
        meld.add(position, face, natural)
        self._remove(seat, face)
        if self._wild >> face & 1 and face != natural:
            self._table_wilds += 1
        stands_for = _NATURAL_CARDS[natural] if self._wild >> face & 1 else None
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
        self._table_wilds -= 1
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
