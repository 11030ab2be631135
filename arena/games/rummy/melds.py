"""Basic Rummy's meld geometry: which runs and sets a hand's cards make, and the
melds on the table as the engine keeps them (positions, open ends, layoff offers).

Faces are indices ``0..51`` for natural cards (13 a suit) and ``52`` for the joker;
a run's positions are ranks ``0..13`` (13: the ace high when the rules allow it).
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

from arena.cards import Card
from arena.games.base import IllegalActionError
from arena.games.rummy.actions import LayOff
from arena.games.rummy.cards import FACES, RummyCard
from arena.games.rummy.observation import TableMeld

__all__ = [
    "NATURAL_CARDS",
    "RULE_ACE",
    "RULE_MELD",
    "LiveMeld",
    "build_meld",
    "run_options",
    "set_options",
]

NATURAL_CARDS: Final[tuple[Card, ...]] = tuple(card for card in FACES if isinstance(card, Card))

RULE_MELD = (
    "rule 5: a meld is a set (3-4 of a rank, any suits) or a run (3+ consecutive cards of a suit)"
)
RULE_ACE = "rule 11: the ace is high or low, never both in one run (K-A-2 never)"


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


def run_options(ext: int, top: int, wild: bool) -> tuple[tuple[int, int, int], ...]:
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


# Set options by copies held per suit (0-2 each): 81 entries at most, filled lazily.
_SET_CACHE: dict[tuple[int, ...], _SetOptions] = {}


def set_options(held: tuple[int, ...]) -> _SetOptions:
    """``_set_options``, cached (81 entries at most)."""
    options = _SET_CACHE.get(held)
    if options is None:
        options = _SET_CACHE[held] = _set_options(held)
    return options


class LiveMeld:
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
                stands.append(NATURAL_CARDS[self.natural(position)] if wild >> face & 1 else None)
            self.public = TableMeld(self.id, self.owner, tuple(cards), tuple(stands))
        return self.public


def build_meld(naturals: list[int], faces: list[int], top: int, what: str) -> LiveMeld:
    """A valid meld (its id and owner still to set), else an error."""
    count = len(naturals)
    if count < 3:
        raise IllegalActionError(f"cannot {what}: a meld has at least 3 cards", RULE_MELD)
    rank = naturals[0] % 13
    if all(n % 13 == rank for n in naturals):
        if count > 4:
            raise IllegalActionError(f"cannot {what}: a set has at most 4 cards", RULE_MELD)
        order = sorted(zip(naturals, faces, strict=True))  # suit order; suits may repeat
        slots = {p: f for p, (_, f) in enumerate(order)}
        return LiveMeld(-1, -1, False, rank, slots, {p: n for p, (n, _) in enumerate(order)})
    if len(set(naturals)) != count:
        raise IllegalActionError(
            f"cannot {what}: two cards of a run are (or stand for) the same card", RULE_MELD
        )
    suit = naturals[0] // 13
    if any(n // 13 != suit for n in naturals):
        raise IllegalActionError(f"cannot {what}: neither one rank nor one suit", RULE_MELD)
    ranks = 0
    for n in naturals:
        ranks |= 1 << (n % 13)
    if (ranks + (ranks & -ranks)) & ranks == 0:
        slots = {n % 13: f for n, f in zip(naturals, faces, strict=True)}
        return LiveMeld(-1, -1, True, suit, slots, {})
    if ranks & 1:
        high = (ranks & ~1) | 1 << 13
        if (high + (high & -high)) & high == 0:
            if top == 13:
                slots = {(n % 13 or 13): f for n, f in zip(naturals, faces, strict=True)}
                return LiveMeld(-1, -1, True, suit, slots, {})
            raise IllegalActionError(
                f"cannot {what}: the ace is low in these rules (A-2-3, not Q-K-A)", RULE_ACE
            )
        if ranks >> 12 & 1 and ranks >> 1 & 1:
            raise IllegalActionError(f"cannot {what}: K-A-2 is never a run", RULE_ACE)
    raise IllegalActionError(f"cannot {what}: the ranks are not consecutive", RULE_MELD)
