"""Each ladder's own replay folder, so ladders made from one config keep theirs apart.

A config's ``[run] replays`` names where replays go; match files are named by match
id (``m1-a1.jsonl``), which every ladder numbers from 1.  So ``ladder create`` gives
the ladder a folder of its own under it, named after its database (``samples`` for
``samples.sqlite``; ``samples-2``, ``samples-3``... when a folder of that name holds
another database's replays), and marks it with the database's path.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from arena.privatefiles import open_private, private_folder

__all__ = ["CLAIM_FILE", "claim_replay_folder"]

#: The file in a ladder's replay folder naming the database it belongs to.
CLAIM_FILE = ".ladder-database"


def claim_replay_folder(replays: Path, database: Path) -> Path:
    """A folder under ``replays`` for the ladder in ``database``: its own from an
    earlier ``create`` at the same path, or a new one (made owner-only, and marked)."""
    owner = str(database.resolve())
    for number in itertools.count(1):
        folder = replays / (database.stem if number == 1 else f"{database.stem}-{number}")
        claim = folder / CLAIM_FILE
        if folder.exists():
            if claim.is_file() and claim.read_text(encoding="utf-8").strip() == owner:
                return folder
            continue  # another ladder's, or a folder the user made: not ours to fill
        private_folder(folder)
        with open_private(claim) as file:
            file.write(owner + "\n")
        return folder
    raise AssertionError("unreachable")  # itertools.count never ends
