"""SQLite storage: versioned schema, migrations and the ladder's records."""

from arena.storage.db import SCHEMA_VERSION, StorageError, connect
from arena.storage.ladder_store import BotRow, BotStatus, LadderStore, MatchRow, RecordedMatch

__all__ = [
    "SCHEMA_VERSION",
    "BotRow",
    "BotStatus",
    "LadderStore",
    "MatchRow",
    "RecordedMatch",
    "StorageError",
    "connect",
]
