"""``arena ladder``: create, change, run, report and export ladder competitions."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.cli.bot_options import add_manifest_option, manifest_catalog
from arena.cli.ladder_ops import (
    FINALS_COLUMNS,
    HISTORY_COLUMNS,
    MATCH_COLUMNS,
    SEAT_COLUMNS,
    finals_rows,
    register_ops,
    seat_rows,
    table_text,
)
from arena.cli.match_report import plural
from arena.cli.season import register_season
from arena.ladder import LadderConfig, LadderError, load_ladder_config, run_ladder
from arena.ladder.config import BotEntry
from arena.ladder.deals import new_deal_secret, predictable_deals_note
from arena.ladder.progress import fault_where, score_text
from arena.ladder.replay_folder import claim_replay_folder
from arena.ladder.runner import DEFAULT_GRACE
from arena.ladder.runner_lock import RunnerLock
from arena.ladder.wakeup import StopRequest
from arena.plugins import load_plugins
from arena.plugins.bot_references import refuse_registered, resolve_bot
from arena.ratings import DEFAULT_ENV
from arena.storage import LadderStore
from arena.storage.finals_store import FinalsStore
from arena.storage.ladder_store import ACTIVE, FinishedMatch
from arena.storage.submissions_store import SubmissionStore

__all__ = ["register"]


DB_HELP = "the ladder's database (made by `arena ladder create`)"


def register(commands: Any) -> None:
    ladder = commands.add_parser("ladder", help="ladder competitions (TrueSkill, SQLite)")
    sub = ladder.add_subparsers(dest="ladder_command", required=True, metavar="ACTION")

    create = sub.add_parser("create", help="create a ladder database from a TOML config")
    create.add_argument("config", type=Path, help="the ladder's TOML config (docs/LADDERS.md)")
    create.add_argument(
        "--db", type=Path, help="database file (default: NAME.sqlite beside the config)"
    )
    add_manifest_option(create)
    create.set_defaults(run=_create)

    add = sub.add_parser("add", help="add a bot (takes effect in a running ladder too)")
    add.add_argument("db", type=Path, help=DB_HELP)
    add.add_argument("name", help="the bot's name in the ladder")
    source = add.add_mutually_exclusive_group()
    source.add_argument("--manifest", type=Path, help="the bot's manifest (a bot.toml)")
    source.add_argument("--address", help="a bot already running: grpc://HOST:PORT or unix:PATH")
    source.add_argument(
        "--bot", help="a registered bot (built in or a plugin's) by its name (default: NAME)"
    )
    add_manifest_option(add)
    add.set_defaults(run=_add)

    for action, status in (("disable", "disabled"), ("enable", "active"), ("remove", "removed")):
        command = sub.add_parser(
            action, help=f"{action} a bot (takes effect in a running ladder too)"
        )
        command.add_argument("db", type=Path, help=DB_HELP)
        command.add_argument("name", help="the bot's name in the ladder")
        command.set_defaults(run=_set_status, status=status)

    _register_authors(sub)

    run = sub.add_parser("run", help="play the ladder's matches (resumes after a crash)")
    run.add_argument("db", type=Path, help=DB_HELP)
    run.add_argument("--matches", type=int, help="stop after this many matches")
    run.add_argument(
        "--until-sigma", type=float, help="stop when every active bot's sigma is below this"
    )
    run.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="play the matches on Dask workers: a scheduler's tcp://HOST:PORT, or 'local' "
        "for a LocalCluster of `concurrency` workers (overrides [run] executor)",
    )
    run.add_argument(
        "--forever",
        action="store_true",
        help="keep playing until SIGTERM or Ctrl-C: when nothing is left to play, wait "
        "for a bot to be added, enabled or accepted",
    )
    run.add_argument(
        "--grace",
        type=float,
        default=DEFAULT_GRACE,
        metavar="S",
        help="on SIGTERM or Ctrl-C, seconds the matches in flight get to finish before "
        "they are stopped and put back in the queue (default %(default)s)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument(
        "--no-leaderboard", action="store_true", help="do not print the leaderboard at the end"
    )
    run.set_defaults(run=_run)

    board = sub.add_parser("leaderboard", help="bots sorted by mu - 3 sigma")
    board.add_argument("db", type=Path, help=DB_HELP)
    board.add_argument("--json", action="store_true", help="print the leaderboard as JSON")
    board.set_defaults(run=_leaderboard)

    history = sub.add_parser(
        "history",
        help="the matches in order (or one bot's, with its rating changes): results, "
        "sandbox level, faults with their reasons",
    )
    history.add_argument("db", type=Path, help=DB_HELP)
    history.add_argument("name", nargs="?", help="only this bot's matches")
    history.add_argument("--json", action="store_true", help="print the history as JSON")
    history.set_defaults(run=_history)

    export = sub.add_parser(
        "export",
        help="matches, seats, standings and rating changes for analysis: a table as CSV or "
        "JSON Lines, or everything as one JSON object",
    )
    export.add_argument("db", type=Path, help=DB_HELP)
    export.add_argument(
        "--format",
        choices=["csv", "jsonl", "json"],
        default="json",
        help="csv or jsonl: one table (--what), one row a line; json: everything as one "
        "object (default json)",
    )
    export.add_argument(
        "--what",
        choices=["matches", "results", "seats", "standings", "ratings", "history", "finals"],
        default="matches",
        help="for csv and jsonl: the finished matches (matches, also: results), one row per "
        "seat of each (seats), the leaderboard with each bot's rating (standings; also: "
        "ratings), every rating change (history) or one row per seat of each finished "
        "finals match (finals)",
    )
    export.add_argument("--out", type=Path, help="file to write (default: stdout)")
    export.set_defaults(run=_export)

    register_ops(sub)
    register_season(sub)


def _register_authors(sub: Any) -> None:
    author = sub.add_parser("author", help="authors who may submit bots (arena submit)")
    actions = author.add_subparsers(dest="author_command", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="create an author; prints its token (shown once)")
    add.add_argument("db", type=Path, help=DB_HELP)
    add.add_argument("name", help="the author's name")
    add.set_defaults(run=_author_add)
    listing = actions.add_parser("list", help="the ladder's authors")
    listing.add_argument("db", type=Path, help=DB_HELP)
    listing.set_defaults(run=_author_list)
    revoke = actions.add_parser("revoke", help="an author submits no more (its bots stay)")
    revoke.add_argument("db", type=Path, help=DB_HELP)
    revoke.add_argument("name", help="the author's name")
    revoke.set_defaults(run=_author_revoke)
    rotate = actions.add_parser(
        "rotate",
        help="a new token for an author; the old one and every session signed in with it "
        "end (prints the token as its last line, shown once)",
    )
    rotate.add_argument("db", type=Path, help=DB_HELP)
    rotate.add_argument("name", help="the author's name")
    rotate.set_defaults(run=_author_rotate)


def _author_add(args: argparse.Namespace) -> int:
    store = LadderStore.open(args.db)
    try:
        token = SubmissionStore(store).add_author(args.name)
    finally:
        store.close()
    print(f"author {args.name} created; its token, shown only this once:")
    print(token)
    return 0


def _author_list(args: argparse.Namespace) -> int:
    store = LadderStore.open(args.db)
    try:
        submissions = SubmissionStore(store)
        for author in submissions.authors():
            bots = sorted({v.bot_name for v in submissions.versions(author.id)})
            state = f"revoked {author.revoked}" if author.revoked else "active"
            print(
                f"{author.name:<20} {state:<28} since {author.created}  bots: {', '.join(bots) or '-'}"
            )
    finally:
        store.close()
    return 0


def _author_revoke(args: argparse.Namespace) -> int:
    store = LadderStore.open(args.db)
    try:
        SubmissionStore(store).revoke(args.name)
    finally:
        store.close()
    print(f"author {args.name}: revoked (its bots stay in the ladder)")
    return 0


def _author_rotate(args: argparse.Namespace) -> int:
    store = LadderStore.open(args.db)
    try:
        token = SubmissionStore(store).rotate(args.name)
    finally:
        store.close()
    print(f"author {args.name}: new token; the old one and its sessions no longer work.")
    print("The new token, shown only this once:")
    print(token)
    return 0


def _resolve_bots(
    config: LadderConfig, where: str, args: argparse.Namespace, config_path: Path | None
) -> LadderConfig:
    """The config with each bot named by name found: a registered bot, else a manifest
    of that name (in the ``bots/`` folder beside the config, ``--manifests``,
    ``ARENA_MANIFESTS``).  A registered bot that does not play the ladder's game is
    refused; a manifest's bot tells what it plays only when started, at its matches."""
    plugins = load_plugins(config.plugins, autoload=config.autoload_plugins)
    plugins.game(config.game)
    beside = config_path.parent / "bots" if config_path is not None else None
    catalog = manifest_catalog(args, [beside] if beside is not None and beside.is_dir() else [])
    bots = []
    for bot in config.bots:
        if bot.kind == "plugin":
            try:
                reference = resolve_bot(bot.reference, plugins, catalog)
                if reference != bot.reference:  # a manifest's: found wherever the run starts
                    reference = str(Path(reference).resolve())
                refuse_registered([reference], plugins, config.game)
            except ValueError as error:
                raise ValueError(f"{where}: bot {bot.name!r}: {error}") from None
            bot = BotEntry(bot.name, reference)
        bots.append(bot)
    return replace(config, bots=tuple(bots))


def _create(args: argparse.Namespace) -> int:
    config = load_ladder_config(args.config)
    config = _resolve_bots(config, str(args.config), args, args.config)
    path = args.db or args.config.parent / f"{config.name}.sqlite"
    if config.replays and not path.exists():  # an existing database: connect() refuses it
        try:
            folder = claim_replay_folder(Path(config.replays), path)
        except OSError as error:
            raise ValueError(
                f"ladder {config.name}: cannot make its replay folder under {config.replays}: "
                f"{error.strerror or error}"
            ) from None
        config = replace(config, replays=str(folder))
    store = LadderStore.create(
        path, config.name, config.to_json(), str(args.config.resolve()), new_deal_secret(config)
    )
    for bot in config.bots:
        store.add_bot(bot.name, bot.reference, DEFAULT_ENV.initial())
    note = predictable_deals_note(store)
    store.close()
    print(
        f"created ladder {config.name} in {path}: {plural(len(config.bots), 'bot')}, {config.schedule.value}"
    )
    print(note or f"deals: from a random secret kept in {path} (owner-only)")
    if config.replays:
        print(f"replays and bots' logs: {config.replays}")
    return 0


def _add(args: argparse.Namespace) -> int:
    store = LadderStore.open(args.db)
    config = LadderConfig.from_json(store.config_json())
    if args.manifest:
        manifest = args.manifest / "bot.toml" if args.manifest.is_dir() else args.manifest
        if not manifest.is_file():
            raise ValueError(f"no such file: {manifest}")
        reference = str(manifest.resolve())
    else:
        reference = args.address or args.bot or args.name
    entry = BotEntry(args.name, reference)
    if entry.kind == "plugin":
        config_path = store.config_path()
        checked = _resolve_bots(
            replace(config, bots=(entry,)),
            str(args.db),
            args,
            Path(config_path) if config_path else None,
        )
        (entry,) = checked.bots
        reference = entry.reference
    store.add_bot(args.name, reference, DEFAULT_ENV.initial())
    store.set_config_json(
        replace(config, bots=(*[b for b in config.bots if b.name != args.name], entry)).to_json()
    )
    store.close()
    print(f"added {args.name} ({entry.kind} {reference})")
    return 0


def _set_status(args: argparse.Namespace) -> int:
    store = LadderStore.open(args.db)
    store.set_status(args.name, args.status)
    store.close()
    print(f"{args.name}: {args.status}")
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.dask is not None and args.dask != "local" and "://" not in args.dask:
        raise ValueError(f"--dask must be tcp://HOST:PORT or local, got {args.dask!r}")
    if args.grace < 0:
        raise ValueError(f"--grace must be 0 or more seconds, got {args.grace}")
    store = LadderStore.open(args.db)
    try:
        try:
            with RunnerLock(args.db), StopRequest() as stop:
                summary = run_ladder(
                    store,
                    max_matches=args.matches,
                    until_sigma=args.until_sigma,
                    progress=not args.quiet,
                    dask=args.dask,
                    forever=args.forever,
                    stop=stop,
                    grace=args.grace,
                )
        except LadderError as error:
            if isinstance(error, ValueError):
                raise  # the user's to fix (LadderRefused): a one-line error, status 2
            print(f"arena: error: {error}", file=sys.stderr)
            return 1
        note = (
            f"; {plural(summary.recovered, 'interrupted match', 'interrupted matches')} re-run"
            if summary.recovered
            else ""
        )
        if summary.failed:
            note += f"; {summary.failed} could not be played (recorded as failed)"
        print(f"{plural(summary.finished, 'match', 'matches')} played{note}", file=sys.stderr)
        for line in summary.given_up:
            print(f"arena: {line}", file=sys.stderr)
        if not args.no_leaderboard:
            _print_leaderboard(store)
    finally:
        store.close()
    return 0


def _rows(store: LadderStore) -> list[dict[str, Any]]:
    """Active bots ranked from 1 by mu - 3 sigma; then the others (suspended, disabled,
    removed), in the same order but without a place: they are not competing now."""
    bots = sorted(
        store.bots(include_removed=True),
        key=lambda bot: (bot.status != ACTIVE, -bot.rating.conservative, bot.name),
    )
    places = iter(range(1, len(bots) + 1))
    return [
        {
            "rank": next(places) if bot.status == ACTIVE else None,
            "name": bot.name,
            "score": round(bot.rating.conservative, 3),
            "mu": round(bot.rating.mu, 3),
            "sigma": round(bot.rating.sigma, 3),
            "matches": bot.matches,
            "wins": bot.wins,
            "draws": bot.draws,
            "win_rate": round(bot.win_rate, 4),
            "games": bot.games,
            "game_wins": bot.game_wins,
            "points": bot.points,
            "faults": bot.faults,
            "status": bot.status,
        }
        for bot in bots
    ]


LEGEND = (
    "mu-3s = mu - 3 sigma: the cautious rating ({system}), below the bot's skill with about "
    "99.9% confidence; the board is sorted by it."
)


def _print_leaderboard(store: LadderStore) -> None:
    rows = _rows(store)
    print(
        f"{'#':>3} {'bot':<16}{'mu-3s':>8}{'mu':>8}{'sigma':>7}{'matches':>9}{'won':>5}{'win %':>7}"
        f"{'games':>7}{'won':>5}{'faults':>8}  status"
    )
    resting = [row for row in rows if row["rank"] is None]
    for row in rows:
        if resting and row is resting[0]:
            print(
                f"not ranked now ({plural(len(resting), 'bot')}: suspended, disabled or removed):"
            )
        place = "-" if row["rank"] is None else str(row["rank"])
        print(
            f"{place:>3} {row['name']:<16}{row['score']:>8.2f}{row['mu']:>8.2f}{row['sigma']:>7.2f}"
            f"{row['matches']:>9}{row['wins']:>5}{row['win_rate']:>7.1%}{row['games']:>7}{row['game_wins']:>5}"
            f"{row['faults']:>8}  {row['status']}"
        )
    print(LEGEND.format(system=store.rating_system().name))
    note = predictable_deals_note(store)
    if note:
        print(note)


def _leaderboard(args: argparse.Namespace) -> int:
    store = LadderStore.open(args.db)
    try:
        if args.json:
            deals = "predictable" if predictable_deals_note(store) else "secret"
            system = store.rating_system().name
            print(json.dumps({"leaderboard": _rows(store), "deals": deals, "ratings": system}))
        else:
            _print_leaderboard(store)
    finally:
        store.close()
    return 0


def _faults_text(match: FinishedMatch) -> list[str]:
    return [
        f"{fault.bot} {fault.status}{fault_where(fault.game)}: {fault.reason}"
        for fault in match.fault_reasons
    ]


def _match_line(match: FinishedMatch) -> str:
    score = score_text(match.seats, match.wins)
    points = "-".join(map(str, match.points))
    levels = ", ".join(sorted(set(match.sandbox)))
    return (
        f"match {match.match} ({match.finished}, unit {match.unit}): {score} "
        f"of {plural(match.games, 'game')}, points {points}, sandbox {levels}"
    )


def _history(args: argparse.Namespace) -> int:
    store = LadderStore.open(args.db)
    try:
        if args.name is None:
            return _all_history(store, args.json)
        bot = store.bot(args.name)
        matches = store.finished_matches(args.name)
        ratings = store.rating_history(args.name)
        if args.json:
            print(
                json.dumps(
                    {
                        "bot": args.name,
                        "status": bot.status,
                        "matches": [match.to_json() for match in matches],
                        "ratings": [change.to_json() for change in ratings],
                    }
                )
            )
            return 0
        print(
            f"{bot.name} ({bot.reference}): {bot.status}, mu {bot.rating.mu:.2f} sigma {bot.rating.sigma:.2f}"
        )
        for match in matches:
            seat = match.seats.index(args.name)
            others = ", ".join(name for name in match.seats if name != args.name)
            print(
                f"  match {match.match} (unit {match.unit}, seat {seat}) vs {others}: "
                f"games won {match.wins[seat]}/{match.games}, points {match.points[seat]}, "
                f"faults {match.faults[seat]}, sandbox {match.sandbox[seat]}"
            )
            for line in _faults_text(match):
                if line.startswith(f"{args.name} "):
                    print(f"    fault: {line}")
        for change in ratings:
            print(
                f"  unit {change.unit_id}: place {change.rank + 1}, mu {change.mu_before:.2f} -> {change.mu_after:.2f}, sigma {change.sigma_before:.2f} -> {change.sigma_after:.2f}"
            )
    finally:
        store.close()
    return 0


def _all_history(store: LadderStore, as_json: bool) -> int:
    """Every match played, in the order they finished, then those the arena could not play."""
    matches = store.finished_matches()
    unplayed = store.unplayed_matches()
    if as_json:
        print(
            json.dumps(
                {
                    "matches": [match.to_json() for match in matches],
                    "unplayed": [match.to_json() for match in unplayed],
                }
            )
        )
        return 0
    for match in matches:
        print(_match_line(match))
        for line in _faults_text(match):
            print(f"  fault: {line}")
    for missed in unplayed:
        print(
            f"match {missed.match} ({missed.finished}, unit {missed.unit}): "
            f"{' vs '.join(missed.seats)} not played ({missed.status}): {missed.reason}"
        )
    if not matches and not unplayed:
        print("no match played yet")
    return 0


STANDING_COLUMNS = (
    "rank", "name", "score", "mu", "sigma", "matches", "wins", "draws", "win_rate", "games",
    "game_wins", "points", "faults", "status",
)  # fmt: skip


def _flat_match(row: dict[str, Any]) -> dict[str, Any]:
    """A match's lists as CSV cells: seat by seat, joined by '|'."""
    return {
        **row,
        **{
            key: "|".join(map(str, row[key]))
            for key in ("seats", "wins", "points", "faults", "sandbox")
        },
        "fault_reasons": " | ".join(
            f"{fault['bot']} {fault['status']}{fault_where(fault['game'])}: {fault['reason']}"
            for fault in row["fault_reasons"]
        ),
    }


def _export(args: argparse.Namespace) -> int:
    store = LadderStore.open(args.db)
    store.db.execute("BEGIN")  # one snapshot for every table, while the runner writes
    try:
        matches = store.finished_matches()
        if args.format == "json":
            text = json.dumps(
                {
                    "leaderboard": _rows(store),
                    "matches": [match.to_json() for match in matches],
                    "unplayed": [match.to_json() for match in store.unplayed_matches()],
                    "ratings": [change.to_json() for change in store.rating_history()],
                    "finals": finals_rows(FinalsStore(store.db)),
                },
                indent=1,
            )
        elif args.what in ("standings", "ratings"):
            text = table_text(_rows(store), STANDING_COLUMNS, args.format)
        elif args.what == "history":
            changes = [change.to_json() for change in store.rating_history()]
            text = table_text(changes, HISTORY_COLUMNS, args.format)
        elif args.what == "seats":
            text = table_text(seat_rows(matches), SEAT_COLUMNS, args.format)
        elif args.what == "finals":
            text = table_text(finals_rows(FinalsStore(store.db)), FINALS_COLUMNS, args.format)
        else:
            rows = [match.to_json() for match in matches]
            text = table_text(rows, MATCH_COLUMNS, args.format, _flat_match)
    finally:
        store.db.execute("COMMIT")
        store.close()
    if args.out:
        args.out.write_text(text)
    elif text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
