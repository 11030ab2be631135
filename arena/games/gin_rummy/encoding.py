"""Gin Rummy for learners: fixed action ids and observation planes, as bit masks.

This sits beside the seat view (``GinHand.visible``) and works on its masks: every
plane of an observation is one 52-bit mask (bit ``i`` is card index ``i``, suits
C D H S), every legal-action set one int mask over the action ids.  Turning masks
into arrays is one numpy call per batch (``arena.envs``); nothing here imports numpy,
so this module is among the compiled ones (tools/compiled.py).

Two id spaces (docs/ENVS.md lists them id by id):

* ``arena``: 0 draw from the stock, 1 take the discard (also the first upcard and the
  last discard), 2 pass, 3+c discard card c, 55+c knock discarding card c with the
  melds that leave the least deadwood, 107 defend with the layoffs that leave the
  least deadwood (offered when any layoff is possible), 108 defend without layoffs
  (each with the best melds of the cards kept).
* ``rlcard``: RLCard's 110 ids (0/1 score, 2 draw, 3 pick up, 4 declare dead hand,
  5 gin, 6+c discard, 58+c knock, cards in RLCard's order S H D C).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from arena.cards import (
    ALL_CARDS,
    Card,
    CardSet,
    best_arrangement,
    deadwood_of_mask,
    knock_discards,
)
from arena.cards.masks import ALL_BITS, SUIT_BITS
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
    discard,
)
from arena.games.gin_rummy.hand import GinHand
from arena.games.gin_rummy.observation import (
    EventKind,
    GinObservation,
    Phase,
    PublicEvent,
    VisibleState,
)

__all__ = [
    "ACTIONS",
    "DEFEND_BEST",
    "DEFEND_NO_LAYOFFS",
    "DISCARD_BASE",
    "DRAW_DISCARD_ID",
    "DRAW_STOCK_ID",
    "KNOCK_BASE",
    "OBSERVATION_SIZE",
    "PASS_ID",
    "PILE_ORDER_AT",
    "PLANES",
    "RLCARD_ACTIONS",
    "RL_DECLARE_DEAD",
    "RL_DISCARD_BASE",
    "RL_DRAW",
    "RL_GIN",
    "RL_KNOCK_BASE",
    "RL_PICK_UP",
    "SCALARS",
    "SCALARS_AT",
    "OpponentMemory",
    "PileFacts",
    "action_id",
    "arena_action",
    "legal_ids",
    "observation_planes",
    "observation_tail",
    "packed",
    "rlcard_action",
    "rlcard_card",
    "rlcard_legal_ids",
    "rlcard_mask",
    "rlcard_planes",
    "tail",
    "view_planes",
]

# -- the arena id space ----------------------------------------------------------------
DRAW_STOCK_ID: Final = 0
DRAW_DISCARD_ID: Final = 1
PASS_ID: Final = 2
DISCARD_BASE: Final = 3
KNOCK_BASE: Final = 55
DEFEND_BEST: Final = 107
DEFEND_NO_LAYOFFS: Final = 108
ACTIONS: Final = 109

#: The mask planes of ``view_planes``, in order (docs/ENVS.md).
PLANES: Final = (
    "hand",
    "top_discard",
    "discard_pile_below_top",
    "opponent_known",
    "opponent_refused",
    "opponent_discarded",
    "knock_melds",
    "knock_unmatched",
    "unknown",
    "forbidden_discard",
)

#: The arena observation (docs/ENVS.md): the planes of ``PLANES`` (0/1), then the pile
#: order (``(position + 1) / pile size`` by card), then ``SCALARS`` numbers.
PILE_ORDER_AT: Final = 10 * 52
SCALARS_AT: Final = 11 * 52
SCALARS: Final = 15
OBSERVATION_SIZE: Final = SCALARS_AT + SCALARS
#: ``(position + 1) / count`` for each position of a pile of ``count`` cards.
_PILE_ORDER: Final = [tuple((p + 1) / count for p in range(count)) for count in range(53)]

# -- the RLCard id space ---------------------------------------------------------------
RL_DRAW: Final = 2
RL_PICK_UP: Final = 3
RL_DECLARE_DEAD: Final = 4
RL_GIN: Final = 5
RL_DISCARD_BASE: Final = 6
RL_KNOCK_BASE: Final = 58
RLCARD_ACTIONS: Final = 110


def rlcard_card(index: int) -> int:
    """Our card index (suits C D H S) -> RLCard's card id (suits S H D C, same ranks)."""
    return (3 - index // 13) * 13 + index % 13


def rlcard_mask(mask: int) -> int:
    """A 52-bit card mask in RLCard's card order (its suits reversed)."""
    return (
        (mask & SUIT_BITS) << 39
        | (mask >> 13 & SUIT_BITS) << 26
        | (mask >> 26 & SUIT_BITS) << 13
        | (mask >> 39 & SUIT_BITS)
    )


class PileFacts:
    """The discard pile as the encoder reads it: its cards' mask and their indices,
    bottom first.  ``update`` follows a pile from one position to the next (a card on
    top, or the top card taken, at most): a card's ``index`` is an attribute lookup of
    12-20 ns compiled, and the planes and the tail both read the whole pile."""

    __slots__ = ("cards", "indices", "mask")

    def __init__(self) -> None:
        self.cards: tuple[Card, ...] = ()
        self.mask = 0
        self.indices: list[int] = []

    @staticmethod
    def of(pile: tuple[Card, ...]) -> PileFacts:
        return PileFacts().update(pile)

    def update(self, pile: tuple[Card, ...]) -> PileFacts:
        """These facts for ``pile`` (self, changed if the pile did)."""
        cards = self.cards
        if pile == cards:  # identical cards: a C-level scan
            return self
        size = len(cards)
        if len(pile) == size + 1 and pile[:size] == cards:
            index = pile[size].index
            self.mask |= 1 << index
            self.indices.append(index)
        elif len(pile) == size - 1 and pile == cards[: size - 1]:
            self.mask &= ~(1 << self.indices.pop())
        else:
            indices = [card.index for card in pile]
            mask = 0
            for index in indices:
                mask |= 1 << index
            self.indices = indices
            self.mask = mask
        self.cards = pile
        return self


def view_planes(
    view: VisibleState, refused: int, discarded: int, pile: PileFacts
) -> tuple[int, ...]:
    """The mask planes of ``PLANES`` for the seat whose view this is.

    ``refused`` and ``discarded`` are what the seat saw its opponent pass over (the
    top discard when he drew from the stock or passed) and discard, this hand: facts
    the view does not keep, tracked by whoever drives the hand.  ``pile`` is
    ``PileFacts`` of the view's discard pile."""
    indices = pile.indices
    pile_mask = pile.mask
    top = 1 << indices[-1] if indices else 0
    melds = unmatched = 0
    knock = view.knock
    if knock is not None:
        for meld in knock.melds:
            melds |= meld.cards.mask
        unmatched = knock.unmatched.mask
    hand = view.hand
    known = view.opponent_known
    forbidden = view.forbidden_discard
    unknown = ALL_BITS & ~(hand | pile_mask | known | melds | unmatched)
    return (
        hand,
        top,
        pile_mask & ~top,
        known,
        refused,
        discarded,
        melds,
        unmatched,
        unknown,
        0 if forbidden is None else 1 << forbidden.index,
    )


def tail(
    seat: int,
    view: VisibleState,
    dealer: int,
    knock_limit: int,
    doubled: bool,
    scores: Sequence[int],
    target: int,
    pile: PileFacts,
) -> list[float]:
    """The observation after its mask planes: the pile order plane (52 values) and the
    ``SCALARS`` numbers (docs/ENVS.md), for ``seat`` whose view this is; ``pile`` is
    ``PileFacts`` of the view's discard pile."""
    # Written for mypyc (a step's observation calls it): item by item, no zip, slice
    # assignment, dict of enums or min(), each a generic call there.
    indices = pile.indices
    count = len(indices)
    out = [0.0] * (52 + SCALARS)
    if count:
        order = _PILE_ORDER[count]
        for position in range(count):
            out[indices[position]] = order[position]
    phase = view.phase
    if phase is Phase.FIRST_UPCARD:
        out[52] = 1.0
    elif phase is Phase.DRAW:
        out[53] = 1.0
    elif phase is Phase.DISCARD:
        out[54] = 1.0
    elif phase is Phase.DEFEND:
        out[55] = 1.0
    elif phase is Phase.LAST_DISCARD:
        out[56] = 1.0
    knock = view.knock
    own = scores[seat] / target
    other = scores[1 - seat] / target
    out[57] = 1.0 if view.to_act == seat else 0.0
    out[58] = 1.0 if dealer == seat else 0.0
    out[59] = view.stock_size / 31
    out[60] = view.opponent_hand_size / 11
    out[61] = knock_limit / 10
    out[62] = 1.0 if doubled else 0.0
    out[63] = own if own < 1.0 else 1.0
    out[64] = other if other < 1.0 else 1.0
    out[65] = 1.0 if knock is not None and knock.seat == seat else 0.0
    out[66] = count / 31
    return out


class OpponentMemory:
    """What a seat saw its opponent pass over and discard this hand (the planes
    ``opponent_refused`` and ``opponent_discarded``), kept from the public events a bot
    is sent (``Decision.events``), as the environments keep them from the actions: a
    bot's way to build the observation it was trained on."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.refused = 0
        self.discarded = 0
        self._pile: list[int] = []

    def see(self, events: Iterable[PublicEvent]) -> None:
        """Take in the events since the last call, oldest first."""
        for event in events:
            kind = event.kind
            card = event.card
            if kind is EventKind.UPCARD:  # a new hand
                self.refused = self.discarded = 0
                self._pile = [] if card is None else [card.index]
            elif kind is EventKind.DISCARD and card is not None:
                self._pile.append(card.index)
                if event.seat != self.seat:
                    self.discarded |= 1 << card.index
            elif kind is EventKind.DRAW_DISCARD and self._pile:
                self._pile.pop()
            elif (
                (kind is EventKind.PASS or kind is EventKind.DRAW_STOCK)
                and event.seat != self.seat
                and self._pile
            ):
                self.refused |= 1 << self._pile[-1]


def _visible(observation: GinObservation) -> VisibleState:
    return VisibleState(
        observation.phase,
        observation.to_act,
        observation.hand.mask,
        observation.discard_pile,
        observation.stock_size,
        observation.opponent_hand_size,
        observation.opponent_known.mask,
        observation.own_known.mask,
        observation.forbidden_discard,
        observation.knock,
    )


def observation_planes(observation: GinObservation, memory: OpponentMemory) -> tuple[int, ...]:
    """``view_planes`` of a bot's observation (``memory`` has seen the hand's events)."""
    view = _visible(observation)
    return view_planes(view, memory.refused, memory.discarded, PileFacts.of(view.discard_pile))


def observation_tail(observation: GinObservation, target: int) -> list[float]:
    """``tail`` of a bot's observation; ``target`` is the rules' game target."""
    return tail(
        observation.seat,
        _visible(observation),
        observation.dealer,
        observation.knock_limit,
        observation.doubled,
        observation.scores,
        target,
        PileFacts.of(observation.discard_pile),
    )


def packed(planes: tuple[int, ...], legal: int) -> int:
    """The planes end to end (plane ``i`` at bit ``52 * i``), then the legal ids: one int
    that one numpy call turns into the observation's and the mask's bits."""
    bits = legal
    for plane in reversed(planes):
        bits = bits << 52 | plane
    return bits


def rlcard_planes(view: VisibleState, pile: PileFacts) -> tuple[int, int, int, int, int]:
    """RLCard's five planes (hand, top discard, dead cards, opponent known, unknown),
    as masks in RLCard's card order; ``pile`` is ``PileFacts`` of the view's pile."""
    indices = pile.indices
    pile_mask = pile.mask
    top = 1 << indices[-1] if indices else 0
    hand = view.hand
    known = view.opponent_known
    unknown = ALL_BITS & ~(hand | pile_mask | known)
    return (
        rlcard_mask(hand),
        rlcard_mask(top),
        rlcard_mask(pile_mask & ~top),
        rlcard_mask(known),
        rlcard_mask(unknown),
    )


def action_id(action: Action) -> int:
    """The arena id of a listed action (a defence maps to 107, or 108 without layoffs)."""
    if isinstance(action, Draw):
        return DRAW_STOCK_ID if action.source is DrawSource.STOCK else DRAW_DISCARD_ID
    if isinstance(action, Pass):
        return PASS_ID
    if isinstance(action, Discard):
        return DISCARD_BASE + action.card.index
    if isinstance(action, Knock):
        return KNOCK_BASE + action.card.index
    return DEFEND_NO_LAYOFFS if not action.layoffs else DEFEND_BEST


def _slow_path(hand: GinHand, view: VisibleState) -> bool:
    # After taking the last discard (last-discard variant) only knocks are legal, a
    # state the view does not show: the listed actions say it.
    return hand.rules.last_discard and view.stock_size <= 2


def _knocks(hand: GinHand, view: VisibleState) -> dict[Card, int]:
    mask = view.hand
    if deadwood_of_mask(mask) - 10 > hand.knock_limit:
        return {}  # no discard can bring the deadwood within the limit (as the engine)
    knocks = knock_discards(CardSet(mask), hand.knock_limit)
    forbidden = view.forbidden_discard
    if forbidden is not None:
        knocks.pop(forbidden, None)  # a knock may not discard the card just taken
    return knocks


def legal_ids(hand: GinHand, view: VisibleState) -> int:
    """The arena ids legal now for the seat to act (``view`` is its view), as a mask:
    the engine's ``legal_actions`` mapped by ``action_id``, without building them."""
    phase = view.phase
    if phase is Phase.DRAW:
        return 0b011 if view.discard_pile else 0b001
    if phase is Phase.DISCARD and not _slow_path(hand, view):
        forbidden = view.forbidden_discard
        allowed = view.hand if forbidden is None else view.hand & ~(1 << forbidden.index)
        ids = allowed << DISCARD_BASE
        for card in _knocks(hand, view):
            ids |= 1 << (KNOCK_BASE + card.index)
        return ids
    if phase is Phase.FIRST_UPCARD:
        return 0b110
    ids = 0  # a defence, the last discard: rare, and the listing decides
    for action in hand.legal_actions():
        ids |= 1 << action_id(action)
    return ids


def rlcard_legal_ids(hand: GinHand, view: VisibleState) -> int:
    """RLCard's legal ids in the same position, as a mask (docs/ENVS.md says where the
    rules differ: the first upcard, the last discard, and no defence to choose)."""
    phase = view.phase
    if phase is Phase.DRAW:
        return 1 << RL_DRAW | (1 << RL_PICK_UP if view.discard_pile else 0)
    if phase is Phase.FIRST_UPCARD:
        return 1 << RL_DRAW | 1 << RL_PICK_UP
    if phase is Phase.LAST_DISCARD:
        legal = hand.legal_actions()
        return 1 << RL_DECLARE_DEAD | (1 << RL_PICK_UP if DRAW_DISCARD in legal else 0)
    if phase is not Phase.DISCARD:
        return 0
    knocks = _knocks(hand, view)
    if any(deadwood == 0 for deadwood in knocks.values()):
        return 1 << RL_GIN  # RLCard offers only gin when gin is possible
    ids = 0
    if not _slow_path(hand, view) or any(isinstance(a, Discard) for a in hand.legal_actions()):
        forbidden = view.forbidden_discard
        allowed = view.hand if forbidden is None else view.hand & ~(1 << forbidden.index)
        ids = rlcard_mask(allowed) << RL_DISCARD_BASE
    for card in knocks:
        ids |= 1 << (RL_KNOCK_BASE + rlcard_card(card.index))
    return ids


def arena_action(hand: GinHand, ident: int) -> Action:
    """The action an arena id stands for now (legal or not: the engine judges)."""
    if ident == DRAW_STOCK_ID:
        return DRAW_STOCK
    if ident == DRAW_DISCARD_ID:
        return DRAW_DISCARD
    if ident == PASS_ID:
        return PASS
    if DISCARD_BASE <= ident < KNOCK_BASE:
        return discard(ALL_CARDS[ident - DISCARD_BASE])
    if KNOCK_BASE <= ident < DEFEND_BEST:
        return _knock(hand, ALL_CARDS[ident - KNOCK_BASE])
    if ident in (DEFEND_BEST, DEFEND_NO_LAYOFFS):
        defences = [a for a in hand.legal_actions() if isinstance(a, Defend)]
        if not defences:
            return Defend(())
        if ident == DEFEND_BEST:
            return defences[0]
        return next((d for d in defences if not d.layoffs), defences[0])
    raise ValueError(f"no Gin Rummy action id {ident} (ids are 0..{ACTIONS - 1})")


def _knock(hand: GinHand, card: Card) -> Knock:
    seat = hand.current_seat()
    mask = hand.visible(seat if seat is not None else 0).hand
    return Knock(card, best_arrangement(CardSet(mask & ~(1 << card.index))).melds)


def rlcard_action(hand: GinHand, ident: int) -> Action:
    """The action an RLCard id stands for now (legal or not: the engine judges)."""
    phase = hand.phase
    if ident == RL_DRAW:
        return PASS if phase is Phase.FIRST_UPCARD else DRAW_STOCK
    if ident == RL_PICK_UP:
        return DRAW_DISCARD
    if ident == RL_DECLARE_DEAD:
        return PASS if phase is Phase.LAST_DISCARD else Defend(())
    if ident == RL_GIN:
        seat = hand.current_seat()
        view = hand.visible(seat if seat is not None else 0)
        for card, deadwood in _knocks(hand, view).items():
            if deadwood == 0:
                return _knock(hand, card)
        return Knock(ALL_CARDS[0], ())  # no gin here: the engine says why
    if RL_DISCARD_BASE <= ident < RL_KNOCK_BASE:
        return discard(ALL_CARDS[rlcard_card(ident - RL_DISCARD_BASE)])  # its own inverse
    if RL_KNOCK_BASE <= ident < RLCARD_ACTIONS:
        return _knock(hand, ALL_CARDS[rlcard_card(ident - RL_KNOCK_BASE)])
    if ident in (0, 1):
        return Defend(())  # RLCard's scoring steps: never a player's decision here
    raise ValueError(f"no RLCard action id {ident} (ids are 0..{RLCARD_ACTIONS - 1})")
