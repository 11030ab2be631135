"""``search``: determinised Monte Carlo search for Gin Rummy, on a prior.

Every decision starts from a **belief**: the opponent's hidden cards and the order
of the stock, sampled consistently with everything this seat has seen (see the
sampler below).  On it:

- A **prior** chooses the draw and the discard: the one-draw lookahead of the
  ``strong`` sample bot (a hand is worth its expected least deadwood after the
  next stock draw, each stock card weighted by the chance that it is not in the
  opponent's hand; a discard also pays for the chance that he melds it), computed
  on the sampler's weights; for points, a point of deadwood at or below the knock
  limit weighs twice (fifth round below).
- **Determinised playouts** decide when the seat may knock: the knock and the
  prior's best discards are each played to the end of the hand in the same sampled
  worlds, and a candidate replaces the prior's choice only when it beats it by a
  standard error of the paired difference over at least ``_MIN_WORLDS`` worlds.
  Under the hand objective they also choose between the prior's two best discards
  when the seat may not knock (see the hand objective below), its three best first
  re-ranked by their value two draws ahead (seventh round).
  The knock itself lays down, of the arrangements with the least deadwood, the one
  that scores best against the sampled hands (the opponent's layoffs played
  exactly).
- Playouts were also tried for every draw and discard, with sequential halving
  (Karnin, Koren and Somekh, ICML 2013): the fast playout policy (take the upcard
  only into a meld, discard to the least deadwood, knock at once) judges a
  discard's promise worse than the prior does, and that search won 50% of games
  against ``simple`` over 20 duplicate pairs where the prior alone won 70% over
  40; so the prior decides those.

It follows:

- **Perfect-information Monte Carlo** (determinisation): Ginsberg, "GIB: Imperfect
  information in a computationally challenging game", JAIR 14 (2001), and the
  determinised search that Cowling, Powley and Whitehouse compare with
  information-set MCTS in "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4
  (2012).  Gin Rummy's hidden information is mostly the stock, which neither
  player sees, so the usual objection to determinisation (strategy fusion: acting
  on information one will not have) costs little here: a world fixes only where
  the unseen cards are, and the playout policy never looks at the other hand.
- **Rollout policy improvement**: Tesauro and Galperin, "On-line policy
  improvement using Monte-Carlo search", NIPS 1996: each candidate is followed by
  a fixed fast policy for both seats.
- **Common random numbers**: every candidate is played in the same worlds, and
  the comparison with the prior's choice is paired.

The **sampler** deals the opponent the cards he is known to hold (taken from the
discard pile and not discarded since) and fills the rest of his hand from the
cards this seat has not seen, weighted by what he showed: a card he discarded or
refused makes the cards that would meld with it less likely in his hand, a card
he took makes them more likely.  What is left of the unseen cards is the stock, in
a random order.  It never deals a card this seat knows to be elsewhere (its own
hand, the discard pile, the opponent's known cards).

**Tuning** (issue 33; duplicate single hands against ``simple``, the same 1,000
deals each way, hand points per deal paired with the previous settings, 95%):
the evidence of what the opponent left and took is strong: a card of the same rank
as one he discarded or refused weighs 0.15, next to it in the suit 0.25, two away
0.5, a card that melds with one he took 6 (were 0.6, 0.7, 0.85, 2): +1.01 ± 0.51
points a hand (0.4/0.5/0.75/3: +0.38; 0.08/0.15/0.4/8: +1.31; weaker than the old,
0.8/0.85/0.95/1.5: -0.36), against ``strong`` +0.69 ± 0.83 over 400 deals.  Simple
only takes a card into a meld, and most players discard cards far from their own,
so this is close to exclusion.  It trades hands for points: the share of decided
hands won against ``simple`` fell from 52.9% to 49.7% over those deals (and on
OpenSpiel's game from 53.4% to 48.6%) while the points a hand and the games won
rose (whole games: 66.3% to 70.8% against ``simple``).  A knockable hand's bonus in the prior is 8 deadwood
points (was 4: +0.16 ± 0.16 alone, +0.11 and +0.19 on top of the 0.4 and 0.25
evidence settings; 12: +0.17 ± 0.22; 2: 0.00).  What did not help: three times
the playouts (1,440: +0.07 ± 0.11, so a faster playout would buy little); a charge
for the deadwood kept as the hand ages (undercut defence against an opponent who
knocks at once; 0.3 points a point of deadwood: -0.24); making cards worth more
than his latest discard less likely in his hand (-0.01 ± 0.21); a lower or higher
charge for a discard he may meld (3: +0.17 ± 0.40; 10: -0.61 ± 0.47).

**The hand objective** (``SearchParams.objective``: ``game``, the default, plays
for points as above; ``hand`` for the chance of winning the hand, for a match of
one hand or one that counts hands won).  The playouts and the knock's melds count
a won hand +1 and a lost one -1, and the objective has its own constants
(``_TUNING``).  Measured (issue 33) on OpenSpiel's ``gin_rummy`` against its simple
bot, the same 1,000 decks each way, share of decided hands won (Wilson 95%): the
game objective 48.6% (46.4-50.8); counting hands in the playouts 53.0%
(50.8-55.1), for against that bot, which knocks at once and never lays off, one
hand is a race to knock, and the search then declines 2% of the knocks it may
make (a fifth with the game objective); the weaker evidence of before the tuning
above (0.6/0.7/0.85/2) 54.4%; with it, a knock bonus of 20 deadwood points in the
prior 55.1%; with both, cards of a higher rank than his latest discard weighing
0.3, 56.0% (OpenSpiel's simple bot discards its highest deadwood card, so a higher
card he holds is in a meld; 0.1: 55.2%; 0.5 with a bonus of 100: 57.7%; with no
left evidence but this: 55.4%); with all three, a knock bonus of 40: 56.8%, 100:
58.0% (55.8-60.1), 300: 56.9%: the prior should first make the hand knockable
after the next draw, then keep the least deadwood.  These settings were chosen on
those decks; on 1,000 others (seeds from 5001) they win 55.5% (53.3-57.7) where
the game objective wins 48.5% (46.3-50.7); on 1,000 decks from seed 9001, touched
by nothing before, 53.7% (51.5-55.8).  The game objective's play is unchanged
(its decisions are the same, bit for bit, as before the objective).  What did
not help the hand objective: a higher or lower charge for a discard he may meld
(12: 50.9% without the other changes, 55.3% with a bonus of 40, 57.3% with 100;
0: 56.2% with a bonus of 100; 3: 53.8% against 53.0% with none of them); a knock
bonus of 60 (57.1%); weighing the draws after
the next one half (52.3%) or twice (51.0%) in the draw's choice; taking the upcard
whenever it allows a knock at once (the prior already does: the same hands).

Playouts for the discard (issue 33, second round; 2,000 hands, the figures of the
same harness): when the seat may not knock, the hand objective plays the prior's
two best discards out against each other in the same worlds, on half the budget
(``searched_discards``), the prior's choice kept unless the other beats it by
``_SWITCH_Z`` standard errors.  The fast playout policy already races (both seats
knock as soon as they may, as OpenSpiel's simple bot does), which is what a won
hand rewards.  Validation decks (seed 5001): 56.8% (54.6-58.9), was 55.5%; tuning
decks (seed 1): 58.5% (56.3-60.6), was 58.0%; untouched decks (seed 9001): 54.8%
(52.6-57.0), was 53.7%; a decision's median 6.5 ms and p99 95 ms (the knock
searches only: 1.6 and 100; two runs at once on a busy machine: 10.1 and 132).  The
gain is within the noise of each figure alone, though of the same sign on all three
sets; the 60% target is still missed.  What did not help, screened on 1,000 hands of
the tuning decks (57.4% without): the prior's best 3 or 4 discards re-ranked by a
look two draws ahead (the expected value, knock bonus included, after two draws from
the stock, each followed by whichever of the three discards leaving the least
deadwood is best, a knockable hand knocking), added to the one-draw value (57.9%) or
alone (58.5%), and with the discard playouts on top (57.6%); it costs a p99 of
100-300 ms.  The game objective's decisions are still the same, bit for bit.

What did not help the game objective (issue 33, third round; paired with the
defaults on the same deals against ``simple``, 95%): the prior's two best discards
played out as the hand objective does, -1.03 +- 0.97 points a hand over 257 deals of
single hands; the hand objective (its counting and constants) in a game's last hands
(either seat within 25 points of the target), -1.8 +- 2.8 points of games won over
387 pairs of whole games; playouts valued by the chance of winning the game after the
hand (a coin-flip model of the rest of the game on the measured points a hand) where
they count points, -0.06 +- 0.83 over 844 pairs (51 pairs played differently).  Nor
the hand objective: its draws played out too (the prior's choice and the other, half
the budget), the same 55.4% of decided hands over 480 OpenSpiel decks (seeds from
5001), +0.000 +- 0.047 hands a deck.  A smarter own seat in the playouts (the least
deadwood when it knocks, else the deadwood plus 3 or 8 points for each card kept that
the discard relates to, so it keeps connected cards): the knock searches almost never
chose otherwise (1 of 231 pairs played differently, and none of 163), for the
continuation is rarely close enough to the knock for its policy to tip them.

Fourth round (duplicate single hands against ``simple``, seeds 1-1,500, points a hand
paired with the defaults, 95%): a sampled world whose opponent could knock is one he
would have knocked with (``simple`` and ``strong`` knock when they may), so rejecting
those worlds makes the belief consistent with his not knocking; it rejected 28% of
the worlds and cost -0.57 +- 0.22 points a hand (-0.61 +- 0.31 against ``strong``,
700 deals; keeping half of them: -0.16 +- 0.16): the search then knocks more often
(hands won rose from 50.1% to 51.8%) for less; favouring those worlds instead
(rejecting 30% or 60% of the others) did not help either (+0.08 +- 0.16, +0.15 +-
0.20).  Nor did the evidence a candidate needs to overrule the prior (``_SWITCH_Z``
0.5: +0.02 +- 0.09; 2: -0.15 +- 0.12), or weighing the draws after the next one half
(-0.01 +- 0.41) or 1.5 times (+0.15 +- 0.33) in the draw's choice; a margin the
upcard must beat the blind draw by (deadwood points; 1: +0.13 +- 0.25, 2: +0.23 +-
0.35, 3: -0.15 +- 0.42, -1: -0.11 +- 0.25); weighing each discard by the chance that
the opponent knocks on his next turn (drawn from 24 sampled worlds; that branch
valued as his knock scores against the deadwood kept, an undercut included):
+0.06 +- 0.16, and +0.02 +- 0.21 with that chance 2.5 times over.

Fifth round (the same harness): the outcome of a hand against ``simple`` by the
deadwood a seat kept (mid-hand, 1,500 other deals) is not linear in it: a knockable
hand with 1-3 points went on to win about 30 points, with 8-9 about 13, with 10-14
about 10, so below the knock limit a point is worth two or more of those above it.
Weighing a point at or below the limit ``knockable_slope`` times in the prior: 1.5:
+0.25 +- 0.14 points a hand; 2: +0.34 +- 0.20; 2.5: +0.31 +- 0.23; 3: +0.36 +- 0.26;
with 2, a knock bonus of 4: +0.31 +- 0.19, 12: +0.20 +- 0.24; against ``strong``
(700 deals) -0.07 +- 0.32.  The game objective plays 2 with the bonus of 8; the hand
objective, whose race weighs reaching the limit alone, keeps 1.  A value table read
off those outcomes whole (flat above 30 points of deadwood) lost 7.9 points a hand:
early in a hand the deadwood is high and its outcome says little about the discard.

Sixth round (OpenSpiel's game, the hand objective; seeds 5001-5500, 1,000 hands, hands
won paired by deal, percentage points of the share, 95%): there a hand is a race.  Over
seeds 1-1,000 ``search`` knocked first in 1,126 of 2,000 hands and was never undercut
(the bot never lays off, and whenever ``search`` may knock the bot's deadwood is above
the limit, or it would have knocked); the bot knocked in 857 and ``search`` undercut 35.
What decides is how soon a hand can knock, and the belief hardly matters: rejecting
sampled hands the bot would have knocked with (1% of them) -0.1 +- 0.5; also those whose
best arrangement does not leave his latest discard his highest unmatched card (69%
rejected) -1.5 +- 1.7 (that alone, three tries: -1.1 +- 1.6).  Nor more search: three
discards played out -0.1 +- 2.3, three times the playouts +0.5 +- 1.9.  Bending the
prior's value above the knock limit lost: concave (4 sqrt of the points above) -5.8 +-
3.1, convex (their 1.5th power / 3) -6.7 +- 5.2 (217 deals), the first five points above
weighing 3 -8.9 +- 3.5.  A discard's danger read off 32 sampled hands (the share that
would meld it, as a bot that takes a card into a meld would take it) in place of the
prior's independent estimate: +0.6 +- 1.9 (431 deals), and for points -0.38 +- 0.44
(single hands against ``simple``, 1,500 deals).  Also for points, a discard's danger
charged by its value (6 + k x value points): k = 1 -1.36 +- 0.55 points a hand, -0.2
-0.12 +- 0.29, -0.4 -0.31 +- 0.40.

Seventh round: the race alone (``benchmarks/bench_race.py``: solitaire races on the same
1,000 deals, a seat drawing from the stock until its ten cards are knockable; the share
of races won against OpenSpiel's simple bot's rule, the two counts of draws taken as
independent). That rule wins half; the prior of before this round 52.3%; a seat that
sees the next stock card 53.5%, and the next two 58.3% (each discard the one after which
those cards make the hand knockable soonest). So the hand objective now re-ranks the
prior's three best discards by their value two draws ahead (``_Prior.two_ahead``: each
card the next draw may bring, then the best of the three discards leaving the least
deadwood, valued by ``future``) before the best two are played out: the prior so
re-ranked wins 53.2% of those races. On OpenSpiel's game (2,000 hands a set) that is
within the noise: 57.4% of decided hands on the validation decks (seed 5001; was 56.8%,
+0.6 +- 1.2 paired by deal), 55.2% on the untouched ones (9001; was 54.8%), 58.1% on the
tuning decks (1; was 58.5%). The game adds about four points to the race (the discards
taken and denied), so 60% of OpenSpiel's hands would need a race of about 56%, between
what the seats that see one and two stock cards ahead win. What did not help: the same
look for the draw (the upcard taken when the hand it leaves, valued one draw ahead,
beats the stock's value two draws ahead) -0.05 +- 1.0; five discards re-ranked and none
played out -2.4 +- 2.1 (1,000 hands); for points, the two-draw look +0.01 +- 0.39 points
a hand (single hands against ``simple``, 1,452 deals), so the game objective keeps its
prior. On the prior alone (no charge for feeding the opponent, 600 deals): three draws
ahead, the first draw sampled (ten cards), won 52.8% of races where two draws won 55.5%;
a learned value (a small network fitted to the draws still needed from 244,000
afterstates of the prior's races) raced slower than the prior, 11.8 draws to 10.3.

Playouts use the engine's meld logic: ``deadwood_of_mask`` for every deadwood,
``best_arrangement`` for a playout knocker's melds (the arrangement the engine
offers with a knock), and the layoff rule of ``arena.cards.melds`` (a fourth card
on a set; cards extending a run at either end, chained) for the defender; scores
follow the hand's rules (gin and undercut bonuses, the Oklahoma knock limit and
doubling).  Hot path: a playout is about 0.3 ms (some 20 turns of 12
``deadwood_of_mask`` calls of about 0.5 microseconds each, plus Python's overhead).

**Budget**: ``playouts`` (hands played to the end per searched decision, shared
among the candidates) fixes the work and so, with the seed, the decision;
``max_ms`` is only a cap: when the clock passes it, the decision is the best
candidate found so far.  ``SearchParams`` refuses values out of range with the
valid range in the message.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from arena.cards import Card, CardSet, Meld, MeldKind, best_arrangement, deadwood_of_mask
from arena.cards.masks import (
    ALL_BITS,
    NEXT_TO,
    RANK_BITS,
    RELATED,
    SAME_RANK,
    SUIT_BITS,
    TWO_AWAY,
    bits,
)
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
)

__all__ = [
    "PARAM_RANGES",
    "HandMemory",
    "Objective",
    "SearchParams",
    "SearchPolicy",
    "SearchStats",
    "World",
    "arrangements",
    "sample_world",
    "unseen_mask",
]

_VALUE: Final = tuple(min(10, i % 13 + 1) for i in range(52))
_CARDS: Final = tuple(Card(i) for i in range(52))


# The valid range of each budget knob, for the error that refuses a bad one.
PARAM_RANGES: Final[dict[str, tuple[float, float]]] = {
    "playouts": (1, 100_000),
    "max_ms": (1, 60_000),
    "candidates": (1, 11),
}


class Objective(StrEnum):
    """What the search maximises.  ``GAME``: the hand's points (what wins games to a
    target); ``HAND``: the chance of winning the hand (a won hand +1, a lost one -1,
    whatever the points), for a match that is one hand or counts hands won."""

    GAME = "game"
    HAND = "hand"


@dataclass(frozen=True, slots=True)
class SearchParams:
    """The search's budget and aim.  ``playouts``: hands played out per decision,
    shared by the candidates (fixes the decision for a seed); ``max_ms``: a cap on
    the decision's time (the best candidate so far is answered when it passes);
    ``candidates``: discards searched (the best by deadwood left); ``objective``:
    points (``game``, the default) or hands won (``hand``), given as an
    ``Objective`` or its value."""

    playouts: int = 480
    max_ms: float = 300.0
    candidates: int = 2
    objective: Objective = Objective.GAME

    def __post_init__(self) -> None:
        try:  # a frozen dataclass: the value ("hand") becomes its member
            object.__setattr__(self, "objective", Objective(self.objective))
        except ValueError:
            valid = ", ".join(member.value for member in Objective)
            raise ValueError(
                f"search objective must be one of {valid}, got {self.objective!r}"
            ) from None
        for name, (low, high) in PARAM_RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(
                    f"search {name} must be a number in {low:g}..{high:g}, got {value!r}"
                )
            if not low <= value <= high or (name != "max_ms" and value != int(value)):
                kind = "a number" if name == "max_ms" else "an integer"
                raise ValueError(
                    f"search {name} must be {kind} in {low:g}..{high:g}, got {value!r}"
                )


@dataclass(frozen=True, slots=True)
class _Tuning:
    """The constants an objective plays with (measured: see Tuning in the module
    docstring).  The first five are how what the opponent did changes the weight of
    an unseen card (``HandMemory.weights``): a card he left (discarded or refused)
    makes those of its rank, next to it and two away in its suit less likely, one he
    took makes those that meld with it more likely, and cards of a higher rank than
    his latest discard are weighed by ``above_latest`` (1.0: no evidence).
    ``knock_bonus``: deadwood points a knockable hand is worth beyond its deadwood
    (the prior); ``knockable_slope``: what a point of deadwood weighs in the prior
    at or below the knock limit (1.0: as above it).  ``searched_discards``: when the
    seat may not knock, the prior's best discards played out against each other
    (with half the budget); 1: the prior's choice, unsearched.  ``looked_ahead``: the
    prior's best discards re-ranked, before that, by their value two draws ahead
    (``_Prior.two_ahead``); 0: not re-ranked."""

    left_same_rank: float
    left_next_to: float
    left_two_away: float
    took_related: float
    above_latest: float
    knock_bonus: float
    knockable_slope: float
    searched_discards: int
    looked_ahead: int


_TUNING: Final = {
    Objective.GAME: _Tuning(0.15, 0.25, 0.5, 6.0, 1.0, 8.0, 2.0, 1, 0),
    Objective.HAND: _Tuning(0.6, 0.7, 0.85, 2.0, 0.3, 100.0, 1.0, 2, 3),
}


@dataclass(slots=True)
class HandMemory:
    """What this seat saw the opponent do in the current hand, as card masks.

    Rebuilt from consecutive observations of one seat (an observation shows the
    pile and the cards the opponent took and still holds, not who discarded what):
    our discard still on the pile when we act again was refused; a pile card we did
    not discard and that is not the first upcard was discarded by the opponent."""

    key: tuple[int, int, int, int, int] | None = None
    upcard: int = 0
    mine: int = 0  # cards we discarded
    discarded: int = 0  # cards the opponent discarded
    refused: int = 0  # cards offered to the opponent that he left
    took: int = 0  # cards the opponent took from the pile this hand
    pending: int = 0  # the card we offered him with our last action
    latest: int = 0  # the opponent's latest discard

    def observe(self, observation: GinObservation) -> None:
        key = (
            observation.seat,
            observation.hand_number,
            observation.dealer,
            observation.scores[0],
            observation.scores[1],
        )
        pile = 0
        for card in observation.discard_pile:
            pile |= 1 << card.index
        if key != self.key:
            self.key = key
            self.mine = self.discarded = self.refused = self.took = self.pending = 0
            self.latest = 0
            # Only a first-upcard decision shows the upcard for sure: a seat whose
            # first decision is a draw sees the opponent's discard on the pile.
            first = observation.phase is Phase.FIRST_UPCARD and observation.discard_pile
            self.upcard = observation.discard_pile[0].mask if first else 0
        known = observation.opponent_known.mask
        self.took |= known
        if self.pending:
            if self.pending & pile and not self.pending & known:
                self.refused |= self.pending
            self.pending = 0
        if observation.phase is Phase.FIRST_UPCARD and observation.seat == observation.dealer:
            self.refused |= self.upcard  # the non-dealer passed it
        new = pile & ~self.mine & ~self.upcard & ~self.discarded
        if new:
            self.latest = new
        self.discarded |= new

    def record(self, observation: GinObservation, action: Action) -> None:
        if isinstance(action, Discard | Knock):
            self.mine |= action.card.mask
            self.pending = action.card.mask
        elif (
            action is PASS
            and observation.phase is Phase.FIRST_UPCARD
            and observation.seat != observation.dealer
        ):
            self.pending = self.upcard

    def weights(self, unseen: int, objective: Objective = Objective.GAME) -> dict[int, float]:
        """A weight per unseen card: how likely it is in the opponent's hand rather
        than in the stock, relative to the others (1.0: no evidence), read as the
        objective's tuning reads the evidence."""
        tuning = _TUNING[objective]
        weights = dict.fromkeys(bits(unseen), 1.0)
        for index in bits(self.discarded | self.refused):
            for other in bits(SAME_RANK[index] & unseen):
                weights[other] *= tuning.left_same_rank
            for other in bits(NEXT_TO[index] & unseen):
                weights[other] *= tuning.left_next_to
            for other in bits(TWO_AWAY[index] & unseen):
                weights[other] *= tuning.left_two_away
        for index in bits(self.took):
            for other in bits(RELATED[index] & unseen):
                weights[other] *= tuning.took_related
        if tuning.above_latest != 1.0 and self.latest:
            # A player who discards his highest deadwood card (OpenSpiel's simple bot)
            # holds a higher card only in a meld.
            rank = (self.latest.bit_length() - 1) % 13
            for other in weights:
                if other % 13 > rank:
                    weights[other] *= tuning.above_latest
        return weights


def unseen_mask(observation: GinObservation) -> int:
    """The cards this seat cannot place: not its own, not in the pile, not known to
    be in the opponent's hand (so each is in his hand or in the stock)."""
    pile = 0
    for card in observation.discard_pile:
        pile |= 1 << card.index
    return ALL_BITS & ~observation.hand.mask & ~pile & ~observation.opponent_known.mask


@dataclass(frozen=True, slots=True)
class World:
    """One determinisation: the opponent's hand and the stock (top card last)."""

    opponent: int
    stock: tuple[int, ...]


def sample_world(
    observation: GinObservation, weights: dict[int, float], rng: random.Random
) -> World:
    """The opponent's cards (his known ones plus a weighted draw from the unseen
    cards) and the rest of the unseen cards as the stock, shuffled."""
    unseen = unseen_mask(observation)
    known = observation.opponent_known.mask
    hidden = observation.opponent_hand_size - known.bit_count()
    pool = list(bits(unseen))
    chosen = 0
    if hidden > 0:
        ws = [weights.get(i, 1.0) for i in pool]
        # Weighted sampling without replacement (Efraimidis and Spirakis' keys u^(1/w)).
        keyed = sorted(
            (
                (rng.random() ** (1.0 / w) if w > 0 else 0.0, i)
                for i, w in zip(pool, ws, strict=True)
            ),
            reverse=True,
        )
        for _, index in keyed[:hidden]:
            chosen |= 1 << index
    stock = [i for i in pool if not chosen >> i & 1]
    rng.shuffle(stock)
    return World(known | chosen, tuple(stock))


# -- playouts -------------------------------------------------------------------


def _melds_of(hand: int) -> list[tuple[bool, int]]:
    """The knocker's melds (the engine's best arrangement) as (is a set, mask)."""
    arrangement = best_arrangement(CardSet(hand))
    return [(meld.kind.value == "set", meld.cards.mask) for meld in arrangement.melds]


def _extensions(is_set: bool, meld: int, hand: int) -> list[int]:
    """The card masks ``hand`` can lay off on one meld on its own (including none),
    as ``arena.cards.melds`` allows: a set's fourth card; a run's chain at each end."""
    if is_set:
        rank = (meld & -meld).bit_length() - 1
        missing = RANK_BITS[rank % 13] & ~meld & hand
        return [0, missing] if missing else [0]
    low_index = (meld & -meld).bit_length() - 1
    suit = low_index // 13
    shift = 13 * suit
    held = hand >> shift & SUIT_BITS
    run = meld >> shift & SUIT_BITS
    below = [0]
    bit = run & -run
    while bit > 1 and held & (bit >> 1):
        bit >>= 1
        below.append(below[-1] | bit)
    above = [0]
    bit = 1 << (run.bit_length() - 1)
    while bit < 1 << 12 and held & (bit << 1):
        bit <<= 1
        above.append(above[-1] | bit)
    return [(lo | hi) << shift for lo in below for hi in above]


def _defender_deadwood(
    knocker: int, defender: int, melds: Sequence[tuple[bool, int]] | None = None
) -> int:
    """The defender's least deadwood after laying off on the knocker's melds
    (``melds``, or the engine's best arrangement of ``knocker``)."""
    best = deadwood_of_mask(defender)
    options: list[int] = [0]
    for is_set, meld in _melds_of(knocker) if melds is None else melds:
        exts = _extensions(is_set, meld, defender)
        if len(exts) > 1:
            options = [o | e for o in options for e in exts if not o & e]
    for used in options:
        if used:
            value = deadwood_of_mask(defender & ~used)
            if value < best:
                best = value
    return best


@dataclass(frozen=True, slots=True)
class _Scoring:
    limit: int
    gin_bonus: int
    undercut_bonus: int
    factor: int  # 2 when Oklahoma doubles the hand


def _score_knock(
    knocker: int,
    hands: list[int],
    scoring: _Scoring,
    melds: Sequence[tuple[bool, int]] | None = None,
) -> int:
    """Points of the hand for seat 0 (negative: seat 1 scores) after ``knocker`` knocks
    (laying down ``melds``, or the engine's best arrangement)."""
    mine = hands[knocker]
    other = hands[1 - knocker]
    dead = deadwood_of_mask(mine)
    if dead == 0:
        points = deadwood_of_mask(other) + scoring.gin_bonus
        winner = knocker
    else:
        defence = _defender_deadwood(mine, other, melds)
        if defence <= dead:
            points = dead - defence + scoring.undercut_bonus
            winner = 1 - knocker
        else:
            points = defence - dead
            winner = knocker
    points *= scoring.factor
    return points if winner == 0 else -points


def _all_melds(mask: int) -> list[tuple[bool, int]]:
    """Every meld within ``mask``: sets of 3 and 4 of a rank, runs of 3 or more."""
    melds: list[tuple[bool, int]] = []
    for rank in range(13):
        held = RANK_BITS[rank] & mask
        if held.bit_count() >= 3:
            melds.append((True, held))
            if held.bit_count() == 4:
                rest = held
                while rest:
                    low = rest & -rest
                    melds.append((True, held ^ low))
                    rest ^= low
    for suit in range(4):
        cards = mask >> 13 * suit & SUIT_BITS
        for start in range(11):
            length = 0
            while start + length < 13 and cards >> (start + length) & 1:
                length += 1
            for size in range(3, length + 1):
                melds.append((False, ((1 << size) - 1) << (13 * suit + start)))
    return melds


def arrangements(hand: int, limit: int = 24) -> list[list[tuple[bool, int]]]:
    """Up to ``limit`` ways to meld ``hand`` (a mask) with its least deadwood, each a
    list of (is a set, mask): the knocker's choices of what to lay down."""
    melds = _all_melds(hand)
    values = [sum(_VALUE[i] for i in bits(meld)) for _, meld in melds]
    needed = sum(_VALUE[i] for i in bits(hand)) - deadwood_of_mask(hand)
    found: list[list[tuple[bool, int]]] = []
    chosen: list[tuple[bool, int]] = []

    def extend(start: int, used: int, covered: int) -> None:
        if covered == needed:
            found.append(list(chosen))
            return
        for j in range(start, len(melds)):
            if len(found) >= limit:
                return
            meld = melds[j][1]
            if meld & used or covered + values[j] > needed:
                continue
            chosen.append(melds[j])
            extend(j + 1, used | meld, covered + values[j])
            chosen.pop()

    extend(0, 0, 0)
    return found


def _best_discard(hand: int, forbidden: int) -> tuple[int, int]:
    """The rollout policy's discard (least deadwood left, then the highest card) and
    the deadwood it leaves."""
    best_dead = 999
    best_bit = 0
    best_value = -1
    rest = hand & ~forbidden
    dw = deadwood_of_mask
    while rest:
        bit = rest & -rest
        rest ^= bit
        dead = dw(hand ^ bit)
        if dead < best_dead or (dead == best_dead and _VALUE[bit.bit_length() - 1] > best_value):
            best_dead = dead
            best_bit = bit
            best_value = _VALUE[bit.bit_length() - 1]
    return best_bit, best_dead


def _takes(hand: int, top: int) -> bool:
    """The rollout policy's draw: take the upcard only if it sits in a meld."""
    bit = 1 << top
    return deadwood_of_mask(hand | bit) < deadwood_of_mask(hand) + _VALUE[top]


def _playout(
    hands: list[int],
    pile: list[int],
    stock: list[int],
    seat: int,
    drawing: bool,
    forbidden: int,
    scoring: _Scoring,
) -> int:
    """Play the hand to its end from ``seat`` to draw (or to discard, with
    ``forbidden`` the card taken this turn); the hand's points for seat 0.
    ``hands``, ``pile`` and ``stock`` are consumed."""
    limit = scoring.limit
    while True:
        hand = hands[seat]
        if drawing:
            if pile and _takes(hand, pile[-1]):
                top = pile.pop()
                forbidden = 1 << top
                hand |= forbidden
            else:
                hand |= 1 << stock.pop()
                forbidden = 0
        bit, dead = _best_discard(hand, forbidden)
        hand ^= bit
        hands[seat] = hand
        if dead <= limit:
            return _score_knock(seat, hands, scoring)
        pile.append(bit.bit_length() - 1)
        if len(stock) <= 2:
            return 0
        seat = 1 - seat
        drawing = True


# -- the prior: one draw ahead -----------------------------------------------------


def _meld_pairs(index: int) -> tuple[tuple[int, int], ...]:
    """The pairs of cards that make a three-card meld with ``index``."""
    rank, suit = index % 13, index // 13
    same = [13 * other + rank for other in range(4) if other != suit]
    pairs = [(a, b) for i, a in enumerate(same) for b in same[i + 1 :]]
    for low in (rank - 2, rank - 1, rank):
        if low >= 0 and low + 2 <= 12:
            ranks = [r for r in (low, low + 1, low + 2) if r != rank]
            pairs.append((13 * suit + ranks[0], 13 * suit + ranks[1]))
    return tuple(pairs)


_MELD_PAIRS: Final = tuple(_meld_pairs(i) for i in range(52))

# Least deadwood by hand mask, shared by every decision (consecutive decisions look
# at hands a card or two apart); cleared when it passes the bound (tens of MB).
_DEADWOOD: dict[int, int] = {}
_DEADWOOD_BOUND: Final = 300_000
_DANGER_WEIGHT: Final = 6.0  # deadwood points charged per unit of chance the opponent melds it
_AHEAD_DISCARDS: Final = 3  # discards weighed after each first draw in the two-draw look


class _Prior:
    """The heuristic the search starts from and must beat: a hand's value is its
    expected least deadwood after one more draw from the stock, the stock's cards
    weighted by the chance that each is not in the opponent's hand (the sampler's
    weights); a discard also pays for the chance that the opponent melds it.  This
    is the one-draw lookahead of the ``strong`` sample bot, on the same belief the
    sampler deals from, with a knockable hand's deadwood weighed as the objective's
    tuning says (``knock_bonus``, ``knockable_slope``)."""

    __slots__ = ("draws", "fcache", "hand", "limit", "p_opp", "phi")

    def __init__(
        self, observation: GinObservation, weights: dict[int, float], tuning: _Tuning
    ) -> None:
        self.hand = observation.hand.mask
        known = observation.opponent_known.mask
        hidden = max(0, observation.opponent_hand_size - known.bit_count())
        total = sum(weights.values())
        p_opp = [0.0] * 52
        for index in bits(known):
            p_opp[index] = 1.0
        draws: list[tuple[int, int, float]] = []
        if total > 0:
            scale = hidden / total
            for index, weight in weights.items():
                p_opp[index] = min(0.95, weight * scale)
            stock_total = sum(1.0 - p_opp[index] for index in weights)
            if stock_total > 0:
                draws = [(1 << i, i, (1.0 - p_opp[i]) / stock_total) for i in weights]
        self.p_opp = p_opp
        self.draws = draws
        # A hand's worth by its deadwood: the deadwood itself above the knock limit;
        # at or below it, less the knock bonus, each point weighing knockable_slope.
        phi = [float(d) for d in range(120)]
        limit = min(observation.knock_limit, 119)
        for d in range(limit + 1):
            phi[d] = limit - tuning.knock_bonus - tuning.knockable_slope * (limit - d)
        self.phi = phi
        self.limit = limit
        self.fcache: dict[int, float] = {}
        if len(_DEADWOOD) > _DEADWOOD_BOUND:
            _DEADWOOD.clear()

    @staticmethod
    def deadwood(mask: int) -> int:
        value = _DEADWOOD.get(mask)
        if value is None:
            value = _DEADWOOD[mask] = deadwood_of_mask(mask)
        return value

    def future(self, hand: int) -> float:
        """Expected value (deadwood, less the knock bonus) of a 10-card hand after
        one more draw from the stock and the best discard."""
        cached = self.fcache.get(hand)
        if cached is not None:
            return cached
        deadwood = self.deadwood
        phi = self.phi
        base = deadwood(hand)
        bits = []
        rest = hand
        while rest:
            low = rest & -rest
            bits.append(low)
            rest ^= low
        drop_one = min(deadwood(hand ^ bit) for bit in bits)
        total = 0.0
        for bit, index, p in self.draws:
            if RELATED[index] & hand:
                grown = hand | bit
                best = base
                for b in bits:
                    value = deadwood(grown ^ b)
                    if value < best:
                        best = value
            else:
                best = min(base, drop_one + _VALUE[index])
            total += p * phi[best]
        if not self.draws:
            total = phi[base]
        self.fcache[hand] = total
        return total

    def two_ahead(self, hand: int) -> float:
        """Expected value of a 10-card hand after two more draws from the stock: each
        card the next draw may bring, then the best of the ``_AHEAD_DISCARDS`` discards
        leaving the least deadwood, valued by ``future`` (a hand knockable after the
        first draw at its own worth: it knocks).  Not cached: a decision asks it of a
        few hands, once each."""
        deadwood = self.deadwood
        phi = self.phi
        limit = self.limit
        total = 0.0
        for bit, _, p in self.draws:
            grown = hand | bit
            options: list[tuple[int, int]] = []
            rest = grown
            while rest:
                low = rest & -rest
                rest ^= low
                options.append((deadwood(grown ^ low), low))
            options.sort()
            best = float("inf")
            for dead, low in options[:_AHEAD_DISCARDS]:
                value = phi[dead] if dead <= limit else self.future(grown ^ low)
                if value < best:
                    best = value
            total += p * best
        if not self.draws:
            total = self.future(hand)
        return total

    def danger(self, index: int) -> float:
        """The chance that the opponent can meld the card ``index`` at once."""
        p_opp = self.p_opp
        none = 1.0
        for a, b in _MELD_PAIRS[index]:
            pa = p_opp[a]
            if pa:
                none *= 1.0 - pa * p_opp[b]
        return 1.0 - none

    def discard_score(self, hand11: int, index: int, draws: int = 1) -> float:
        """What discarding ``index`` from ``hand11`` is worth (less is better): the hand
        left valued ``draws`` (1 or 2) draws ahead, plus the charge for feeding him."""
        kept = hand11 & ~(1 << index)
        value = self.future(kept) if draws == 1 else self.two_ahead(kept)
        return value + _DANGER_WEIGHT * self.danger(index)

    def blind(self, hand: int) -> float:
        """What a draw from the stock is worth to a 10-card hand: its value after one
        draw, plus as much again for the draws after it."""
        now = self.future(hand)
        return now - (self.deadwood(hand) - now)


# -- the policy -----------------------------------------------------------------

_SWITCH_Z: Final = 1.0  # standard errors by which a candidate must beat the prior's
_MIN_WORLDS: Final = 8  # fewer worlds tell too little to overrule the prior
_LAY_DOWN_WORLDS: Final = 32  # sampled hands that choose a knock's melds


@dataclass(slots=True)
class SearchStats:
    """What the last decision's search did: for tests and the curious.  Candidate 0
    is the prior's choice; ``values[i][w]`` is candidate ``i``'s result (hand points
    for this seat; for the hand objective +1 won, -1 lost, 0 neither) in world ``w``,
    every candidate played in the same worlds."""

    candidates: list[Action] = field(default_factory=list)
    values: list[list[float]] = field(default_factory=list)
    playouts: int = 0
    timed_out: bool = False
    chosen: Action | None = None

    def mean(self, index: int) -> float:
        row = self.values[index]
        return sum(row) / len(row) if row else float("-inf")

    def choice(self) -> int:
        """The candidate the search answers: the best mean over the worlds every
        candidate was played in, if it beats the prior's choice (candidate 0) by
        ``_SWITCH_Z`` standard errors of the paired difference in at least
        ``_MIN_WORLDS`` worlds; else the prior's."""
        if not self.values:
            return 0
        worlds = min(len(row) for row in self.values)
        if worlds < _MIN_WORLDS:
            return 0
        means = [sum(row[:worlds]) / worlds for row in self.values]
        best = max(range(len(means)), key=means.__getitem__)
        if best == 0:
            return 0
        diffs = [
            a - b for a, b in zip(self.values[best][:worlds], self.values[0][:worlds], strict=True)
        ]
        mean = sum(diffs) / worlds
        variance = sum((d - mean) ** 2 for d in diffs) / (worlds - 1)
        return best if mean > _SWITCH_Z * (variance / worlds) ** 0.5 else 0


class SearchPolicy:
    """Determinised Monte Carlo search (see the module docstring), one per seat and
    game: it remembers what the opponent did in the current hand.

    The observation does not carry the scoring bonuses: ``gin_bonus`` and
    ``undercut_bonus`` are the rules' (a bot learns them at match start; 25 and 25
    are the standard rules').  ``clock`` (seconds, monotonic) is injectable so that
    a test can make the deadline pass at a chosen point."""

    def __init__(
        self,
        params: SearchParams | None = None,
        *,
        gin_bonus: int = 25,
        undercut_bonus: int = 25,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.params = params or SearchParams()
        self.gin_bonus = gin_bonus
        self.undercut_bonus = undercut_bonus
        self.memory = HandMemory()
        self.clock = clock
        self.deadline = 0.0
        self.stats = SearchStats()

    def new_hand(self) -> None:
        self.memory = HandMemory()

    def __call__(
        self, observation: GinObservation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        # The cap counts from here: the prior and the knock's melds are in it too.
        self.deadline = self.clock() + self.params.max_ms / 1000.0
        self.memory.observe(observation)
        action = self._decide(observation, legal, random.Random(rng.getrandbits(64)))
        self.memory.record(observation, action)
        return action

    # -- candidates ------------------------------------------------------------

    def _decide(
        self, observation: GinObservation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        phase = observation.phase
        self.stats = SearchStats()
        if phase is Phase.DEFEND:  # the engine lists the least deadwood first
            return next(action for action in legal if isinstance(action, Defend))
        if phase is Phase.LAST_DISCARD:  # passing scores nothing; a knock rarely loses
            return DRAW_DISCARD if DRAW_DISCARD in legal else PASS
        objective = self.params.objective
        weights = self.memory.weights(unseen_mask(observation), objective)
        prior = _Prior(observation, weights, _TUNING[objective])
        if phase in (Phase.FIRST_UPCARD, Phase.DRAW):
            refuse = PASS if phase is Phase.FIRST_UPCARD else DRAW_STOCK
            if DRAW_DISCARD not in legal:
                return refuse
            # Playouts by the fast policy misjudge what a drawn card promises (they
            # discard by deadwood alone): the draw is the prior's, measured better.
            return DRAW_DISCARD if self._prior_takes(observation, prior) else refuse
        else:
            candidates = self._discard_candidates(observation, legal, prior)
            first = candidates[0]
            if isinstance(first, Knock) and deadwood_of_mask(
                observation.hand.mask & ~first.card.mask
            ):
                candidates[0] = self._lay_down(observation, first, weights, rng)
        if len(candidates) == 1:
            return candidates[0]
        if isinstance(candidates[0], Knock):
            return self._search(observation, candidates, weights, rng)
        # Discards only (the hand objective's): half the budget, for the time's sake.
        budget = max(1, self.params.playouts // 2)
        return self._search(observation, candidates, weights, rng, budget)

    def _lay_down(
        self,
        observation: GinObservation,
        knock: Knock,
        weights: dict[int, float],
        rng: random.Random,
    ) -> Knock:
        """The knock's melds: of the arrangements with the least deadwood, the one
        that scores best against the opponent's sampled hands (his layoffs on each
        arrangement played exactly)."""
        rest = observation.hand.mask & ~knock.card.mask
        options = arrangements(rest)
        if len(options) < 2:
            return knock
        me = observation.seat
        scoring = self._scoring(observation)
        sign = 1 if me == 0 else -1
        worlds = [sample_world(observation, weights, rng) for _ in range(_LAY_DOWN_WORLDS)]
        hands = [0, 0]
        hands[me] = rest
        by_hand = self.params.objective is Objective.HAND
        best: tuple[float, float, int] | None = None
        for number, melds in enumerate(options):
            if self.clock() > self.deadline:
                break
            total = 0.0
            won = 0.0  # hands won less hands lost: what the hand objective ranks first
            for world in worlds:
                hands[1 - me] = world.opponent
                points = sign * _score_knock(me, hands, scoring, melds)
                total += points
                if by_hand:
                    won += (points > 0) - (points < 0)
            if best is None or (won, total) > best[:2]:
                best = (won, total, number)
        assert best is not None
        chosen = options[best[2]]
        kinds = {True: MeldKind.SET, False: MeldKind.RUN}
        return Knock(
            knock.card, tuple(Meld(CardSet(mask), kinds[is_set]) for is_set, mask in chosen)
        )

    def _scoring(self, observation: GinObservation) -> _Scoring:
        return _Scoring(
            observation.knock_limit,
            self.gin_bonus,
            self.undercut_bonus,
            2 if observation.doubled else 1,
        )

    @staticmethod
    def _prior_takes(observation: GinObservation, prior: _Prior) -> bool:
        hand = observation.hand.mask
        top = observation.discard_pile[-1]
        grown = hand | top.mask
        best = min((prior.discard_score(grown, index), index) for index in bits(hand))
        after = prior.future(grown & ~(1 << best[1]))
        if observation.phase is Phase.FIRST_UPCARD and observation.seat == observation.dealer:
            blind = prior.future(hand)  # passing gives up this draw altogether
        else:
            blind = prior.blind(hand)
        return after < blind

    def _discard_candidates(
        self, observation: GinObservation, legal: Sequence[Action], prior: _Prior
    ) -> list[Action]:
        hand = observation.hand.mask
        knocks = [action for action in legal if isinstance(action, Knock)]
        discards = [action for action in legal if isinstance(action, Discard)]
        out: list[Action] = []
        if knocks:
            knock = min(
                knocks, key=lambda k: (deadwood_of_mask(hand & ~k.card.mask), -k.card.value)
            )
            if deadwood_of_mask(hand & ~knock.card.mask) == 0:
                return [knock]  # gin: nothing scores more
            out.append(knock)  # the prior knocks as soon as it may
        ranked = sorted(
            discards,
            key=lambda d: (prior.discard_score(hand, d.card.index), -d.card.value, d.card.index),
        )
        if not knocks:
            # Nothing to weigh against a knock: for points, playouts by the fast policy
            # judge discards worse than the prior does (measured), so the prior decides;
            # for hands won, they choose between its best few (measured better).
            tuning = _TUNING[self.params.objective]
            if tuning.looked_ahead:
                ahead = ranked[: tuning.looked_ahead]
                ahead.sort(key=lambda d: prior.discard_score(hand, d.card.index, draws=2))
                ranked[: tuning.looked_ahead] = ahead
            return list[Action](ranked[: tuning.searched_discards])
        out.extend(ranked[: self.params.candidates])
        return out

    # -- the search --------------------------------------------------------------

    def _search(
        self,
        observation: GinObservation,
        candidates: list[Action],
        weights: dict[int, float],
        rng: random.Random,
        playouts: int | None = None,
    ) -> Action:
        """Play every candidate in the same sampled worlds, ``playouts`` (the
        budget's by default) hands in all, and answer ``SearchStats.choice``."""
        params = self.params
        clock = self.clock
        deadline = self.deadline
        me = observation.seat
        scoring = self._scoring(observation)
        stats = self.stats
        stats.candidates = list(candidates)
        stats.values = [[] for _ in candidates]
        pile = [card.index for card in observation.discard_pile]
        hand = observation.hand.mask
        sign = 1 if me == 0 else -1
        worlds = max(2, (playouts or params.playouts) // len(candidates))
        by_hand = params.objective is Objective.HAND
        for _ in range(worlds):
            world = sample_world(observation, weights, rng)
            for arm, action in enumerate(candidates):
                if clock() > deadline:
                    stats.timed_out = True
                    return self._answer()
                value = sign * _play_candidate(action, observation, hand, world, pile, me, scoring)
                if by_hand:  # a won hand is worth +1, a lost one -1, whatever the points
                    value = (value > 0) - (value < 0)
                stats.values[arm].append(value)
                stats.playouts += 1
        return self._answer()

    def _answer(self) -> Action:
        stats = self.stats
        stats.chosen = stats.candidates[stats.choice()]
        return stats.chosen


def _meld_masks(knock: Knock) -> list[tuple[bool, int]]:
    return [(meld.kind is MeldKind.SET, meld.cards.mask) for meld in knock.melds]


def _play_candidate(
    action: Action,
    observation: GinObservation,
    hand: int,
    world: World,
    pile: list[int],
    me: int,
    scoring: _Scoring,
) -> int:
    """Play ``action`` in ``world``, then the hand to its end; points for seat 0."""
    hands = [0, 0]
    hands[me] = hand
    hands[1 - me] = world.opponent
    stock = list(world.stock)
    pile = list(pile)
    opponent = 1 - me
    if isinstance(action, Knock):
        hands[me] = hand & ~action.card.mask
        return _score_knock(me, hands, scoring, _meld_masks(action))
    if isinstance(action, Discard):
        bit = action.card.mask
        hands[me] = hand ^ bit
        pile.append(action.card.index)
        if len(stock) <= 2:
            return 0
        return _playout(hands, pile, stock, opponent, True, 0, scoring)
    if action is DRAW_DISCARD:
        top = pile.pop()
        hands[me] = hand | 1 << top
        return _playout(hands, pile, stock, me, False, 1 << top, scoring)
    if action is DRAW_STOCK:
        hands[me] = hand | 1 << stock.pop()
        return _playout(hands, pile, stock, me, False, 0, scoring)
    # PASS on the first upcard.
    dealer = observation.dealer
    if me != dealer:  # the dealer may take it; if not, we draw from the stock
        if _takes(hands[dealer], pile[-1]):
            top = pile.pop()
            hands[dealer] |= 1 << top
            return _playout(hands, pile, stock, dealer, False, 1 << top, scoring)
        hands[me] = hand | 1 << stock.pop()
        return _playout(hands, pile, stock, me, False, 0, scoring)
    hands[opponent] |= 1 << stock.pop()  # both passed: the non-dealer draws
    return _playout(hands, pile, stock, opponent, False, 0, scoring)
