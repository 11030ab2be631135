"""``strong``: a Gin Rummy bot that plans a draw ahead and watches its opponent.

The decisions, each a few milliseconds of mask arithmetic:

* **Hand value** (lower is better): the expected minimum deadwood after one more
  draw from the stock, over the cards we have not seen (weighted by how likely
  each is still in the stock rather than in the opponent's hand).  This counts the
  live outs of every partial meld exactly, including what each out saves.
* **Discard**: the card whose removal leaves the best hand value, plus a penalty
  for the chance that the opponent melds it (his visible cards, and what he
  discarded and refused, shape where his cards probably are).
* **Draw**: take the upcard when the hand it leaves beats the value we expect
  from a blind draw from the stock.
* **Knock**: gin when possible; otherwise weigh the points a knock is expected to
  win (the opponent's deadwood estimated from the stage of the hand, minus his
  likely layoffs, against the undercut) against playing on for gin.  The melds
  shown are the arrangement, among those with the least deadwood, that leaves
  the opponent the fewest layoffs.
* **Defend**: the engine's first option (least deadwood after layoffs).

``decide`` is the pure core; ``StrongPolicy`` (an in-process policy) and
``StrongBot`` (an SDK bot) keep a ``HandMemory`` per hand around it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Final

from arena.cards import Card, CardSet, Meld, MeldKind, card_value, deadwood_of_mask
from arena.games.gin_rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Defend,
    Discard,
    GinObservation,
    Knock,
    Phase,
    discard,
)
from arena.sdk import Bot, Decision

from arena_sample_bots.memory import HandMemory, mask_of

__all__ = ["StrongBot", "StrongParams", "StrongPolicy", "decide"]

_FULL: Final = (1 << 52) - 1
_VALUE: Final = tuple(card_value(i % 13) for i in range(52))


def _related(index: int) -> int:
    """Cards that can share a meld with ``index``: its rank, and its suit within 2."""
    rank, suit = index % 13, index // 13
    mask = 0
    for other in range(4):
        if other != suit:
            mask |= 1 << (13 * other + rank)
    for step in (-2, -1, 1, 2):
        if 0 <= rank + step < 13:
            mask |= 1 << (13 * suit + rank + step)
    return mask


def _meld_pairs(index: int) -> tuple[tuple[int, int], ...]:
    """The pairs of card indices that make a three-card meld with ``index``."""
    rank, suit = index % 13, index // 13
    same = [13 * other + rank for other in range(4) if other != suit]
    pairs = list(combinations(same, 2))
    for low in (rank - 2, rank - 1, rank):
        ranks = [r for r in (low, low + 1, low + 2) if r != rank]
        if low >= 0 and low + 2 <= 12:
            pairs.append((13 * suit + ranks[0], 13 * suit + ranks[1]))
    return tuple(pairs)


_RELATED: Final = tuple(_related(i) for i in range(52))
_MELD_PAIRS: Final = tuple(_meld_pairs(i) for i in range(52))
_SAME_RANK: Final = tuple(
    sum(1 << (13 * s + i % 13) for s in range(4)) & ~(1 << i) for i in range(52)
)
_NEXT_TO: Final = tuple(
    sum(1 << (i + d) for d in (-1, 1) if 0 <= i % 13 + d < 13) for i in range(52)
)
_TWO_AWAY: Final = tuple(
    sum(1 << (i + d) for d in (-2, 2) if 0 <= i % 13 + d < 13) for i in range(52)
)

_INITIAL_STOCK: Final = 31  # 52 cards - 2 hands of 10 - the first upcard

# Least deadwood by hand mask, shared by every decision: consecutive hands differ by
# a card or two, so most lookups of a turn were made in an earlier one.  Cleared
# when it grows past the bound (a few tens of megabytes).
_DEADWOOD: dict[int, int] = {}
_DEADWOOD_BOUND: Final = 300_000


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def _indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _value_of(mask: int) -> int:
    return sum(_VALUE[i] for i in _indices(mask))


@dataclass(frozen=True, slots=True)
class StrongParams:
    """The knobs of the strong bot (tuned against ``greedy`` in duplicate games)."""

    danger_weight: float = 6.0  # deadwood points charged per unit of meld probability fed
    stock_alpha: float = 1.0  # a blind draw's second-step gain, as a share of the first's
    take_margin: float = 0.0  # extra value the upcard must bring over a blind draw
    exposure_weight: float = 0.8  # layoff exposure vs own deadwood when choosing melds
    knock_always: bool = True  # knock whenever the engine allows it
    knock_bonus: float = 4.0  # value of reaching a knockable hand after the next draw
    gin_bonus: float = 0.0  # and of reaching gin
    defense: float = 0.0  # weight of the deadwood held now, grows as the stock shrinks
    two_step: float = 0.0  # value of a meld a card could make with two live cards
    depth2: int = 0  # re-rank this many best discards with a two-draw lookahead
    depth2_margin: float = 99.0  # when they score within this much of the best
    exact_draw: bool = False  # value a blind draw two draws ahead instead of stock_alpha
    late_stock: int = 0  # from this stock size down, knock only with deadwood <= late_max
    late_max: int = 10
    gin_chase_stock: int = 99  # from this stock size up, with deadwood <= gin_chase_max
    gin_chase_max: int = 0  # and at least gin_chase_outs live cards that give gin: wait
    gin_chase_outs: float = 2.0
    # opponent model: weight multipliers for unseen cards near what he showed
    discard_rank_factor: float = 0.6
    discard_near_factor: float = 0.7
    discard_far_factor: float = 0.85
    took_factor: float = 2.0
    high_factor: float = 1.0  # unseen cards worth more than his latest discard


DEFAULT_PARAMS: Final = StrongParams()


class _Context:
    """Everything one decision needs: the unseen cards, the opponent model, caches."""

    __slots__ = (
        "cache",
        "draws",
        "fcache",
        "hand",
        "known",
        "p_opp",
        "params",
        "phi",
        "stage",
        "unseen",
    )

    def __init__(
        self, observation: GinObservation, memory: HandMemory | None, params: StrongParams
    ) -> None:
        self.params = params
        hand = observation.hand.mask
        pile = mask_of(observation.discard_pile)
        known = observation.opponent_known.mask
        self.hand = hand
        self.known = known
        unseen = _FULL & ~hand & ~pile & ~known
        self.unseen = unseen
        if len(_DEADWOOD) > _DEADWOOD_BOUND:
            _DEADWOOD.clear()
        self.cache = _DEADWOOD
        self.fcache: dict[int, float] = {}
        # Where the unseen cards are: the opponent's unknown cards or the stock.
        weights = dict.fromkeys(_indices(unseen), 1.0)
        shown_away = 0
        took = known
        if memory is not None:
            shown_away = memory.opp_discards | memory.opp_passed
            took |= memory.opp_took & ~pile  # still holds them, or they are in our hand
            took &= ~hand
        for index in _indices(shown_away):
            for other in _indices(_SAME_RANK[index] & unseen):
                weights[other] *= params.discard_rank_factor
            for other in _indices(_NEXT_TO[index] & unseen):
                weights[other] *= params.discard_near_factor
            for other in _indices(_TWO_AWAY[index] & unseen):
                weights[other] *= params.discard_far_factor
        for index in _indices(took):
            for other in _indices(_RELATED[index] & unseen):
                weights[other] *= params.took_factor
        if memory is not None and memory.opp_last_discard >= 0 and params.high_factor != 1.0:
            # Players shed their highest unmatched cards first: what is worth more than
            # his latest discard is mostly not in his hand (or only inside melds).
            limit_value = _VALUE[memory.opp_last_discard]
            for index in weights:
                if _VALUE[index] > limit_value:
                    weights[index] *= params.high_factor
        opp_unknown = max(0, observation.opponent_hand_size - known.bit_count())
        total = sum(weights.values())
        p_opp = [0.0] * 52
        for index in _indices(known):
            p_opp[index] = 1.0
        draws: list[tuple[int, int, float]] = []
        if total > 0:
            scale = opp_unknown / total
            stock_total = 0.0
            for index, weight in weights.items():
                p = min(0.95, weight * scale)
                p_opp[index] = p
                stock_total += 1.0 - p
            if stock_total > 0:
                draws = [
                    (1 << index, index, (1.0 - p_opp[index]) / stock_total) for index in weights
                ]
        self.p_opp = p_opp
        self.draws = draws
        limit = observation.knock_limit
        phi = [float(d) for d in range(200)]
        for d in range(min(limit, 199) + 1):
            phi[d] -= params.knock_bonus
        phi[0] -= params.gin_bonus
        self.phi = phi
        self.stage = 1.0 - min(observation.stock_size, _INITIAL_STOCK) / _INITIAL_STOCK

    # -- hand value ---------------------------------------------------------

    def deadwood(self, mask: int) -> int:
        value = self.cache.get(mask)
        if value is None:
            value = deadwood_of_mask(mask)
            self.cache[mask] = value
        return value

    def future(self, hand: int) -> float:
        """Expected least deadwood of a 10-card hand after one more draw from the stock."""
        cached = self.fcache.get(hand)
        if cached is not None:
            return cached
        cache = self.cache
        dwf = deadwood_of_mask
        base = self.deadwood(hand)
        bits = _bits(hand)
        drop_one = min(self.deadwood(hand ^ bit) for bit in bits)
        related = _RELATED
        values = _VALUE
        phi = self.phi
        total = 0.0
        for bit, index, p in self.draws:
            if related[index] & hand:
                grown = hand | bit
                best = base
                for b in bits:
                    m = grown ^ b
                    v = cache.get(m)
                    if v is None:
                        v = dwf(m)
                        cache[m] = v
                    if v < best:
                        best = v
            else:
                best = drop_one + values[index]
                if best > base:
                    best = base
            total += p * phi[best]
        if not self.draws:
            total = phi[base]
        self.fcache[hand] = total
        return total

    def future2(self, hand: int) -> float:
        """Expected ``future`` after one more draw and the best discard (two draws ahead)."""
        now = self.future(hand)
        bits = _bits(hand)
        # An unrelated card can still replace the costliest card we would drop.
        costliest = self.deadwood(hand) - min(self.deadwood(hand ^ b) for b in bits)
        total = 0.0
        for bit, index, p in self.draws:
            best = now
            if not _RELATED[index] & hand:
                if _VALUE[index] < costliest:
                    best = now - (costliest - _VALUE[index])
            else:
                grown = hand | bit
                # The best discard after the draw is among those that keep the least
                # deadwood now: look ahead from the three best of them only.
                nearest = sorted(bits, key=lambda b: self.deadwood(grown ^ b))[:3]
                for b in nearest:
                    v = self.future(grown ^ b)
                    if v < best:
                        best = v
            total += p * best
        return total

    def potential(self, index: int) -> float:
        """Expected number of melds ``index`` could make with two cards still to come."""
        p_opp = self.p_opp
        unseen = self.unseen
        total = 0.0
        for a, b in _MELD_PAIRS[index]:
            if unseen >> a & 1 and unseen >> b & 1:
                total += (1.0 - p_opp[a]) * (1.0 - p_opp[b])
        return total

    def danger(self, index: int) -> float:
        """Probability that the opponent can meld the card ``index`` at once."""
        p_opp = self.p_opp
        none = 1.0
        for a, b in _MELD_PAIRS[index]:
            pa = p_opp[a]
            if pa:
                none *= 1.0 - pa * p_opp[b]
        return 1.0 - none

    def discard_score(self, hand11: int, index: int) -> float:
        params = self.params
        rest = hand11 & ~(1 << index)
        score = self.future(rest) + params.danger_weight * self.danger(index)
        if params.two_step:
            score += params.two_step * self.potential(index)
        if params.defense:
            q = params.defense * self.stage
            score += q * (self.deadwood(rest) - score)
        return score

    # -- knocking ----------------------------------------------------------

    def exposure(self, melds: Sequence[int]) -> float:
        """Expected deadwood the opponent lays off on ``melds`` (cards he may hold)."""
        p_opp = self.p_opp
        total = 0.0
        for meld in melds:
            indices = _indices(meld)
            if indices[0] % 13 == indices[-1] % 13:  # a set
                if len(indices) == 3:
                    rank = indices[0] % 13
                    for suit in range(4):
                        index = 13 * suit + rank
                        if not meld >> index & 1:
                            total += p_opp[index] * _VALUE[index]
                continue
            low, high = indices[0], indices[-1]
            chain = 1.0
            index = low - 1
            while index >= 0 and index // 13 == low // 13 and index % 13 < low % 13:
                chain *= p_opp[index]
                if chain < 0.01:
                    break
                total += chain * _VALUE[index]
                index -= 1
            chain = 1.0
            index = high + 1
            while index < 52 and index // 13 == high // 13:
                chain *= p_opp[index]
                if chain < 0.01:
                    break
                total += chain * _VALUE[index]
                index += 1
        return total


def _all_melds(mask: int) -> list[int]:
    melds = []
    for rank in range(13):
        bits = [1 << (13 * s + rank) for s in range(4) if mask >> (13 * s + rank) & 1]
        if len(bits) >= 3:
            whole = sum(bits)
            melds.append(whole)
            if len(bits) == 4:
                melds.extend(whole ^ bit for bit in bits)
    for suit in range(4):
        suit_mask = mask >> (13 * suit) & 0x1FFF
        for start in range(11):
            length = 0
            while start + length < 13 and suit_mask >> (start + length) & 1:
                length += 1
            for size in range(3, length + 1):
                melds.append(((1 << size) - 1) << (13 * suit + start))
    return melds


def arrangements(mask: int, deadwood: int, limit: int = 64) -> list[list[int]]:
    """Every way (up to ``limit``) to meld ``mask`` leaving exactly ``deadwood``."""
    melds = _all_melds(mask)
    values = [_value_of(m) for m in melds]
    needed = _value_of(mask) - deadwood
    found: list[list[int]] = []
    chosen: list[int] = []

    def search(start: int, used: int, covered: int) -> None:
        if covered == needed:
            found.append(list(chosen))
            return
        for j in range(start, len(melds)):
            if len(found) >= limit:
                return
            meld = melds[j]
            if meld & used or covered + values[j] > needed:
                continue
            chosen.append(meld)
            search(j + 1, used | meld, covered + values[j])
            chosen.pop()

    search(0, 0, 0)
    return found


def _to_meld(mask: int) -> Meld:
    cards = CardSet(mask)
    indices = _indices(mask)
    kind = MeldKind.SET if indices[0] % 13 == indices[-1] % 13 else MeldKind.RUN
    return Meld(cards, kind)


def _best_knock(context: _Context, knocks: list[Knock]) -> tuple[Knock, int, float]:
    """The knock (discard and melds) that minimises deadwood plus layoff exposure."""
    hand = context.hand
    best: tuple[float, int, Knock, float] | None = None
    for knock in knocks:
        rest = hand & ~knock.card.mask
        deadwood = context.deadwood(rest)
        options = arrangements(rest, deadwood, limit=1 if deadwood == 0 else 64)
        for melds in options or [[m.cards.mask for m in knock.melds]]:
            exposure = context.exposure(melds) if deadwood else 0.0
            key = deadwood + context.params.exposure_weight * exposure
            if best is None or key < best[0]:
                chosen = Knock(knock.card, tuple(_to_meld(m) for m in melds))
                best = (key, deadwood, chosen, exposure)
    assert best is not None
    return best[2], best[1], best[3]


# -- the decisions -----------------------------------------------------------


def _decide_draw(
    observation: GinObservation, legal: Sequence[Action], context: _Context
) -> Action:
    phase = observation.phase
    refuse = PASS if phase is Phase.FIRST_UPCARD else DRAW_STOCK
    if DRAW_DISCARD not in legal:
        return refuse
    top = observation.discard_pile[-1]
    hand = context.hand
    grown = hand | top.mask
    params = context.params
    # Best discard after taking the upcard (it may not be thrown back this turn).
    best_score = None
    best_future = 0.0
    for index in _indices(hand):
        score = context.discard_score(grown, index)
        if best_score is None or score < best_score:
            best_score = score
            best_future = context.future(grown & ~(1 << index))
    if params.exact_draw:
        if phase is Phase.FIRST_UPCARD and observation.seat == observation.dealer:
            blind = context.future(hand)  # passing gives up this draw altogether
        else:
            blind = context.future2(hand)
    else:
        now = context.future(hand)
        blind = now - params.stock_alpha * (context.deadwood(hand) - now)
    if best_future < blind - params.take_margin:
        return DRAW_DISCARD
    return refuse


def _gin_outs(context: _Context, hand: int) -> float:
    """Expected number of stock cards that would give gin to the 10-card ``hand``."""
    outs = 0.0
    bits = _bits(hand)
    for bit, index, p in context.draws:
        if _RELATED[index] & hand:
            grown = hand | bit
            if any(context.deadwood(grown ^ b) == 0 for b in bits):
                outs += 1.0 - context.p_opp[index]
    return outs


def _should_knock(
    observation: GinObservation, context: _Context, knock: Knock, deadwood: int
) -> bool:
    params = context.params
    if params.knock_always or not any(isinstance(a, Discard) for a in [discard(knock.card)]):
        pass
    stock = observation.stock_size
    if stock <= params.late_stock and deadwood > params.late_max:
        return False
    if stock >= params.gin_chase_stock and deadwood <= params.gin_chase_max:
        rest = context.hand & ~knock.card.mask
        if _gin_outs(context, rest) >= params.gin_chase_outs:
            return False
    return True


def _decide_discard(
    observation: GinObservation, legal: Sequence[Action], context: _Context
) -> Action:
    knocks = [action for action in legal if isinstance(action, Knock)]
    if knocks:
        knock, deadwood, _exposure = _best_knock(context, knocks)
        if deadwood == 0 or _should_knock(observation, context, knock, deadwood):
            return knock
    discards = [action for action in legal if isinstance(action, Discard)]
    if not discards:  # must knock (last-discard variant)
        return knocks[0]
    hand = context.hand
    ranked = sorted(
        (context.discard_score(hand, action.card.index), -action.card.value, action.card.index)
        for action in discards
    )
    depth2 = context.params.depth2
    if depth2 > 1:
        params = context.params
        top = [r for r in ranked[:depth2] if r[0] <= ranked[0][0] + params.depth2_margin]
        ranked = sorted(
            (
                context.future2(hand & ~(1 << index))
                + params.danger_weight * context.danger(index),
                value,
                index,
            )
            for _, value, index in top
        )
    return discard(Card(ranked[0][2]))


def decide(
    observation: GinObservation,
    legal: Sequence[Action],
    memory: HandMemory | None = None,
    params: StrongParams = DEFAULT_PARAMS,
) -> Action:
    """The strong bot's action (pure: the same inputs give the same action).

    ``memory`` is what the seat remembers of this hand (see ``HandMemory``); without
    it the bot decides from the observation alone.  The returned action is either in
    ``legal`` or a ``Knock`` whose melds are a valid arrangement of least deadwood.
    """
    phase = observation.phase
    if phase is Phase.DEFEND:
        return next(action for action in legal if isinstance(action, Defend))
    if phase is Phase.LAST_DISCARD:
        return DRAW_DISCARD if DRAW_DISCARD in legal else PASS
    context = _Context(observation, memory, params)
    if phase in (Phase.DRAW, Phase.FIRST_UPCARD):
        return _decide_draw(observation, legal, context)
    return _decide_discard(observation, legal, context)


class StrongPolicy:
    """``decide`` with per-hand memory, callable like the built-in policies."""

    def __init__(self, params: StrongParams = DEFAULT_PARAMS) -> None:
        self.params = params
        self.memory = HandMemory()

    def __call__(
        self,
        observation: GinObservation,
        legal: Sequence[Action],
        rng: random.Random | None = None,
    ) -> Action:
        self.memory.observe(observation)
        action = decide(observation, legal, self.memory, self.params)
        self.memory.record(observation, action)
        return action


class StrongBot(Bot):
    """Plans a draw ahead, counts live outs, avoids feeding, weighs the undercut."""

    name = "strong"
    author = "Rummy Arena samples"
    version = "0.1.0"
    games = ("gin-rummy/*",)

    def __init__(self, seed: int = 0, params: StrongParams = DEFAULT_PARAMS) -> None:
        # The bot is deterministic; ``seed`` keeps the built-in bots' signature.
        self.seed = seed
        self.policy = StrongPolicy(params)

    def on_hand_start(self, message: Any) -> None:
        self.policy.memory.reset()

    def decide(self, decision: Decision) -> Action:
        return self.policy(decision.observation, decision.legal_actions)

