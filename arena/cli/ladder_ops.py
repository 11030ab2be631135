"""``arena ladder rerate|backup|restore``, and the tables ``arena ladder export`` writes
for analysis: operating a ladder that runs for weeks (docs/OPERATIONS.md)."""

from __future__ import annotations

import argparse
import csv
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from arena.cli.match_report import plural
from arena.ladder.backup import backup, restore
from arena.ratings import SYSTEM_NAMES, rating_system
from arena.storage import LadderStore
from arena.storage.finals_store import FinalsMatchStatus, FinalsStore
from arena.storage.ladder_store import FinishedMatch, RatingChange
from arena.storage.rerate import rerate

__all__ = [
    "FINALS_COLUMNS",
    "HISTORY_COLUMNS",
    "MATCH_COLUMNS",
    "SEAT_COLUMNS",
    "finals_rows",
    "register_ops",
    "seat_rows",
    "table_text",
]

DB_HELP = "the ladder's database (made by `arena ladder create`)"


def register_ops(sub: Any) -> None:
    """Add rerate, backup and restore to ``arena ladder``'s subcommands."""
    again = sub.add_parser(
        "rerate",
        help="rate every recorded result again, in order, with a rating system; the new "
        "ratings replace the old in one transaction when done (also while the ladder runs)",
    )
    again.add_argument("db", type=Path, help=DB_HELP)
    again.add_argument(
        "--system",
        metavar="|".join(SYSTEM_NAMES),
        help="the rating system to use from now on (default: the ladder's own)",
    )
    again.set_defaults(run=_rerate)

    save = sub.add_parser(
        "backup",
        help="copy the ladder (also while it runs) into a new folder: its database, its "
        "submitted bots' archives and, with --replays, its replays",
    )
    save.add_argument("db", type=Path, help=DB_HELP)
    save.add_argument(
        "dest",
        type=Path,
        help="a new or empty folder; backups in one parent folder share their unchanged files",
    )
    save.add_argument(
        "--replays", action="store_true", help="also the replays of the finished matches"
    )
    save.set_defaults(run=_backup)

    back = sub.add_parser(
        "restore", help="make a new ladder database from a backup (`arena ladder run` resumes it)"
    )
    back.add_argument("backup", type=Path, help="a folder made by `arena ladder backup`")
    back.add_argument("db", type=Path, help="the database to create (must not exist)")
    back.set_defaults(run=_restore)


def _rerate(args: argparse.Namespace) -> int:
    system = rating_system(args.system) if args.system is not None else None  # refused first
    store = LadderStore.open(args.db)
    try:
        chosen = system or store.rating_system()
        summary = rerate(
            store,
            chosen,
            on_computed=lambda units: print(
                f"computed {plural(units, 'rating update')} with {chosen.name}; switching"
            ),
        )
    finally:
        store.close()
    was = "" if summary.previous == summary.system else f" (was {summary.previous})"
    meanwhile = (
        f", {summary.caught_up} of them rated meanwhile by the running ladder"
        if summary.caught_up
        else ""
    )
    print(
        f"{args.db}: ratings by {summary.system}{was}: {plural(summary.units, 'rating update')} "
        f"replayed in order{meanwhile}; {plural(summary.bots, 'bot')}' ratings replaced"
    )
    return 0


def _backup(args: argparse.Namespace) -> int:
    done = backup(args.db, args.dest, replays=args.replays)
    manifest = done.manifest
    replays = sum(1 for item in manifest.files if item.path.startswith("replays/"))
    print(
        f"backed up ladder {manifest.ladder} ({args.db}) into {args.dest}: the database, "
        f"{plural(len(manifest.files) - replays, 'archive file')}, {plural(replays, 'replay')}; "
        f"{done.copied_bytes} bytes written, {done.linked} unchanged file(s) linked"
    )
    if done.pruned:
        print(f"removed {done.pruned} stored file(s) no backup holds any more")
    for path in manifest.missing:
        print(f"warning: named by the database but missing: {path}")
    return 0


def _restore(args: argparse.Namespace) -> int:
    done = restore(args.backup, args.db)
    print(
        f"restored ladder {done.ladder} from {args.backup} into {args.db} "
        f"({plural(done.files, 'file')}, {plural(done.versions, 'submitted version')})"
    )
    if done.replays is not None:
        print(f"replays and bots' logs: {done.replays}")
    for note in done.notes:
        print(f"warning: {note}")
    print(f"resume it with: arena ladder run {args.db}")
    return 0


# -- tables for analysis (arena ladder export) ----------------------------------------

MATCH_COLUMNS = tuple(item.name for item in fields(FinishedMatch))
SEAT_COLUMNS = (
    "match",
    "unit",
    "finished",
    "seat",
    "bot",
    "rank",
    "games",
    "game_wins",
    "points",
    "faults",
    "sandbox",
)
HISTORY_COLUMNS = tuple(item.name for item in fields(RatingChange))
FINALS_COLUMNS = ("finals", "round", "match", "seat", "bot", "game_wins", "points", "finished")


def finals_rows(finals: FinalsStore) -> list[dict[str, Any]]:
    """One row per seat of each finished finals match, finals after finals."""
    rows: list[dict[str, Any]] = []
    if not finals.has_tables():
        return rows
    for held in finals.all():
        for match in finals.matches(held.id):
            if match.status is not FinalsMatchStatus.FINISHED:
                continue
            for seat, bot in enumerate(match.seats):
                rows.append(
                    {
                        "finals": held.id,
                        "round": match.round,
                        "match": match.id,
                        "seat": seat,
                        "bot": bot,
                        "game_wins": match.wins[seat],
                        "points": match.points[seat],
                        "finished": match.finished,
                    }
                )
    return rows


def seat_rows(matches: Sequence[FinishedMatch]) -> list[dict[str, Any]]:
    """One row per seat of each finished match: its bot, place in the match (0 first:
    more games won, then more points, as the ladder ranks), games won, points, faults."""
    rows = []
    for match in matches:
        keys = list(zip(match.wins, match.points, strict=True))
        order = sorted(set(keys), reverse=True)
        for seat, bot in enumerate(match.seats):
            rows.append(
                {
                    "match": match.match,
                    "unit": match.unit,
                    "finished": match.finished,
                    "seat": seat,
                    "bot": bot,
                    "rank": order.index(keys[seat]),
                    "games": match.games,
                    "game_wins": match.wins[seat],
                    "points": match.points[seat],
                    "faults": match.faults[seat],
                    "sandbox": match.sandbox[seat],
                }
            )
    return rows


def table_text(
    rows: Sequence[dict[str, Any]],
    columns: Sequence[str],
    fmt: str,
    flatten: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> str:
    """``rows`` as CSV (a header even with no row, so every file reads as a table) or as
    JSON Lines (one object a line); ``flatten`` makes a row's lists CSV cells."""
    if fmt == "jsonl":
        return "".join(json.dumps(row) + "\n" for row in rows)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns))
    writer.writeheader()
    writer.writerows(flatten(row) if flatten else row for row in rows)
    return buffer.getvalue()
