"""docs/SDK.md cannot silently fall behind the code: every public name of ``arena.sdk``,
every member of ``Bot`` and ``Decision``, and every field of each game's observation and
action types is named on the page, and its Python examples parse."""

from __future__ import annotations

import ast
import dataclasses
import re
from enum import Enum
from pathlib import Path

import pytest

import arena.sdk
from arena.games import gin_rummy, rummy

PAGE = Path(__file__).resolve().parent.parent / "docs" / "SDK.md"
TEXT = PAGE.read_text(encoding="utf-8")
# Every name the page gives in code: ```python blocks, and `...` spans outside them.
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, re.S)
CODE = " ".join([*BLOCKS, *re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", TEXT, flags=re.S))])

GAME_TYPES = [
    gin_rummy.GinObservation,
    gin_rummy.KnockInfo,
    gin_rummy.Draw,
    gin_rummy.Pass,
    gin_rummy.Discard,
    gin_rummy.Knock,
    gin_rummy.Defend,
    rummy.RummyObservation,
    rummy.SeatInfo,
    rummy.TableMeld,
    rummy.Draw,
    rummy.LayMeld,
    rummy.LayOff,
    rummy.SwapJoker,
    rummy.Discard,
]
ENUMS = [gin_rummy.Phase, gin_rummy.DrawSource, rummy.Phase, rummy.DrawSource]


def named(name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", CODE) is not None


def public(names: list[str]) -> list[str]:
    return [name for name in names if not name.startswith("_")]


@pytest.mark.parametrize("name", arena.sdk.__all__)
def test_every_name_exported_by_the_sdk_is_documented(name: str) -> None:
    assert named(name), f"docs/SDK.md does not name arena.sdk.{name}"


@pytest.mark.parametrize("cls", [arena.sdk.Bot, arena.sdk.Decision], ids=lambda c: c.__name__)
def test_every_public_member_of_bot_and_decision_is_documented(cls: type) -> None:
    members = public(list(vars(cls)))
    if cls is arena.sdk.Decision:
        members += ["game_id", "message"]  # set in __init__
    missing = [member for member in members if not named(member)]
    assert not missing, f"docs/SDK.md does not name {cls.__name__}.{', .'.join(missing)}"


@pytest.mark.parametrize("cls", GAME_TYPES, ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_every_field_of_the_observation_and_action_types_is_documented(cls: type) -> None:
    assert named(cls.__name__), f"docs/SDK.md does not name {cls.__name__}"
    fields = [field.name for field in dataclasses.fields(cls)]
    missing = [field for field in public(fields) if not named(field)]
    assert not missing, f"docs/SDK.md does not name {cls.__name__}.{', .'.join(missing)}"


@pytest.mark.parametrize("enum", ENUMS, ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_every_enum_value_is_documented(enum: type[Enum]) -> None:
    assert named(enum.__name__)
    missing = [member.name for member in enum if not named(f"{enum.__name__}.{member.name}")]
    assert not missing, f"docs/SDK.md does not list {enum.__name__}.{', .'.join(missing)}"


def test_the_examples_are_python() -> None:
    assert BLOCKS
    for block in BLOCKS:
        # Fragments of decide() may return at top level: parse them inside a function.
        ast.parse(
            "def decide(decision):\n" + "".join(f"    {line}\n" for line in block.splitlines())
        )


def test_the_readme_links_to_the_page() -> None:
    readme = (PAGE.parent.parent / "README.md").read_text(encoding="utf-8")
    writing = readme[readme.index("## Writing a bot") :]
    writing = writing[: writing.index("\n## ", 1)]
    assert "docs/SDK.md" in writing
