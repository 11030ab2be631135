"""``arena compete DB``: the one command an operator runs for a competition.

It supervises two plain children (:mod:`arena.supervision`): the web app with
submissions (``arena serve DB --submissions``) and the runner that plays forever
(``arena ladder run DB --forever``).  A child that dies is restarted with back-off
while the other goes on; SIGTERM (or Ctrl-C) stops both cleanly, the runner letting
its matches finish within ``--grace``.  One ``compete`` per ladder.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from arena.cli import serve
from arena.ladder.runner import DEFAULT_GRACE
from arena.ladder.runner_lock import RunnerLock, refuse_if_held
from arena.ladder.wakeup import StopRequest
from arena.storage import LadderStore
from arena.supervision import ChildSpec, Supervisor

__all__ = ["register"]

_ARENA = (sys.executable, "-m", "arena.cli.main")
_WEB_STOP_SECONDS = 15.0
_NOT_FORWARDED = {"dbs", "submissions", "help"}


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "compete",
        help="run a competition: the web app (with submissions) and a runner that plays "
        "forever, supervised",
        description="Run the web app with submissions (arena serve DB --submissions) and the "
        "ladder runner (arena ladder run DB --forever) as supervised children: one that dies "
        "is restarted with back-off, SIGTERM stops both.  Takes every option of arena serve.",
    )
    serve.add_serve_options(parser, one_db=True)
    parser.add_argument(
        "--grace",
        type=float,
        default=DEFAULT_GRACE,
        metavar="S",
        help="on SIGTERM, seconds the matches in flight get to finish before they are put "
        "back in the queue (default %(default)s)",
    )
    parser.set_defaults(run=_run)


def _serve_options(args: argparse.Namespace) -> list[str]:
    """The ``arena serve`` options given to compete, spelled out again for its child."""
    parser = serve.serve_options()
    out: list[str] = []
    for action in parser._actions:  # argparse's list of what it parses
        if not action.option_strings or action.dest in _NOT_FORWARDED:
            continue
        value = getattr(args, action.dest, None)
        if value == parser.get_default(action.dest):
            continue
        flag = max(action.option_strings, key=len)
        if action.nargs == 0:  # a flag: store_true
            out.append(flag)
        elif isinstance(value, list):  # appended: --plugin M --plugin N
            for item in value:
                out += [flag, str(item)]
        else:
            out += [flag, str(value)]
    return out


def _log(message: str) -> None:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    print(f"{stamp} arena compete: {message}", file=sys.stderr, flush=True)


def _run(args: argparse.Namespace) -> int:
    db: Path = args.dbs[0]
    if args.grace < 0:
        raise ValueError(f"--grace must be 0 or more seconds, got {args.grace}")
    LadderStore.open(db).close()  # a file that is no ladder: one line, nothing started
    refuse_if_held(db)
    web = [*_ARENA, "serve", str(db), "--submissions", *_serve_options(args)]
    play = [
        *_ARENA, "ladder", "run", str(db), "--forever", "--quiet", "--no-leaderboard",
        "--grace", str(args.grace),
    ]  # fmt: skip
    children = [
        ChildSpec("web", web, _WEB_STOP_SECONDS),
        ChildSpec("runner", play, args.grace + 30),
    ]
    with RunnerLock(db, role="compete"), StopRequest() as stop:
        _log(f"competition on {db}: web on http://{args.host}:{args.port}/, runner")
        Supervisor(children, _log).run(stop.fileno(), lambda: stop.requested)
    _log("stopped")
    return 0
