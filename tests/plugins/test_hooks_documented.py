"""docs/PLUGINS.md names every hook, each parameter and the type it is given, and every
field of the context a hook gets: the plugin contract cannot change unannounced."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from types import FunctionType

import pytest

from arena.plugins import hookspecs
from arena.plugins.registrations import MatchContext

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "PLUGINS.md").read_text()
HOOKS = [
    value
    for name, value in vars(hookspecs).items()
    if name.startswith("arena_") and inspect.isfunction(value)
]


def test_there_are_hooks_to_document() -> None:
    assert len(HOOKS) >= 7


@pytest.mark.parametrize("hook", HOOKS, ids=[hook.__name__ for hook in HOOKS])
def test_each_hook_is_documented_with_its_parameters_and_types(hook: FunctionType) -> None:
    assert callable(hook)
    signature = inspect.signature(hook)
    call = f"`{hook.__name__}({', '.join(signature.parameters)})`"
    assert call in PAGE, f"docs/PLUGINS.md lacks {call}"
    for parameter in signature.parameters.values():
        annotation = str(parameter.annotation)  # a string: hookspecs postpones annotations
        assert f"`{annotation}`" in PAGE, f"{call}: the type {annotation} is not named"


def test_every_context_field_is_documented() -> None:
    for field in dataclasses.fields(MatchContext):
        assert f"`{field.name}`" in PAGE, f"MatchContext.{field.name} is not documented"
