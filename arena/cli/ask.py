"""``arena ask BOT POS.json``: put a bot in front of saved decisions (positions) and
compare its answers with the recorded or expected ones; ``--expect`` over a folder of
positions is a regression suite (exit status 1 when an answer changed).

Also the pieces ``arena replay FILE --ask BOT`` shares: starting the bot as ``arena
match`` does, and showing a decision with both answers.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from arena.cli.bot_options import (
    add_manifest_option,
    add_plugin_options,
    add_sandbox_option,
    host_for_game,
    plugins_from_args,
    resolve_bots,
)
from arena.hosting.launcher import HostedBot, LaunchSettings, UnstartableBotError
from arena.plugins import PluginSet
from arena.proto import bot_pb2 as pb
from arena.protocol import codec_for
from arena.replays.ask import (
    Asker,
    BotStarter,
    DecisionResult,
    NewAnswer,
    Verdict,
    ask_position,
)
from arena.replays.positions import Position, RecordedAnswer, position_files, read_position
from arena.replays.seat_view import decision_lines, event_text, seat_labels

__all__ = ["add_asking_options", "bot_starter", "decision_block", "register"]


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "ask", help="ask a bot saved decisions (positions) again; --expect: a regression suite"
    )
    parser.add_argument("bot", metavar="BOT", help="the bot to ask, named as for arena match")
    parser.add_argument(
        "positions",
        nargs="+",
        type=Path,
        metavar="POS",
        help="a position file (arena replay FILE --seat N --at G.H.S --save POS.json), "
        "or a folder of them (its *.json)",
    )
    parser.add_argument(
        "--expect",
        action="store_true",
        help="one line a position, and exit status 1 if an answer is not one the "
        "position expects (its 'expect' list: the recorded answer unless edited)",
    )
    add_asking_options(parser)
    parser.set_defaults(run=_run)


def add_asking_options(parser: argparse.ArgumentParser) -> None:
    """The options of commands that start a bot to ask it again: how it is started
    (as ``arena match`` starts bots) and how often each question is asked."""
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="K",
        help="ask each decision K times, each in a fresh match stream (default 1); "
        "the summary says where the bot answered the same question differently",
    )
    parser.add_argument(
        "--in-process", action="store_true", help="run a Python bot inside the arena (debugging)"
    )
    add_sandbox_option(parser)
    add_manifest_option(parser)
    add_plugin_options(parser)


def bot_starter(
    args: argparse.Namespace, plugins: PluginSet, reference: str, game_id: str, startup_ms: int
) -> BotStarter:
    """Starts the bot ``reference`` names for ``game_id`` as ``arena match`` would
    (launcher, sandbox, start-up limit); the first start refuses in one line a bot
    that cannot run or does not play the game, later ones (after a crash) hand back
    whatever started."""
    (resolved,) = resolve_bots(args, plugins, [reference])
    settings = LaunchSettings(
        sandbox=args.sandbox,
        run_dir=None,
        startup_seconds=startup_ms / 1000,
        in_process=args.in_process,
    )
    started = [0]

    def start() -> HostedBot:
        hosted = host_for_game(
            [resolved], settings, plugins, args.plugin, not args.no_plugin_autoload, game_id
        )
        (bot,) = hosted
        started[0] += 1
        problem = UnstartableBotError.of(hosted)
        if problem is None and started[0] == 1 and bot.start_fault is not None:
            problem = UnstartableBotError(f"cannot start {reference}: {bot.start_fault.reason}")
        if problem is not None:
            bot.close()
            raise problem
        return bot

    return start


# -- showing a decision -----------------------------------------------------------------


def _answer(label: str, text: str, ms: float, comment: str) -> str:
    said = f"  # {comment}" if comment else ""
    return f"  {label:<9} {text}  [{ms:.2f} ms]{said}"


def recorded_text(recorded: RecordedAnswer) -> str:
    if recorded.fault is None:
        return recorded.action
    played = f" (the referee played {recorded.action})" if recorded.action else " (forfeit)"
    return f"FAULT {recorded.fault}{played}"


def decision_block(
    heading: str,
    game_id: str,
    request: pb.DecisionRequest,
    seat: int,
    who: Callable[[int], str],
    recorded: RecordedAnswer,
    answers: Sequence[NewAnswer],
    *,
    full: bool = False,
) -> list[str]:
    """A decision as ``--ask`` shows it: where, what the seat saw (the events since its
    last decision, with ``full`` also every legal action), the recorded and new answers."""
    lines = [heading]
    events = [event_text(event, who) for event in request.events]
    if events:
        lines.append(f"    since your last decision: {'; '.join(events)}")
    lines += decision_lines(request, seat, who)
    if full:
        codec = codec_for(game_id)
        legal = [str(codec.action_from_proto(action)) for action in request.legal_actions]
        lines.append(f"      legal: {', '.join(legal)}")
        lines.append(
            f"      clock: {request.clock.decision_ms} ms a decision, {request.clock.bank_ms} ms in the bank"
        )
    lines.append(_answer("recorded:", recorded_text(recorded), recorded.ms, recorded.comment))
    for number, answer in enumerate(answers, start=1):
        label = "new:" if len(answers) == 1 else f"new #{number}:"
        lines.append(_answer(label, answer.text, answer.ms, answer.comment))
    return lines


def position_labels(position: Position) -> Callable[[int], str]:
    labels = seat_labels(position.players)
    labels[position.seat] = "you"
    return lambda seat: labels[seat] if 0 <= seat < len(labels) else f"seat {seat}"


# -- the command ------------------------------------------------------------------------


def _run(args: argparse.Namespace) -> int:
    if args.repeat < 1:
        raise ValueError(f"--repeat must be at least 1, got {args.repeat}")
    positions = [read_position(path) for path in position_files(args.positions)]
    plugins = plugins_from_args(args)
    askers: dict[str, Asker] = {}  # one bot process a game, for all its positions
    with ExitStack() as stack:
        changed = 0
        for position in positions:
            if position.game_id not in askers:
                start = bot_starter(
                    args,
                    plugins,
                    args.bot,
                    position.game_id,
                    position.time_control.get("startup_ms", 10_000),
                )
                askers[position.game_id] = stack.enter_context(Asker(start))
            result = ask_position(position, askers[position.game_id], repeat=args.repeat)
            if args.expect:
                ok, line = _expectation(position, result)
                changed += not ok
                print(line, flush=True)
            else:
                for line in _shown(position, result):
                    print(line)
    if args.expect:
        count = len(positions)
        kept = count - changed
        print(
            f"{count} position{'s' * (count != 1)}: {kept} as expected, {changed} changed",
            flush=True,
        )
        return 1 if changed else 0
    return 0


def _expectation(position: Position, result: DecisionResult) -> tuple[bool, str]:
    """Whether every answer is one the position expects, and its line."""
    expected = position.expect or (
        [position.recorded.action] if position.recorded.fault is None else []
    )
    where = f"{position.name} ({position.at})"
    wrong = [
        answer
        for answer in result.answers
        if answer.verdict in (Verdict.ILLEGAL, Verdict.FAULT) or answer.action not in expected
    ]
    wanted = " or ".join(expected) or "nothing (the position expects no answer)"
    if not wrong:
        return True, f"{where}: {result.answer.action} as expected"
    return False, f"{where}: CHANGED: expected {wanted}, got {wrong[0].text}"


def _shown(position: Position, result: DecisionResult) -> list[str]:
    answer = result.answer
    verdict = answer.verdict.value
    if len(result.answers) > 1 and not result.steady:
        verdict += f"; answered differently over {len(result.answers)} asks"
    heading = (
        f"{position.name}: {position.game_id}, seat {position.seat}, game {position.at.game}, "
        f"hand {position.at.hand}, step {position.at.step}: {verdict}"
    )
    return decision_block(
        heading,
        position.game_id,
        position.request,
        position.seat,
        position_labels(position),
        position.recorded,
        result.answers,
        full=True,
    )
