"""``arena ladder freeze|unfreeze``: closing a season to submissions before its final."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.storage import LadderStore

__all__ = ["register_season"]

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
