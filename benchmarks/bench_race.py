"""How fast each Gin policy makes a knockable hand: solitaire races on the same deals.

Run:  python benchmarks/bench_race.py [--deals N] [--seed S] [--policies a,b,...]

Against a bot that knocks as soon as it may and never lays off (OpenSpiel's simple
bot), a hand is a race to the first knock: which seat first holds ten cards with
deadwood at or below the knock limit.  This measures that race without the other
seat: each deal gives a seat ten cards, ten more are dealt away unseen and one is
turned up (the seat passes it); the seat then draws from the stock only and discards,
a turn at a time, until the ten cards it keeps are knockable, or until 15 draws pass
(about a seat's share of the stock before the wall).  Every policy plays the same deals, so the
columns compare like with like.

Columns: mean draws to a knockable hand (a race never won counts 16); the share of
deals never knockable; and the share of races the policy would win against
OpenSpiel's simple bot's rule on the same deals, the two distributions of draws
taken as independent (fewer draws wins, equal draws count one half, deals neither
finishes are left out): the share of decided hands a seat would win if nothing but
the race mattered.  In the real game each seat also takes the other's discards and
feeds him its own, which this leaves out.

Policies: ``openspiel-simple`` (OpenSpiel's simple bot's rule: discard the
unmatched card worth the most), ``simple`` (this project's SimpleGinRummyPlayer),
``search-prior`` (``search`` for hands won with one playout: its prior alone),
``search`` (for hands won, its default budget; slow), and ``peek-1``/``peek-2``:
a seat that sees the next one or two stock cards and picks the discard that knocks
soonest on them (then the least deadwood): a seat no fair policy can match move for
move, for scale.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence

from tables import print_table  # benchmarks/tables.py: scripts run from their folder

from arena.cards import Card, CardSet, best_arrangement, deadwood_of_mask, shuffled_deck
from arena.games.gin_rummy import DRAW_STOCK, PASS, Action, Discard, GinObservation, Phase
from arena.policies import SimpleGinPolicy
from arena.policies.search_gin import Objective, SearchParams, SearchPolicy

LIMIT = 10  # the standard knock limit, OpenSpiel's knock card
DRAWS = 15  # a seat's share of the stock before the wall
NEVER = DRAWS + 1


def _indices(mask: int) -> list[int]:
    return [i for i in range(52) if mask >> i & 1]


def openspiel_simple(hand: int) -> int:
    """OpenSpiel's simple bot: the unmatched card worth the most (ties: the highest)."""
    melded = 0
    for meld in best_arrangement(CardSet(hand)).melds:
        melded |= meld.cards.mask
    unmatched = hand & ~melded or hand
    return max(_indices(unmatched), key=lambda i: (min(10, i % 13 + 1), i % 13, i))


def peeking(known: int) -> Callable[[int, list[int]], int]:
    """A seat that sees the next ``known`` stock cards: the discard after which a
    knockable hand comes in the fewest draws of those, then the least deadwood."""

    def after(kept: int, upcoming: Sequence[int], depth: int) -> tuple[int, int]:
        """(draws from now, deadwood) when the ten cards ``kept``, ``depth`` draws from
        now, first become knockable on the cards seen, each discard the best."""
        dead = deadwood_of_mask(kept)
        if dead <= LIMIT:
            return (depth, dead)
        if not upcoming:
            return (NEVER, dead)
        grown = kept | 1 << upcoming[0]
        return min(after(grown & ~(1 << i), upcoming[1:], depth + 1) for i in _indices(grown))

    def discard(hand: int, stock: list[int]) -> int:
        upcoming = stock[::-1][:known]  # the top of the stock is its last card
        return min(
            _indices(hand),
            key=lambda i: (after(hand & ~(1 << i), upcoming, 0), -min(10, i % 13 + 1)),
        )

    return discard


class _Rule:
    """A discard rule in a race: it is asked nothing but which card to discard."""

    def __init__(self, choose: Callable[[int, list[int]], int]) -> None:
        self.choose = choose  # (eleven cards, the stock) -> the card discarded

    def pass_upcard(self, hand: int, pile: list[int], stock: list[int]) -> None:
        pass

    def draw(self, hand: int, pile: list[int], stock: list[int]) -> None:
        pass

    def discard(self, hand: int, pile: list[int], stock: list[int]) -> int:
        return self.choose(hand, stock)


class _AsSeat:
    """A project policy in a race: it is shown every draw and discard as seat 0 of a
    hand whose other seat never takes a card from the pile."""

    def __init__(self, policy: Callable[[GinObservation, Sequence[Action], random.Random], Action]):
        self.policy = policy
        self.rng = random.Random(0)

    def observe(self, phase: Phase, hand: int, pile: list[int], stock: list[int]) -> GinObservation:
        return GinObservation(
            seat=0,
            dealer=1,
            phase=phase,
            to_act=0,
            hand=CardSet(hand),
            discard_pile=tuple(Card(i) for i in pile),
            stock_size=len(stock),
            opponent_hand_size=10,
            opponent_known=CardSet(0),
            own_known=CardSet(0),
            knock_limit=LIMIT,
            doubled=False,
            forbidden_discard=None,
            knock=None,
            scores=(0, 0),
            hand_number=1,
        )

    def pass_upcard(self, hand: int, pile: list[int], stock: list[int]) -> None:
        """The hand's first decision: the seat (not the dealer) passes the upcard, as
        in a hand, so that no policy takes it for the other seat's discard."""
        observation = self.observe(Phase.FIRST_UPCARD, hand, pile, stock)
        assert self.policy(observation, [PASS], self.rng) is PASS

    def draw(self, hand: int, pile: list[int], stock: list[int]) -> None:
        action = self.policy(self.observe(Phase.DRAW, hand, pile, stock), [DRAW_STOCK], self.rng)
        assert action is DRAW_STOCK

    def discard(self, hand: int, pile: list[int], stock: list[int]) -> int:
        legal: list[Action] = [Discard(Card(i)) for i in _indices(hand)]
        action = self.policy(self.observe(Phase.DISCARD, hand, pile, stock), legal, self.rng)
        assert isinstance(action, Discard)
        return action.card.index


def race(name: str, seed: int) -> int:
    """Draws the policy ``name`` needs for a knockable hand on deal ``seed``."""
    deck = [card.index for card in shuffled_deck(seed)]
    hand = sum(1 << i for i in deck[:10])
    pile = [deck[20]]  # deck[10:20] is the other seat's, out of play
    stock = deck[21:]  # drawn from the end
    seat = _seat(name)
    seat.pass_upcard(hand, pile, stock)
    for draws in range(1, DRAWS + 1):
        seat.draw(hand, pile, stock)
        hand |= 1 << stock.pop()
        card = seat.discard(hand, pile, stock)
        hand &= ~(1 << card)
        pile.append(card)
        if deadwood_of_mask(hand) <= LIMIT:
            return draws
    return NEVER


def _seat(name: str) -> _AsSeat | _Rule:
    """A fresh seat for one deal (a project policy remembers its hand)."""
    if name == "openspiel-simple":
        return _Rule(lambda hand, stock: openspiel_simple(hand))
    if name in ("peek-1", "peek-2"):
        return _Rule(peeking(int(name.removeprefix("peek-"))))
    if name == "simple":
        return _AsSeat(SimpleGinPolicy())
    if name == "search-prior":
        return _AsSeat(SearchPolicy(SearchParams(playouts=1, objective=Objective.HAND)))
    assert name == "search", name
    return _AsSeat(SearchPolicy(SearchParams(objective=Objective.HAND)))


POLICIES = ("openspiel-simple", "simple", "search-prior", "search", "peek-1", "peek-2")


def share_first(mine: Sequence[int], theirs: Sequence[int]) -> float:
    """The share of races ``mine`` wins against ``theirs``, independent draws."""
    won = tied = lost = 0.0
    for a, count_a in Counter(mine).items():
        for b, count_b in Counter(theirs).items():
            weight = count_a * count_b
            if a == NEVER and b == NEVER:
                continue
            if a < b:
                won += weight
            elif a == b:
                tied += weight
            else:
                lost += weight
    return (won + tied / 2) / (won + tied + lost)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--deals", type=positive_int, default=1000)
    parser.add_argument("--seed", type=int, default=1, help="first deal seed")
    parser.add_argument("--policies", default="openspiel-simple,simple,search-prior,peek-1,peek-2")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.policies.split(",") if name.strip()]
    unknown = [name for name in names if name not in POLICIES]
    if unknown:
        parser.error(f"unknown policy {', '.join(unknown)}: choose from {', '.join(POLICIES)}")
    if "openspiel-simple" not in names:
        names.insert(0, "openspiel-simple")
    seeds = range(args.seed, args.seed + args.deals)
    draws = {name: [race(name, seed) for seed in seeds] for name in names}
    reference = draws["openspiel-simple"]
    print(f"# Solitaire races to a knockable hand ({args.deals} deals from seed {args.seed})")
    print()
    rows = [
        [
            name,
            f"{statistics.mean(values):.2f}",
            f"{100 * values.count(NEVER) / len(values):.1f}",
            f"{100 * share_first(values, reference):.1f}",
        ]
        for name, values in draws.items()
    ]
    print_table(
        ("policy", "mean draws", "never knockable %", "races won vs openspiel-simple %"), rows
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
