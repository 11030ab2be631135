"""docs/RULES.md is the reference the fault messages point to: every rule text an
engine puts in an error appears there, and the repository points nowhere outside."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from arena.games.gin_rummy import PRESETS as GIN_PRESETS
from arena.games.gin_rummy import GinRules
from arena.games.rummy import PRESETS as RUMMY_PRESETS
from arena.games.rummy import RummyRules

ROOT = Path(__file__).resolve().parents[1]
RULES = (ROOT / "docs" / "RULES.md").read_text()
# Where the engines and the protocol conversions name the rule an action broke.
SOURCES = [
    *sorted((ROOT / "arena" / "games").rglob("*.py")),
    ROOT / "arena" / "protocol" / "gin.py",
    ROOT / "arena" / "protocol" / "rummy.py",
]
# A rule text: a string literal starting "rule N", "rules N-M", "first turn:", ...
RULE_TEXT = re.compile(
    r'"((?:rules? \d[\d/-]*|first turn|last-discard variant|turn order): [^"]+)"'
    r'(?:\s*"([^"]+)")?'
)


def rule_texts() -> set[str]:
    found: set[str] = set()
    for path in SOURCES:
        for first, continued in RULE_TEXT.findall(path.read_text()):
            found.add(first + continued)
    return found


def test_every_rule_text_in_a_fault_message_is_in_the_reference() -> None:
    texts = rule_texts()
    assert len(texts) >= 20, texts  # the search itself still finds them
    missing = sorted(text for text in texts if f"`{text}`" not in RULES)
    assert missing == [], f"rule texts not in docs/RULES.md: {missing}"


def test_every_preset_and_parameter_is_documented() -> None:
    for key in GIN_PRESETS:
        assert f"`gin-rummy/{key}`" in RULES
    for key in RUMMY_PRESETS:
        assert f"`rummy/{key}`" in RULES
    for rules_type in (GinRules, RummyRules):
        for name in rules_type.__dataclass_fields__:
            if name != "name":
                assert f"`{name}`" in RULES, f"{rules_type.__name__}.{name} is not in docs/RULES.md"


@pytest.mark.slow
def test_nothing_in_the_repository_points_outside_it() -> None:
    """The rules ship with the project: no document or source refers to ../shared."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    offenders = [
        name
        for name in tracked
        if (ROOT / name).is_file()
        and name != "tests/test_rules_doc.py"
        and "../shared" in (ROOT / name).read_text(errors="replace")
    ]
    assert offenders == []
    assert "(docs/RULES.md)" in (ROOT / "README.md").read_text()
