"""``arena match A B``: play a match between two bots and report the result."""

from __future__ import annotations

import argparse
import json
import math
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
from arena.cli.match_report import GameLines, elo_text, plural
from arena.hosting.host import probe_host
from arena.hosting.launcher import LaunchSettings, UnstartableBotError
from arena.hosting.sandbox import SandboxLevel
from arena.plugins import MatchContext
from arena.privatefiles import private_folder
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.results import MatchResult
from arena.referee.seeds import seed_or_fresh
from arena.referee.settings import FaultPolicy, SettingsError
from arena.replays.seat_view import seat_labels
from arena.stats import elo_summary

__all__ = ["register"]


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "match", help="play a match between bots (2 for Gin, 2-6 for Rummy)"
    )
    parser.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="bot name (registered, or a manifest's in --manifests), manifest file or bot "
        "folder, grpc://HOST:PORT or unix:PATH, by seat",
    )
    parser.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    parser.add_argument(
        "--seed",
        type=int,
        help="deal seed: the same seed gives the same deals (default: a fresh one, printed)",
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
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--replays", type=Path, help="write the replay (and bots' stderr logs) into this folder"
    )
    parser.add_argument(
        "--in-process", action="store_true", help="run Python bots inside the referee (debugging)"
    )
    parser.add_argument("--verbose", action="store_true", help="print every decision")
    add_sandbox_option(parser)
    parser.add_argument(
        "--faults", default="forfeit", help="fault policy: forfeit or random[:K] (default forfeit)"
    )
    add_time_control_options(parser)
    add_manifest_option(parser)
    add_plugin_options(parser)
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise SettingsError(f"--games must be at least 1, got {args.games}")
    seed = seed_or_fresh(args.seed)
    plugins = plugins_from_args(args)
    spec = game_spec(plugins, args.game, args.rules)
    if not spec.min_seats <= len(args.bots) <= spec.max_seats:
        raise SettingsError(
            f"{spec.id} is for {_seat_range(spec.min_seats, spec.max_seats)}, got {len(args.bots)}"
        )
    references = resolve_bots(args, plugins, args.bots)
    time_control = time_control_from_args(args)
    policy = FaultPolicy.parse(args.faults)
    config = MatchConfig(
        spec,
        games=args.games,
        seed=seed,
        hands_only=args.hands,
        time_control=time_control,
        fault_policy=policy,
    )
    run_dir = private_folder(args.replays / config.match_id) if args.replays else None
    settings = LaunchSettings(
        sandbox=args.sandbox,
        run_dir=run_dir,
        startup_seconds=args.startup_ms / 1000,
        in_process=args.in_process,
    )
    with ExitStack() as stack:
        hosted = host_for_game(
            references, settings, plugins, args.plugin, not args.no_plugin_autoload, spec.id
        )
        for bot in hosted:
            stack.callback(bot.close)
        unstartable = UnstartableBotError.of(hosted)
        if unstartable is not None:  # nothing to play: the user named a program that cannot run
            raise unstartable
        seats = [
            Seat.of(bot, name)
            for bot, name in zip(hosted, seat_labels([bot.name for bot in hosted]), strict=True)
        ]
        replay_path = args.replays / f"{config.match_id}.jsonl" if args.replays else None
        context = MatchContext(
            config.match_id, spec.id, [seat.name for seat in seats], replay_path, args.verbose
        )
        observers = plugins.observers(context)
        if not args.json:
            print(_banner(args, spec.id, seed, context.players), flush=True)
            observers = [*observers, GameLines(context.players)]
        result = play_match(config, seats, observers)
        result.replay_path = str(replay_path) if replay_path else None
    if args.json:
        print(json.dumps(_with_elo(result.to_json(), result)))
    else:
        _print_table(result)
    return 0


def _seat_range(low: int, high: int) -> str:
    """``2 bots``, ``2-6 bots``."""
    return plural(high, "bot") if low == high else f"{low}-{high} bots"


def _banner(args: argparse.Namespace, game_id: str, seed: int, names: list[str]) -> str:
    """The line before the first game: what is played, and how long it may take."""
    if args.hands:
        return f"Playing {plural(args.games, 'single hand')} of {game_id}, seed {seed}: {' vs '.join(names)}"
    until = "to the target score" if game_id.startswith("gin-rummy/") else "until it is decided"
    return (
        f"Playing {plural(args.games, 'game')} of {game_id}, seed {seed}: {' vs '.join(names)}; "
        f"each game runs over several hands {until} (--hands: single hands)"
    )


def _with_elo(summary: dict[str, Any], result: MatchResult) -> dict[str, Any]:
    """Two bots: the first one's Elo difference, its 95% interval and LOS (null if undefined)."""
    if len(result.seats) == 2 and result.games:
        elo = elo_summary(result.wins(0), result.losses(0), result.draws(0))
        summary["elo"] = {
            name: (value if math.isfinite(value) else None)
            for name, value in (
                ("difference", elo.elo),
                ("low95", elo.low),
                ("high95", elo.high),
                ("los", elo.los),
            )
        }
    return summary


def _print_table(result: MatchResult) -> None:
    print()
    print(
        f"{result.game_id}, {plural(len(result.games), 'game')}, seed {result.seed} (--seed {result.seed} plays these deals again), faults: {result.fault_policy}"
    )
    header = f"{'bot':<16}{'wins':>6}{'losses':>7}{'draws':>6}{'points':>8}{'pts/game':>9}  {'win rate (95% CI)':<22}{'faults':>7}  {'ms/decision (mean, max)':<24} sandbox"
    print(header)
    print("-" * len(header))
    for seat in range(len(result.seats)):
        s = result.seat_summary(seat)
        low, high = s.win_rate_ci95
        rate = f"{s.win_rate:.1%} ({low:.1%}-{high:.1%})"
        timing = f"{s.timing.mean_ms:.2f}, {s.timing.max_ms:.1f}"
        print(
            f"{s.name:<16}{s.wins:>6}{s.losses:>7}{s.draws:>6}{s.points:>8}{s.avg_points:>9.1f}  "
            f"{rate:<22}{s.faults:>7}  {timing:<24} {s.sandbox}"
        )
    for record in result.seats:
        for fault in record.faults:
            when = f"game {fault.game + 1}" if fault.game >= 0 else "before the first game"
            print(
                f"fault: {record.name} {when}: {fault.status.value}: {fault.reason} -> {fault.consequence}"
            )
    elo = elo_text(result)
    if elo:
        print(elo)
    if result.replay_path:
        print(f"replay: {result.replay_path}")
    host = probe_host()
    for level in sorted({record.sandbox for record in result.seats}):
        if level in {known.value for known in SandboxLevel}:
            print(host.summary(SandboxLevel(level)))
        warning = host.warning(level)
        if warning:
            print(f"warning: {warning}")
