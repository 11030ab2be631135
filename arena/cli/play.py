"""``arena play BOT``: play Gin Rummy against a bot in the terminal.

Moves are read from standard input (one a line), so a session can be scripted.
Exit status: 0 when the match was played to its end, 1 when the bot failed (it
did not start, or faulted: the game is yours by forfeit), 2 for bad arguments,
3 when you left (end of input, ``quit``, Ctrl-C): the game is forfeited to the bot.
Either way the replay is written, and its path printed last.
"""

from __future__ import annotations

import argparse
import sys
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
from arena.cli.human import (
    HumanConnection,
    HumanPlayer,
    SeatClock,
    human_time_control,
)
from arena.cli.match_report import plural
from arena.hosting.launcher import LaunchSettings
from arena.plugins import MatchContext
from arena.privatefiles import private_folder
from arena.referee.match import MatchConfig, Seat, play_match
from arena.referee.seeds import seed_or_fresh
from arena.referee.settings import SettingsError

__all__ = ["register"]

EXIT_BOT_FAILED = 1
EXIT_LEFT = 3


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "play",
        help="play Gin Rummy against a bot in the terminal",
        description=(
            "Play Gin Rummy against a bot: each decision shows your hand, melds and deadwood, "
            "the discard pile and the moves, numbered; type a number or a move's text. "
            "Moves are read from standard input. Exit status: 0 played to the end, 1 the bot "
            "failed, 2 bad arguments, 3 you left (end of input, quit, Ctrl-C)."
        ),
    )
    parser.add_argument(
        "bot",
        metavar="BOT",
        help="bot name (registered, or a manifest's in --manifests), manifest file or bot "
        "folder, grpc://HOST:PORT or unix:PATH",
    )
    parser.add_argument("--rules", default="standard", help="Gin Rummy rule set (default standard)")
    parser.add_argument("--seed", type=int, help="deal seed (default: a fresh one, printed)")
    parser.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    parser.add_argument(
        "--hands", action="store_true", help="each game is a single hand (as in arena match)"
    )
    parser.add_argument("--seat", type=int, default=0, choices=[0, 1], help="your seat")
    parser.add_argument("--name", default="human", help="your name in the replay")
    parser.add_argument(
        "--replays",
        type=Path,
        default=Path("replays"),
        help="folder for the replay and the bot's stderr log (default ./replays)",
    )
    add_sandbox_option(parser)
    add_time_control_options(parser, whose="the bot's ")  # you have no clock
    add_manifest_option(parser)
    add_plugin_options(parser)
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise SettingsError(f"--games must be at least 1, got {args.games}")
    seed = seed_or_fresh(args.seed)
    bot_clock = time_control_from_args(args)
    plugins = plugins_from_args(args)
    spec = plugins.game(f"gin-rummy/{args.rules}")
    (reference,) = resolve_bots(args, plugins, [args.bot])
    config = MatchConfig(
        spec,
        games=args.games,
        seed=seed,
        hands_only=args.hands,
        time_control=human_time_control(args.startup_ms),
    )
    settings = LaunchSettings(
        sandbox=args.sandbox,
        run_dir=private_folder(args.replays / config.match_id),  # the bot's logs
        startup_seconds=args.startup_ms / 1000,
    )
    human = HumanConnection(HumanPlayer(sys.stdin, sys.stdout))
    replay_path = args.replays / f"{config.match_id}.jsonl"
    with ExitStack() as stack:
        (hosted,) = host_for_game(
            [reference], settings, plugins, args.plugin, not args.no_plugin_autoload, spec.id
        )
        stack.callback(hosted.close)
        clocked = SeatClock(hosted.connection, bot_clock) if hosted.connection is not None else None
        seats = [Seat.of(hosted, connection=clocked)]
        seats.insert(args.seat, Seat(human, args.name, "in-process"))
        context = MatchContext(config.match_id, spec.id, [s.name for s in seats], replay_path)
        try:
            result = play_match(config, seats, plugins.observers(context))
        except KeyboardInterrupt:  # Ctrl-C while the bot was thinking
            print(f"\ninterrupted: the match is abandoned; partial replay: {replay_path}")
            return EXIT_LEFT
    you, them = result.seats[args.seat], result.seats[1 - args.seat]
    print()
    if human.left:
        print(f"You left the table ({human.left}): the game is forfeited to {hosted.name}.")
    for fault in them.faults:
        when = f"in game {fault.game + 1}" if fault.game >= 0 else "before the first game"
        print(f"{hosted.name} faulted {when}: {fault.status.value}: {fault.reason}")
    won = sum(1 for game in result.games if game.winner == args.seat)
    lost = sum(1 for game in result.games if game.winner == 1 - args.seat)
    print(
        f"Result: you won {won}, {hosted.name} won {lost}, of {plural(len(result.games), 'game')}."
    )
    print(f"seed {seed} (--seed {seed} deals these cards again)")
    print(f"replay: {replay_path}")
    if human.left:
        return EXIT_LEFT
    return EXIT_BOT_FAILED if them.faults or you.faults else 0
