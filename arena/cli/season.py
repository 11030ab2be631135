"""``arena ladder freeze|unfreeze|finals|standings``: a season's end.  Freeze the ladder
to submissions, play its finals (``arena.ladder.finals``), and show the finals'
standings beside the ladder's."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from arena.ladder.finals import FinalsRequest, run_finals
from arena.ladder.runner import LadderError
from arena.ladder.wakeup import StopRequest
from arena.storage import LadderStore
from arena.storage.finals_store import FinalsReport, FinalsStatus, FinalsStore

__all__ = ["print_finals", "register_season"]

DB_HELP = "the ladder's database (made by `arena ladder create`)"


def register_season(sub: Any) -> None:
    """Add freeze and unfreeze to ``arena ladder``'s subcommands."""
    freeze = sub.add_parser(
        "freeze",
        help="close the ladder to submissions and new versions (before a final); the "
        "ladder still plays",
    )
    freeze.add_argument("db", type=Path, help=DB_HELP)
    freeze.set_defaults(run=_freeze, frozen=True)
    unfreeze = sub.add_parser("unfreeze", help="open a frozen ladder to submissions again")
    unfreeze.add_argument("db", type=Path, help=DB_HELP)
    unfreeze.set_defaults(run=_freeze, frozen=False)

    finals = sub.add_parser(
        "finals",
        help="the season's finals: the top N bots by mu - 3 sigma play duplicate round-robins "
        "under a freshly committed seed until each pair of neighbours is separated (sign "
        "test, p < 0.05) or out of games; run again to resume one that was stopped",
    )
    finals.add_argument("db", type=Path, help=DB_HELP)
    finals.add_argument(
        "--top", type=int, required=True, metavar="N", help="how many of the best bots play"
    )
    finals.add_argument(
        "--games", type=int, metavar="G", help="games a match (default: the ladder's [match] games)"
    )
    finals.add_argument(
        "--max-games",
        type=int,
        metavar="M",
        help="head-to-head games a pair plays at most before it is declared tied (default: "
        "100, or one round's if more)",
    )
    finals.add_argument(
        "--new",
        action="store_true",
        help="hold another finals after a finished one (without it, a finished finals' "
        "standings are shown)",
    )
    finals.set_defaults(run=_finals)

    standings = sub.add_parser(
        "standings",
        help="the ladder's leaderboard (as `arena ladder leaderboard`), or with --finals the "
        "standings of its finals",
    )
    standings.add_argument("db", type=Path, help=DB_HELP)
    standings.add_argument(
        "--finals", action="store_true", help="the latest finals' standings, not the ladder's"
    )
    standings.add_argument("--json", action="store_true", help="print them as JSON")
    # Without --finals: what `arena ladder leaderboard` runs, taken from its parser (it is
    # registered before these; importing arena.cli.ladder here would be a cycle).
    standings.set_defaults(
        run=_standings, leaderboard=sub.choices["leaderboard"].get_default("run")
    )


def _freeze(args: argparse.Namespace) -> int:
    store = LadderStore.open(args.db)
    try:
        store.set_frozen(args.frozen)  # StorageError (one line) for a ladder already so
        if args.frozen:
            print(f"ladder {args.db} frozen: it takes no submissions or new versions")
        else:
            print(f"ladder {args.db} open to submissions again")
    finally:
        store.close()
    return 0


def _finals(args: argparse.Namespace) -> int:
    request = FinalsRequest(args.top, args.games, args.max_games, args.new)
    store = LadderStore.open(args.db)
    try:
        try:
            with StopRequest() as stop:
                outcome = run_finals(store, request, stop=stop)
        except LadderError as error:
            if isinstance(error, ValueError):
                raise  # a refusal: one line, exit status 2
            print(f"arena: error: {error}", file=sys.stderr)  # the arena's own: resumable
            return 1
        if outcome.stopped:
            return 1
        if outcome.already_finished:
            print(
                f"finals {outcome.finals.id} finished already (--new holds another); its standings:"
            )
        print_finals(FinalsStore(store.db).report(outcome.finals), args.db)
    finally:
        store.close()
    return 0


def _standings(args: argparse.Namespace) -> int:
    if not args.finals:
        code: int = args.leaderboard(args)
        return code
    store = LadderStore.open(args.db)
    try:
        report = FinalsStore(store.db).latest_report()
    finally:
        store.close()
    if args.json:
        print(json.dumps(asdict(report)))
    elif report.finals is None:
        print(f"ladder {args.db} has held no finals yet (arena ladder finals DB --top N plays one)")
    else:
        print_finals(report, args.db)
    return 0


def print_finals(report: FinalsReport, db: Path) -> None:
    """A finals' standings as text: the order, each pair of neighbours' test, the
    commitment and (once finished) the secret."""
    finals = report.finals
    assert finals is not None  # an empty report is the caller's to word
    if finals.status is FinalsStatus.FINISHED:
        state = f"finished {finals.finished}"
    else:
        state = f"unfinished (run `arena ladder finals {db} --top {finals.top}` to resume it)"
    print(
        f"finals {finals.id}: {state}; {finals.rounds} round{'s' if finals.rounds != 1 else ''}, "
        f"{report.finished_matches} matches of {finals.games} game{'s' if finals.games != 1 else ''}"
        + (f", {report.failed_matches} could not be played" if report.failed_matches else "")
    )
    print(f"{'#':>3} {'bot':<20}{'games':>7}{'won':>6}{'points':>8}{'faults':>8}{'ladder #':>10}")
    for row in report.standings:
        print(
            f"{row.place:>3} {row.name:<20}{row.games:>7}{row.game_wins:>6}{row.points:>8}"
            f"{row.faults:>8}{row.seed:>10}"
        )
    print(f"neighbours head to head ({report.test}):")
    for gap in report.gaps:
        if gap.separated:
            verdict = "separated"
        elif finals.status is FinalsStatus.FINISHED:
            verdict = f"tied (out of games: at most {finals.max_games} a pair)"
        else:
            verdict = "not yet separated"
        print(
            f"  {gap.upper} - {gap.lower}: {gap.wins}-{gap.losses}"
            f"{f' ({gap.ties} tied)' if gap.ties else ''}, p = {gap.p_value:.4g}: {verdict}"
        )
    print(f"commitment: sha256 {finals.commitment}")
    if finals.secret is not None:
        check = "matches" if finals.verified else "DOES NOT match"
        print(f"secret: {finals.secret} (its SHA-256 {check} the commitment)")
    else:
        print("secret: revealed when the finals end")
    print(f"replays: {finals.replays} (each verifies with `arena replay FILE --verify`)")
    sys.stdout.flush()
