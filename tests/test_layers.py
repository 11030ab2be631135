"""The package's dependencies point one way: no import cycle between modules, and no
layer imports one above it (cards -> games -> protocol -> referee -> ladder -> cli)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "arena"

#: Each layer, and the layers above it that it must never import.
ABOVE: dict[str, tuple[str, ...]] = {
    "arena.cards": ("arena.games", "arena.protocol", "arena.referee", "arena.hosting",
                    "arena.plugins", "arena.ladder", "arena.storage", "arena.submissions",
                    "arena.web", "arena.cli"),
    "arena.games": ("arena.protocol", "arena.referee", "arena.hosting", "arena.plugins",
                    "arena.ladder", "arena.storage", "arena.submissions", "arena.web", "arena.cli"),
    "arena.protocol": ("arena.referee", "arena.plugins", "arena.ladder", "arena.storage",
                       "arena.submissions", "arena.web", "arena.cli"),
    "arena.referee": ("arena.ladder", "arena.storage", "arena.submissions", "arena.web",
                      "arena.cli"),
    "arena.replays": ("arena.ladder", "arena.storage", "arena.submissions", "arena.web",
                      "arena.cli"),
    "arena.storage": ("arena.ladder", "arena.submissions", "arena.web", "arena.cli"),
    "arena.ladder": ("arena.web", "arena.cli"),
    "arena.submissions": ("arena.web", "arena.cli"),  # the web pages use the service
    "arena.web": ("arena.cli",),
}  # fmt: skip


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    modules = {
        _module_name(path): path for path in ROOT.rglob("*.py") if "proto" not in path.parts[-2:]
    }
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package this module is in
                    base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")  # fmt: skip
                if not base.startswith("arena"):
                    continue
                for alias in node.names:  # ``from package import module`` names a module
                    deps.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
            elif isinstance(node, ast.Import):
                deps |= {alias.name for alias in node.names if alias.name.startswith("arena.")}
        graph[name] = {dep for dep in deps if dep in modules and dep != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in graph[node]:
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_one_that_imports_it_back() -> None:
    # A package's __init__ importing its own modules is not a cycle of concepts.
    graph = {
        name: {dep for dep in deps if not name.startswith(dep + ".")}
        for name, deps in _graph().items()
    }
    assert _cycles(graph) == []


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_no_layer_imports_a_layer_above_it(layer: str) -> None:
    wrong = sorted(
        f"{name} imports {dep}"
        for name, deps in _graph().items()
        if name == layer or name.startswith(layer + ".")
        for dep in deps
        if dep.startswith(ABOVE[layer])
    )
    assert wrong == []
