"""Which ``arena`` a benchmark measures: the source, or the compiled copy."""

from __future__ import annotations

from pathlib import Path

from arena.games.gin_rummy import hand


def flavour() -> str:
    """Pure Python, or the copy with mypyc-compiled modules (``PYTHONPATH=build/compiled``)?"""
    origin = Path(hand.__file__ or "")
    if origin.suffix == ".py":
        return "pure Python"
    return f"hot modules compiled by mypyc ({origin.parents[3]})"
