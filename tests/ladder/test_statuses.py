"""The status enums and the database's CHECK constraints name the same states."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path

import pytest

from arena.ladder.config import BotEntry, LadderConfig
from arena.ladder.deals import new_deal_secret
from arena.storage.ladder_store import BotStatus, LadderStore, MatchStatus
from arena.storage.submissions_store import SubmissionStatus


@pytest.mark.parametrize(
    ("table", "enum"),
    [("matches", MatchStatus), ("bots", BotStatus), ("submissions", SubmissionStatus)],
)
def test_each_status_enum_is_its_columns_check(
    tmp_path: Path, table: str, enum: type[StrEnum]
) -> None:
    config = LadderConfig("t", "gin-rummy/standard", (BotEntry("a", "greedy"),))
    store = LadderStore.create(
        tmp_path / "t.sqlite", "t", config.to_json(), None, new_deal_secret(config)
    )
    try:
        sql = store.db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()[0]
    finally:
        store.close()
    allowed = re.search(r"status TEXT NOT NULL CHECK \(status IN \(([^)]*)\)\)", sql)
    assert allowed is not None, sql
    assert set(re.findall(r"'(\w+)'", allowed.group(1))) == {member.value for member in enum}
