"""``arena check BOT``: the conformance checks for a bot in any language.

Exit status: 0 when every check passes (skipped ones allowed), 1 when any fails,
2 for bad arguments (an unknown bot or game, a bad manifest).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from arena.cli.bot_options import (
    add_manifest_option,
    add_plugin_options,
    add_sandbox_option,
    add_time_control_options,
    plugins_from_args,
    resolve_bots,
    time_control_from_args,
)
from arena.conformance.check import (
    CheckResult,
    CheckSettings,
    format_result,
    run_check,
    summary_line,
)
from arena.referee.seeds import seed_or_fresh
from arena.referee.settings import SettingsError

__all__ = ["register"]


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "check",
        help="check that a bot follows the protocol and the rules (any language)",
        description=(
            "Start the bot, check its handshake and its refusal of another protocol version, "
            "play hand-built deals in which every kind of decision arises (against a scripted "
            "opponent), then hands against random with its answer times. Exit status 0: all "
            "checks pass; 1: a check failed; 2: bad arguments."
        ),
    )
    parser.add_argument(
        "bot",
        metavar="BOT",
        help="bot name (registered, or a manifest's in --manifests), manifest file or bot "
        "folder, grpc://HOST:PORT or unix:PATH",
    )
    parser.add_argument(
        "--game",
        action="append",
        default=[],
        metavar="GAME",
        help="check only this game id or family (gin-rummy/standard, rummy); repeatable",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=4,
        metavar="N",
        help="hands against random per rule set (default 4)",
    )
    parser.add_argument(
        "--seed", type=int, help="seed of the hands against random (default: fresh, printed)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    add_sandbox_option(parser)
    parser.add_argument(
        "--logs", type=Path, help="keep the bot's stderr logs in this folder (default: temporary)"
    )
    add_time_control_options(parser)
    add_manifest_option(parser)
    add_plugin_options(parser)
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    if args.games < 0:
        raise SettingsError(f"--games must not be negative, got {args.games}")
    seed = seed_or_fresh(args.seed)
    plugins = plugins_from_args(args)
    settings = CheckSettings(
        time_control=time_control_from_args(args),
        sandbox=args.sandbox,
        games=args.games,
        seed=seed,
        only=tuple(args.game),
        log_dir=args.logs,
        modules=tuple(args.plugin),
        autoload=not args.no_plugin_autoload,
    )

    def emit(result: CheckResult) -> None:
        if not args.json:
            print(format_result(result, 44), flush=True)

    (reference,) = resolve_bots(args, plugins, [args.bot])
    report = run_check(reference, plugins, settings, emit)
    if args.json:
        print(json.dumps({**report.to_json(), "seed": seed}))
    else:
        print(f"hands against random: seed {seed} (--seed {seed} deals them again)")
        print(summary_line(report))
    return 0 if report.passed else 1
