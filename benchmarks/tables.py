"""The Markdown table every benchmark prints (``make bench``)."""

from __future__ import annotations

from collections.abc import Sequence


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """``header`` and ``rows`` as a Markdown table, each column as wide as its widest cell."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
