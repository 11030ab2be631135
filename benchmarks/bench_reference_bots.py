"""Benchmark the reference bots: ``search`` (Gin Rummy) against ``simple`` and
``strong`` in every preset, ``search`` against OpenSpiel's simple bot on OpenSpiel's
own game, and ``strong-rummy`` as one against several ``greedy-rummy``.

Run:  python benchmarks/bench_reference_bots.py [--quick] [--games N] [--seed S]
          [--workers W] [--parts gin,openspiel,rummy] [--opponents simple,strong]
          [--presets standard,classic,oklahoma] [--playouts N] [--hands N] [--rummy-games N]
          [--openspiel-objective hand|game]

Prints one table: bot, opponent, preset, games, win % with its 95% interval, the
share of decided hands won, and the bot's median and p99 milliseconds per decision.

- **Gin** (``gin``): whole games to the target, in-process, in duplicate pairs (each
  game seed played twice, seats swapped), as ``bench_strong.py`` plays them.  A
  tied game counts one half; the interval comes from the pairs (the pentanomial
  model of ``arena.stats``), not from games counted as independent.  The presets
  are the registered ones (``gin-rummy/standard``, ``classic``, ``oklahoma``).
  Hands won: the share of hands decided by a knock, gin or undercut that the bot
  won (Wilson interval).
- **OpenSpiel** (``openspiel``): single hands of ``pyspiel``'s ``gin_rummy`` (knock
  card 10, gin and undercut bonus 25), ``search`` against
  ``pyspiel.make_simple_gin_rummy_bot``.  The benchmark deals: every chance outcome
  of OpenSpiel's state is taken from one of this project's shuffled decks, so each
  deck is played twice with the bots' seats swapped (duplicate deals).  ``search``
  decides on this project's engine's mirror of the hand (a ``GinHand`` holding the
  same cards, fed every action of both players) and its action is mapped to
  OpenSpiel's actions, each checked legal there.  The rule differences met are
  counted and listed below the table.  Win % is the share of decided hands (a
  positive return for one side) that ``search`` won.  OpenSpiel's game is one
  hand, so ``search`` plays there for hands won (``SearchParams.objective`` "hand";
  ``--openspiel-objective game`` plays for points, as in whole games).
- **Rummy** (``rummy``): Basic Rummy games (``standard`` rules) of one
  ``strong-rummy`` against three ``greedy-rummy`` (4 seats), then five (6 seats);
  each deal seed is played once with ``strong-rummy`` in every seat (seats
  rotated, the same deals).  Wilson interval over games.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import platform
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tables import print_table  # benchmarks/tables.py: scripts run from their folder

from arena.cards import Card, CardSet, Meld, best_arrangement, shuffled_deck
from arena.games.gin_rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    PRESETS,
    Action,
    Defend,
    Discard,
    GinGame,
    GinHand,
    GinRules,
    Knock,
    Phase,
)
from arena.games.rummy import PRESETS as RUMMY_PRESETS
from arena.games.rummy import RummyGame
from arena.policies import SimpleGinPolicy, greedy_rummy
from arena.policies.search_gin import Objective, SearchParams, SearchPolicy
from arena.policies.strong_rummy import StrongRummyPolicy
from arena.stats import pentanomial, score_interval, wilson_interval

try:
    from arena_sample_bots.strong import StrongPolicy
except ImportError:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sample_bots" / "python"))
    from arena_sample_bots.strong import StrongPolicy

Policy = Callable[[Any, Sequence[Any], random.Random], Any]

GIN_PRESETS: dict[str, GinRules] = PRESETS
MAX_DEALS = 200  # a safety net: games between these bots end in about ten deals


@dataclass
class Tally:
    """What the measured bot did over some games (or hands)."""

    games: int = 0
    score: float = 0.0  # wins, ties counted one half
    pair_scores: list[float] = field(default_factory=list)
    hands_won: int = 0
    hands_decided: int = 0
    times: list[float] = field(default_factory=list)  # seconds per decision
    differences: Counter[str] = field(default_factory=Counter)
    illegal: int = 0

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.score += other.score
        self.pair_scores.extend(other.pair_scores)
        self.hands_won += other.hands_won
        self.hands_decided += other.hands_decided
        self.times.extend(other.times)
        self.differences.update(other.differences)
        self.illegal += other.illegal


def _gin_policy(name: str, rules: GinRules, params: SearchParams) -> Policy:
    if name == "search":
        return SearchPolicy(params, gin_bonus=rules.gin_bonus, undercut_bonus=rules.undercut_bonus)
    if name == "simple":
        return SimpleGinPolicy()
    if name == "strong":
        strong: Policy = StrongPolicy()
        return strong
    raise ValueError(f"unknown Gin bot {name!r}")


# -- Gin: duplicate games ------------------------------------------------------------


def play_gin_game(
    rules: GinRules, seed: int, seat: int, bot: str, opponent: str, params: SearchParams
) -> Tally:
    """One game to the target: ``bot`` in ``seat``, ``opponent`` in the other."""
    game = GinGame(rules, seed, max_deals=MAX_DEALS)
    names = [opponent, opponent]
    names[seat] = bot
    policies = [_gin_policy(name, rules, params) for name in names]
    rngs = [random.Random(f"{seed}:{name}") for name in names]
    return _play_out(game, policies, rngs, seat, tie_score=0.5)


def _play_out(
    game: GinGame | RummyGame,
    policies: Sequence[Policy],
    rngs: Sequence[random.Random],
    seat: int,
    tie_score: float,
) -> Tally:
    """Play ``game`` to its end; what ``seat`` did (its decisions timed), a game nobody
    won scoring ``tie_score``."""
    tally = Tally(games=1)
    clock = time.perf_counter
    while not game.is_terminal():
        actor = game.current_seat()
        assert actor is not None
        observation = game.observation(actor)
        legal = game.legal_actions()
        start = clock()
        action = policies[actor](observation, legal, rngs[actor])
        if actor == seat:
            tally.times.append(clock() - start)
        game.apply(action, actor)
    for result in game.results:
        if result.winner is not None:
            tally.hands_decided += 1
            tally.hands_won += result.winner == seat
    summary = game.summary
    assert summary is not None
    tally.score = tie_score if summary.winner is None else float(summary.winner == seat)
    return tally


def play_gin_pair(task: tuple[str, int, str, str, SearchParams]) -> Tally:
    preset, seed, bot, opponent, params = task
    rules = GIN_PRESETS[preset]
    total = Tally()
    for seat in (0, 1):
        total.add(play_gin_game(rules, seed, seat, bot, opponent, params))
    total.pair_scores = [total.score]
    return total


# -- OpenSpiel: single hands on pyspiel's game ----------------------------------------


def to_openspiel(index: int) -> int:
    """Our card index (suits C, D, H, S) -> OpenSpiel's (suits s, c, d, h)."""
    return (index + 13) % 52


def from_openspiel(index: int) -> int:
    return (index + 39) % 52


_OS_DRAW_UPCARD, _OS_DRAW_STOCK, _OS_PASS, _OS_KNOCK = 52, 53, 54, 55
_OS_MELD = 56  # meld actions are 56 + meld id


class _OpenSpielHand:
    """One hand of OpenSpiel's game, its chance outcomes dealt from ``deck``, with
    this project's engine holding the mirror of the hand."""

    def __init__(self, pyspiel: Any, game: Any, utils: Any, deck: Sequence[Card]) -> None:
        self.pyspiel = pyspiel
        self.state = game.new_initial_state()
        self.utils = utils
        self.deck = list(deck)
        self.next_card = 0
        self.dealt: list[list[int]] = [[], []]
        self._deal()
        # OpenSpiel's player 0 is dealt first and acts first: our non-dealer.  Our
        # engine's seat s is OpenSpiel's player s; the dealer is seat 1.
        order: list[Card] = []
        for i in range(10):
            order += [Card(self.dealt[0][i]), Card(self.dealt[1][i])]
        upcard = Card(self.upcard)
        rest = [
            card
            for card in self.deck
            if card.index not in set(self.dealt[0] + self.dealt[1]) | {upcard.index}
        ]
        self.stock_order = rest  # drawn first to last
        # The wall: OpenSpiel lets the player after the discard that leaves two
        # cards in the stock knock with it, as this engine's last-discard variant.
        self.mirror = GinHand(
            GinRules(name="openspiel", last_discard=True), (*order, upcard, *rest), dealer=1
        )

    def _chance(self) -> int:
        while True:
            card = self.deck[self.next_card].index
            self.next_card += 1
            outcome = to_openspiel(card)
            if outcome in dict(self.state.chance_outcomes()):
                return outcome

    def _deal(self) -> None:
        state = self.state
        # OpenSpiel deals 10 cards to player 0, then 10 to player 1, then the upcard.
        while state.is_chance_node() and len(self.dealt[0]) + len(self.dealt[1]) < 20:
            outcome = self._chance()
            target = 0 if len(self.dealt[0]) < 10 else 1
            self.dealt[target].append(from_openspiel(outcome))
            state.apply_action(outcome)
        outcome = self._chance()
        self.upcard = from_openspiel(outcome)
        state.apply_action(outcome)
        self.drawn_from_stock = 0

    def chance_step(self) -> None:
        """A stock draw: OpenSpiel's chance node gets the mirror's next stock card."""
        card = self.stock_order[self.drawn_from_stock]
        self.drawn_from_stock += 1
        self.state.apply_action(to_openspiel(card.index))


def _meld_ids(utils: Any, meld: Meld) -> list[int]:
    """OpenSpiel's meld ids for one of this engine's melds: its runs are 3 to 5
    cards, so a longer run is laid as two (their outer ends take the same layoffs)."""
    cards = sorted(meld.cards, key=lambda card: card.rank)
    parts = [cards]
    if len(cards) > 5:
        cut = max(3, len(cards) - 5)
        parts = [cards[:cut], cards[cut:]]
    return [int(utils.meld_to_int(sorted(to_openspiel(c.index) for c in part))) for part in parts]


def _meld_actions(utils: Any, melds: Iterable[Meld]) -> list[int]:
    return [_OS_MELD + meld_id for meld in melds for meld_id in _meld_ids(utils, meld)]


def play_openspiel_hand(
    pyspiel: Any, game: Any, utils: Any, seed: int, seat: int, params: SearchParams
) -> Tally:
    """One hand: ``search`` as OpenSpiel's player ``seat`` against its simple bot."""
    tally = Tally(games=1)
    hand = _OpenSpielHand(pyspiel, game, utils, shuffled_deck(seed))
    state = hand.state
    mirror = hand.mirror
    simple = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1 - seat)
    policy = SearchPolicy(params)
    rng = random.Random(f"{seed}:search")
    opponent = _Opponent(mirror, 1 - seat, tally)
    queue: list[int] = []  # OpenSpiel actions still to play for search's last decision
    layoffs: set[int] = set()  # search's layoffs still to play, in an order OpenSpiel takes
    clock = time.perf_counter
    while not state.is_terminal():
        if state.is_chance_node():
            hand.chance_step()
            continue
        phase = _phase(state)
        legal = state.legal_actions()
        if state.current_player() != seat:
            step = simple.step(state)
            opponent.see(phase, step)
            state.apply_action(step)
            continue
        if phase == "FirstUpcard" and legal == [_OS_DRAW_STOCK]:
            state.apply_action(_OS_DRAW_STOCK)  # both passed: this engine draws at once
            continue
        if layoffs:
            fits = sorted(card for card in layoffs if card in legal)
            if fits:
                layoffs.discard(fits[0])
                state.apply_action(fits[0])
                continue
            tally.illegal += len(layoffs)
            layoffs.clear()
        if not queue:
            if mirror.is_terminal() and phase == "Layoff":
                # Against gin this engine ends the hand at once; OpenSpiel still has
                # the defender lay down his melds (the same least deadwood).
                kept = mirror.hand_of(seat)
                queue = _meld_actions(utils, best_arrangement(kept).melds)
                queue.append(_OS_PASS)
            elif mirror.is_terminal() or mirror.current_seat() != seat:
                tally.differences["OpenSpiel asks for an action where this engine has none"] += 1
                state.apply_action(_OS_PASS if _OS_PASS in legal else legal[0])
                continue
        if not queue:
            observation = mirror.observation(seat)
            start = clock()
            action = policy(observation, mirror.legal_actions(), rng)
            tally.times.append(clock() - start)
            if isinstance(action, Knock) and phase == "Discard" and _OS_KNOCK not in legal:
                # OpenSpiel's 11-card deadwood can overstate the hand's: no knock there.
                tally.differences["a knock this engine allows and OpenSpiel does not"] += 1
                action = next(
                    a
                    for a in mirror.legal_actions()
                    if isinstance(a, Discard) and a.card is action.card
                )
            mirror.apply(action, seat)
            if isinstance(action, Defend):
                layoffs = {to_openspiel(layoff.card.index) for layoff in action.layoffs}
                queue = [_OS_PASS, *_meld_actions(utils, action.melds)]
                queue.append(_OS_PASS)
                continue
            queue = _to_openspiel(action, phase, utils)
        step = queue.pop(0)
        if step not in legal:
            tally.illegal += 1
            tally.differences[f"a mapped action illegal in OpenSpiel ({phase})"] += 1
            step = _OS_PASS if _OS_PASS in legal else legal[0]
            queue.clear()
        state.apply_action(step)
    returns = state.returns()
    if returns[seat] != returns[1 - seat]:
        tally.hands_decided = 1
        tally.hands_won = int(returns[seat] > returns[1 - seat])
    tally.score = tally.hands_won
    _compare_results(mirror, returns, tally)
    return tally


def _phase(state: Any) -> str:
    for line in str(state).splitlines():
        if line.startswith("Phase:"):
            return line.split(":", 1)[1].strip()
    return ""


def _to_openspiel(action: Action, phase: str, utils: Any) -> list[int]:
    """OpenSpiel's actions for one of this engine's (a knock is several)."""
    if action is DRAW_DISCARD:
        return [_OS_KNOCK] if phase == "Wall" else [_OS_DRAW_UPCARD]
    if action is DRAW_STOCK:
        return [_OS_DRAW_STOCK]
    if action is PASS:
        return [_OS_PASS]
    if isinstance(action, Knock):
        melds = _meld_actions(utils, action.melds)
        # After the wall's knock (the last discard taken) OpenSpiel is already knocking.
        start = [] if phase == "Knock" else [_OS_KNOCK]
        return [*start, to_openspiel(action.card.index), *melds, _OS_PASS]
    if isinstance(action, Discard):
        return [to_openspiel(action.card.index)]
    raise AssertionError(f"unmapped action {action}")


class _Opponent:
    """Plays OpenSpiel's simple bot's actions on the mirror, phase by phase."""

    def __init__(self, mirror: GinHand, seat: int, tally: Tally) -> None:
        self.mirror = mirror
        self.seat = seat
        self.tally = tally
        self.knock_card: int | None = None
        self.melds: list[Meld] = []
        self.laid_off: set[int] = set()
        self.utils_melds: dict[int, Meld] = {}

    def _apply(self, action: Action) -> None:
        try:
            self.mirror.apply(action, self.seat)
        except ValueError as error:
            self.tally.differences[f"this engine refuses the simple bot's move: {error}"] += 1

    def see(self, phase: str, step: int) -> None:
        mirror = self.mirror
        if mirror.is_terminal():
            return
        if phase in ("FirstUpcard", "Draw"):
            if step == _OS_DRAW_UPCARD:
                self._apply(DRAW_DISCARD)
            elif step == _OS_DRAW_STOCK and phase == "Draw":
                self._apply(DRAW_STOCK)
            elif step == _OS_PASS:
                self._apply(PASS)
        elif phase == "Discard" and step < 52:
            self._apply(Discard(Card(from_openspiel(step))))
        elif phase == "Wall":
            self._apply(DRAW_DISCARD if step == _OS_KNOCK else PASS)
        elif phase == "Knock":
            if step < 52:
                self.knock_card = from_openspiel(step)
            elif step >= _OS_MELD:
                self.melds.append(_meld_of(step - _OS_MELD))
            elif step == _OS_PASS and self.knock_card is not None:
                self._apply(Knock(Card(self.knock_card), tuple(self.melds)))
        elif phase == "Layoff":
            if step < 52:
                self.laid_off.add(from_openspiel(step))
            elif step == _OS_PASS and mirror.phase is Phase.DEFEND:
                defences = [a for a in mirror.legal_actions() if isinstance(a, Defend)]
                same = [
                    d
                    for d in defences
                    if {layoff.card.index for layoff in d.layoffs} == self.laid_off
                ]
                if not same:
                    self.tally.differences["the simple bot's layoffs are not this engine's"] += 1
                self._apply((same or defences)[0])


_MELDS_BY_ID: dict[int, Meld] = {}


def _meld_of(meld_id: int) -> Meld:
    meld = _MELDS_BY_ID.get(meld_id)
    if meld is None:
        import pyspiel

        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
        cards = CardSet.of(Card(from_openspiel(card)) for card in utils.int_to_meld[meld_id])
        meld = _MELDS_BY_ID[meld_id] = Meld.of(cards)
    return meld


def _compare_results(mirror: GinHand, returns: Sequence[float], tally: Tally) -> None:
    """Count the hands that end differently in the two engines, by reason."""
    result = mirror.result
    if result is None:
        tally.differences["the hand ends in OpenSpiel, not in this engine"] += 1
        return
    ours = result.scores
    if (float(ours[0] - ours[1]), float(ours[1] - ours[0])) == tuple(returns):
        return
    kind = result.termination.value
    if kind == "undercut" and returns[0] == returns[1] == 0:
        tally.differences["knock tie: OpenSpiel scores 0-0, the seeds an undercut"] += 1
    elif kind == "draw":
        tally.differences["stock end: the engines end the hand differently"] += 1
    elif kind == "gin":
        tally.differences[
            "gin: OpenSpiel counts the defender's deadwood from the melds he lays"
        ] += 1
    else:
        tally.differences[f"another score difference ({kind})"] += 1


def play_openspiel_pair(task: tuple[int, SearchParams]) -> Tally:
    import pyspiel

    seed, params = task
    game = pyspiel.load_game("gin_rummy", {"knock_card": 10, "gin_bonus": 25, "undercut_bonus": 25})
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    total = Tally()
    for seat in (0, 1):
        total.add(play_openspiel_hand(pyspiel, game, utils, seed, seat, params))
    return total


# -- Basic Rummy: one against several --------------------------------------------------


def play_rummy_deal(task: tuple[int, int]) -> Tally:
    """One deal seed, ``strong-rummy`` in each seat in turn against ``greedy-rummy``."""
    seed, seats = task
    rules = RUMMY_PRESETS["standard"]
    total = Tally()
    for me in range(seats):
        game = RummyGame(rules, seed, seats, max_deals=MAX_DEALS)
        policies: list[Policy] = [
            StrongRummyPolicy() if seat == me else greedy_rummy for seat in range(seats)
        ]
        rngs = [random.Random(f"{seed}:{seat}") for seat in range(seats)]
        total.add(_play_out(game, policies, rngs, me, tie_score=0.0))
    return total


# -- running and printing --------------------------------------------------------------


def _run(fn: Callable[[Any], Tally], tasks: Iterable[Any], workers: int) -> tuple[Tally, float]:
    total = Tally()
    started = time.perf_counter()
    task_list = list(tasks)
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for result in pool.imap_unordered(fn, task_list, chunksize=1):
                total.add(result)
    else:
        for task in task_list:
            total.add(fn(task))
    return total, time.perf_counter() - started


def _percent(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f}"


def _ms(times: list[float], q: float) -> str:
    if not times:
        return "n/a"
    ordered = sorted(times)
    return f"{1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]:.1f}"


def _row(bot: str, opponent: str, preset: str, tally: Tally, paired: bool) -> list[str]:
    if paired:
        interval = score_interval(pentanomial(tally.pair_scores))
        rate, low, high = interval.score, interval.low, interval.high
    else:
        trials = tally.games
        rate = tally.score / trials if trials else math.nan
        low, high = wilson_interval(tally.score, trials) if trials else (math.nan, math.nan)
    hands = (
        f"{_percent(tally.hands_won / tally.hands_decided)} of {tally.hands_decided}"
        if tally.hands_decided
        else "n/a"
    )
    return [
        bot,
        opponent,
        preset,
        str(tally.games),
        _percent(rate),
        f"{_percent(low)}-{_percent(high)}",
        hands,
        _ms(tally.times, 0.5),
        _ms(tally.times, 0.99),
        _ms(tally.times, 1.0),
    ]


def _progress(row: Sequence[str], seconds: float) -> None:
    """A row as soon as it is measured (on stderr: the table comes at the end)."""
    print(f"  ... {' | '.join(row)} ({seconds:.0f} s)", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="Gin games per row (2 a pair)")
    parser.add_argument("--hands", type=int, default=2000, help="OpenSpiel hands (2 a deck)")
    parser.add_argument("--rummy-games", type=int, default=400, help="Rummy games per row")
    parser.add_argument(
        "--quick", action="store_true", help="40 Gin games, 100 hands, 48 Rummy games a row"
    )
    parser.add_argument("--seed", type=int, default=1, help="first game seed")
    parser.add_argument("--workers", type=int, default=2, help="processes (1: no pool)")
    parser.add_argument("--parts", default="gin,openspiel,rummy")
    parser.add_argument("--opponents", default="simple,strong")
    parser.add_argument("--presets", default="standard,classic,oklahoma")
    parser.add_argument(
        "--bot", default="search", help="the Gin bot measured (search, strong, simple)"
    )
    parser.add_argument("--playouts", type=int, default=SearchParams().playouts)
    parser.add_argument(
        "--openspiel-objective",
        choices=[member.value for member in Objective],
        default=Objective.HAND.value,
        help="search's objective on OpenSpiel's single hands (default hand: the metric "
        "is hands won)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.hands, args.rummy_games = 40, 100, 48
    params = SearchParams(playouts=args.playouts)
    parts = {part.strip() for part in args.parts.split(",") if part.strip()}
    print(
        f"# Reference bots (Python {platform.python_version()} on {platform.machine()}, "
        f"{args.workers} worker(s), first seed {args.seed}, search playouts {params.playouts}; "
        f"objective on OpenSpiel's hands: {args.openspiel_objective})"
    )
    print()
    rows: list[list[str]] = []
    notes: list[str] = []
    if "gin" in parts:
        pairs = max(1, args.games // 2)
        for preset in [p.strip() for p in args.presets.split(",") if p.strip()]:
            for opponent in [o.strip() for o in args.opponents.split(",") if o.strip()]:
                tasks = [(preset, args.seed + i, args.bot, opponent, params) for i in range(pairs)]
                tally, seconds = _run(play_gin_pair, tasks, args.workers)
                rows.append(_row(args.bot, opponent, preset, tally, paired=True))
                _progress(rows[-1], seconds)
    if "openspiel" in parts:
        try:
            import pyspiel  # noqa: F401
        except ImportError:
            notes.append("OpenSpiel is not installed: its row is left out.")
        else:
            decks = max(1, args.hands // 2)
            # One hand is the whole match there: search aims at winning it.
            hand_params = replace(params, objective=Objective(args.openspiel_objective))
            tasks2 = [(args.seed + i, hand_params) for i in range(decks)]
            tally, seconds = _run(play_openspiel_pair, tasks2, args.workers)
            decided = Tally(games=tally.hands_decided, score=tally.hands_won, times=tally.times)
            decided.hands_won, decided.hands_decided = tally.hands_won, tally.hands_decided
            row = _row("search", "OpenSpiel simple", "openspiel", decided, paired=False)
            row[3] = f"{tally.games} hands"
            rows.append(row)
            notes.append(
                f"OpenSpiel: win % is of decided hands ({tally.hands_decided} of {tally.games}); "
                f"mapped actions illegal in OpenSpiel: {tally.illegal}. Published anchor: a PPO "
                "agent won 81% of single hands against this bot."
            )
            for reason, count in tally.differences.most_common():
                notes.append(f"  rule difference: {reason}: {count} hands")
            _progress(rows[-1], seconds)
    if "rummy" in parts:
        for seats in (4, 6):
            deals = max(1, args.rummy_games // seats)
            tasks3 = [(args.seed + i, seats) for i in range(deals)]
            tally, seconds = _run(play_rummy_deal, tasks3, args.workers)
            label = f"{seats - 1} x greedy-rummy"
            rows.append(_row("strong-rummy", label, f"rummy {seats} seats", tally, paired=False))
            notes.append(f"Rummy {seats} seats: the fair share is {100 / seats:.1f}%.")
            _progress(rows[-1], seconds)
    print_table(
        (
            "bot",
            "opponent",
            "preset",
            "games",
            "win %",
            "95% interval",
            "hands won % (decided)",
            "ms median",
            "ms p99",
            "ms max",
        ),
        rows,
    )
    print()
    for note in notes:
        print(note)
    print(
        "Gin intervals come from the duplicate pairs (pentanomial); the others are Wilson "
        "intervals over games (hands for OpenSpiel)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
