"""``arena sprt NEW OLD``: is NEW better than OLD?  A sequential test on duplicate pairs.

Pair *i* is two one-game matches on the same deals: NEW in seat 0, then NEW in
seat 1.  Its seed is derived one-way from the run's seed (``--seed``, or a fresh one,
printed), so the seed revealed to the bots at the end of a pair tells nothing of
the next; the pair's first match keeps its seed to itself, since the second deals
the same cards.  After each pair the log-likelihood ratio of H1 (NEW
is better by ``--elo1``) against H0 (by ``--elo0`` only) is updated; the test
stops when it crosses a bound, or after ``--max-pairs``.  The maths, and which Elo
it is, are in ``arena.stats``.  The bots are started once and play every
pair over the same connections.

Exit status: 0 when the test decides (H0 or H1: read which in the output),
3 when ``--max-pairs`` is reached undecided, 1 when it cannot go on (a bot did not
start, crashed or broke the protocol), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from arena.cli.bot_options import (
    add_manifest_option,
    add_plugin_options,
    add_sandbox_option,
    add_time_control_options,
    host_for_game,
    plugins_from_args,
    resolve_bots,
    time_control_from_args,
)
from arena.cli.games import game_spec
from arena.cli.match_report import plural
from arena.games.registry import UnknownGameError
from arena.hosting.launcher import HostedBot, LaunchSettings
from arena.plugins import MatchContext
from arena.privatefiles import private_folder
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.results import GameRecord, MatchResult
from arena.referee.seeds import derived_seed, seed_or_fresh
from arena.referee.settings import FaultPolicy, SettingsError
from arena.stats import EloEstimate, SequentialTest, Verdict

__all__ = ["EXIT_ABORTED", "EXIT_DECIDED", "EXIT_INCONCLUSIVE", "register"]

EXIT_DECIDED = 0
EXIT_ABORTED = 1
EXIT_INCONCLUSIVE = 3

# A seat that faulted like this cannot play on: the test stops instead of scoring
# every remaining pair as a forfeit.


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "sprt",
        help="sequential test: is a new bot version better than an old one?",
        description=(
            "Plays duplicate pairs (the same deals twice, seats swapped) until a sequential "
            "probability ratio test accepts H1 (NEW is better by --elo1 Elo) or H0 (by --elo0 "
            "only). Plain logistic Elo, pentanomial (pair-score) model as in Fishtest. Exit "
            "status: 0 decided, 3 undecided at --max-pairs, 1 a bot could not play, 2 usage."
        ),
    )
    parser.add_argument("new", metavar="NEW", help="the new bot: name, manifest or address")
    parser.add_argument("old", metavar="OLD", help="the old bot to compare against")
    parser.add_argument(
        "--elo0", type=float, required=True, help="H0: NEW is better by this many Elo (or less)"
    )
    parser.add_argument(
        "--elo1", type=float, required=True, help="H1: NEW is better by this many Elo"
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="chance of accepting H1 when H0 holds (0.05)"
    )
    parser.add_argument(
        "--beta", type=float, default=0.05, help="chance of accepting H0 when H1 holds (0.05)"
    )
    parser.add_argument(
        "--max-pairs", type=int, default=1000, help="stop undecided after this many pairs (1000)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="the run's seed: the same seed plays the same pairs (default: a fresh one, printed)",
    )
    parser.add_argument(
        "--rules", default="standard", help="rule set of the game (default standard)"
    )
    parser.add_argument(
        "--game",
        default="gin-rummy",
        help="game family: gin-rummy (default) or rummy; or a game id, e.g. gin-rummy/oklahoma",
    )
    parser.add_argument("--hands", action="store_true", help="each game is a single hand")
    parser.add_argument(
        "--every", type=int, default=10, metavar="K", help="print a progress line every K pairs"
    )
    parser.add_argument("--json", action="store_true", help="no progress; one JSON object")
    parser.add_argument(
        "--replays", type=Path, help="write every match's replay (and bots' logs) here"
    )
    parser.add_argument(
        "--in-process", action="store_true", help="run Python bots inside the referee (debugging)"
    )
    add_sandbox_option(parser)
    parser.add_argument(
        "--faults", default="forfeit", help="fault policy: forfeit or random[:K] (default forfeit)"
    )
    add_time_control_options(parser)
    add_manifest_option(parser)
    add_plugin_options(parser)
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    test = SequentialTest(args.elo0, args.elo1, args.alpha, args.beta)  # checks them
    if args.max_pairs < 1:
        raise SettingsError(f"--max-pairs must be at least 1, got {args.max_pairs}")
    args.seed = seed_or_fresh(args.seed)
    if args.every < 1:
        raise SettingsError(f"--every must be at least 1, got {args.every}")
    plugins = plugins_from_args(args)
    try:
        spec = game_spec(plugins, args.game, args.rules)
    except UnknownGameError as error:  # a LookupError: made a usage error (exit 2)
        raise SettingsError(str(error)) from None
    if not spec.min_seats <= 2 <= spec.max_seats:
        raise SettingsError(f"{spec.id} is for {_players(spec.min_seats, spec.max_seats)}, not 2")
    references = resolve_bots(args, plugins, [args.new, args.old])
    time_control = time_control_from_args(args)
    policy = FaultPolicy.parse(args.faults)
    settings = LaunchSettings(
        sandbox=args.sandbox,
        run_dir=private_folder(args.replays / "bots") if args.replays else None,
        startup_seconds=args.startup_ms / 1000,
        in_process=args.in_process,
    )
    started = time.perf_counter()
    faults = [0, 0]  # NEW's, OLD's
    aborted = ""
    with ExitStack() as stack:
        hosted = host_for_game(
            references, settings, plugins, args.plugin, not args.no_plugin_autoload, spec.id
        )
        for bot in hosted:
            stack.callback(bot.close)
        names = [bot.name for bot in hosted]
        for role, bot in zip(("NEW", "OLD"), hosted, strict=True):
            if bot.start_fault is not None:
                aborted = f"{role} {bot.name} did not start: {bot.start_fault.reason}"
        if not args.json and not aborted:
            print(_banner(args, test, names), flush=True)
        while not aborted and test.verdict is Verdict.CONTINUE and test.pairs < args.max_pairs:
            seed = pair_seed(args.seed, test.pairs)
            pair_score = 0.0
            for new_seat in (0, 1):
                order = hosted if new_seat == 0 else hosted[::-1]
                config = MatchConfig(
                    spec,
                    games=1,
                    seed=seed,
                    hands_only=args.hands,
                    time_control=time_control,
                    fault_policy=policy,
                    # Not the seed: MatchStart tells the bots the match id.
                    match_id=f"sprt-{test.pairs}-new{new_seat}",
                    reveal_seed=new_seat == 1,  # after the pair's second match only
                )
                replay = args.replays / f"{config.match_id}.jsonl" if args.replays else None
                context = MatchContext(
                    config.match_id, spec.id, [bot.name for bot in order], replay
                )
                result = play_match(config, _seats(order), plugins.observers(context))
                new_at = [new_seat, 1 - new_seat]  # NEW's and OLD's seat in this match
                for which in (0, 1):
                    record = result.seats[new_at[which]]
                    faults[which] += len(record.faults)
                    if record.status.fatal and not aborted:
                        last = record.faults[-1]
                        aborted = f"{('NEW', 'OLD')[which]} {names[which]}: {last.status.value}: {last.reason} (pair {test.pairs}, seed {seed})"
                pair_score += _new_score(result, new_seat)
                if aborted:
                    break
            if aborted:
                break  # the unfinished pair is not counted
            test.add(pair_score)
            if not args.json and (
                test.pairs % args.every == 0 or test.verdict is not Verdict.CONTINUE
            ):
                print(_progress(test, args.max_pairs), flush=True)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps(_summary(args, test, names, faults, aborted, elapsed)))
    else:
        _report(args, test, names, faults, aborted, elapsed)
    if aborted:
        return EXIT_ABORTED
    return EXIT_INCONCLUSIVE if test.verdict is Verdict.CONTINUE else EXIT_DECIDED


def _players(low: int, high: int) -> str:
    return plural(high, "player") if low == high else f"{low}-{high} players"


def _seats(bots: list[HostedBot]) -> list[Seat]:
    return [Seat.of(bot) for bot in bots]


def _new_score(result: MatchResult, new_seat: int) -> float:
    """NEW's score in the match's one game: 1 won, 1/2 drawn, 0 lost."""
    game: GameRecord = result.games[0]
    if game.winner is None:
        return 0.5
    return 1.0 if game.winner == new_seat else 0.0


def _banner(args: argparse.Namespace, test: SequentialTest, names: list[str]) -> str:
    """The line before the first pair: what is tested, and how long it may run."""
    return (
        f"SPRT {names[0]} vs {names[1]}: H0 elo {args.elo0:g}, H1 elo {args.elo1:g}, "
        f"LLR bounds [{test.lower:+.3f}, {test.upper:+.3f}]. It plays pairs until a bound is "
        f"crossed, which can take hundreds of pairs or thousands when elo1 - elo0 is small; "
        f"--max-pairs {args.max_pairs} stops it undecided ({2 * args.max_pairs} games)."
    )


def pairs_left(test: SequentialTest) -> int | None:
    """A rough guess at the pairs still to play: the LLR has moved ``llr / pairs`` a
    pair so far; at that pace, how many more to reach the bound it heads for.  None
    while it has not moved."""
    if test.pairs == 0 or test.llr == 0.0:
        return None
    pace = test.llr / test.pairs
    distance = (test.upper if pace > 0 else test.lower) - test.llr
    return max(0, math.ceil(distance / pace))


def _progress(test: SequentialTest, max_pairs: int) -> str:
    games = 2 * test.pairs
    counts = " ".join(str(count) for count in test.counts)
    room = max_pairs - test.pairs
    guess = pairs_left(test)
    if test.verdict is not Verdict.CONTINUE:
        left = "decided"
    elif room == 0:
        left = "--max-pairs reached"
    elif guess is None:
        left = f"pairs left: unknown (at most {room}, --max-pairs)"
    elif guess > room:
        left = f"~{guess} pairs to a bound at this pace; --max-pairs stops it in {room}"
    else:
        left = f"~{guess} pairs left at this pace"
    return (
        f"pairs {test.pairs:>5}  score {test.score:g}/{games} ({test.score / games:.1%})  "
        f"pentanomial [{counts}]  LLR {test.llr:+.3f}  bounds [{test.lower:+.3f}, {test.upper:+.3f}]  "
        f"{left}"
    )


def _elo_text(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _verdict_text(args: argparse.Namespace, test: SequentialTest, names: list[str]) -> str:
    new, old = names
    if test.verdict is Verdict.H1:
        return f"H1 accepted: {new} is better than {old} by {args.elo1:g} Elo (LLR {test.llr:.3f} >= {test.upper:.3f})"
    if test.verdict is Verdict.H0:
        return f"H0 accepted: {new} is not better than {old} by {args.elo1:g} Elo, by {args.elo0:g} at most (LLR {test.llr:.3f} <= {test.lower:.3f})"
    return f"inconclusive: no decision after {test.pairs} pairs (--max-pairs {args.max_pairs}); LLR {test.llr:.3f} within [{test.lower:.3f}, {test.upper:.3f}]"


def _report(
    args: argparse.Namespace,
    test: SequentialTest,
    names: list[str],
    faults: list[int],
    aborted: str,
    elapsed: float,
) -> None:
    if aborted:
        print(f"stopped: {aborted}")
    else:
        print(_verdict_text(args, test, names))
    if test.pairs:
        games = 2 * test.pairs
        estimate: EloEstimate = test.estimate()
        interval = f"95% CI {_elo_text(estimate.low)} .. {_elo_text(estimate.high)}"
        if math.isnan(estimate.low):
            interval = "no interval: every pair scored the same"
        print(
            f"Elo {names[0]} - {names[1]}: {_elo_text(estimate.elo)} ({interval}); "
            f"score {test.score:g}/{games} ({test.score / games:.1%}), "
            f"pentanomial [{' '.join(str(count) for count in test.counts)}]"
        )
    print(
        f"{test.pairs} pairs, {2 * test.pairs} games, seed {args.seed} (--seed {args.seed} plays these pairs again), "
        f"{elapsed:.1f} s; elo0 {args.elo0:g}, elo1 {args.elo1:g}, alpha {args.alpha:g}, beta {args.beta:g}; "
        f"faults: {names[0]} {faults[0]}, {names[1]} {faults[1]}"
    )


def pair_seed(run_seed: int, pair: int) -> int:
    """The deal seed of pair ``pair`` (from 0) of a run seeded ``run_seed``."""
    return derived_seed(run_seed.to_bytes(8, "big"), f"sprt-pair:{pair}")


def _summary(
    args: argparse.Namespace,
    test: SequentialTest,
    names: list[str],
    faults: list[int],
    aborted: str,
    elapsed: float,
) -> dict[str, Any]:
    if aborted:
        verdict = "aborted"
    else:
        verdict = "inconclusive" if test.verdict is Verdict.CONTINUE else test.verdict.value
    estimate = test.estimate() if test.pairs else None
    return {
        "verdict": verdict,
        "aborted": aborted or None,
        "new": names[0],
        "old": names[1],
        "elo0": args.elo0,
        "elo1": args.elo1,
        "alpha": args.alpha,
        "beta": args.beta,
        "bounds": [test.lower, test.upper],
        "llr": test.llr,
        "pairs": test.pairs,
        "games": 2 * test.pairs,
        "score": test.score,
        "pentanomial": test.counts,
        # Infinite or undefined Elo values are null (JSON has no infinity).
        "elo": None if estimate is None else _finite(estimate.elo),
        "elo_ci95": None if estimate is None else [_finite(estimate.low), _finite(estimate.high)],
        "seed": args.seed,
        "faults": {"new": faults[0], "old": faults[1]},
        "seconds": round(elapsed, 3),
    }
