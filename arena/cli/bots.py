"""``arena bots``: every bot the arena can find, where it came from, what it plays."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.cli.bot_options import (
    add_manifest_option,
    add_plugin_options,
    manifest_catalog,
    plugins_from_args,
)
from arena.hosting.programs import build_hint

__all__ = ["register"]


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "bots", help="list the bots found (built in, plugins, manifests in --manifests DIR)"
    )
    add_manifest_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_plugin_options(parser)
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    plugins = plugins_from_args(args)
    rows: list[dict[str, Any]] = [
        {
            "name": registration.name,
            "source": "builtin"
            if registration.source == "builtin"
            else f"plugin {registration.source}",
            "games": list(registration.games),
            "description": registration.description,
        }
        for registration in sorted(plugins.bots.values(), key=lambda r: r.name)
    ]
    problems = [str(problem) for problem in plugins.problems]
    catalog = manifest_catalog(args)
    unbuilt: list[tuple[str, str]] = []
    for entry in catalog.entries.values():
        hint = build_hint(entry.command)  # a kit whose program is not built yet
        if hint is not None:
            unbuilt.append((entry.name, hint))
        shadowed = entry.name in plugins.bots  # a registered bot of that name comes first
        rows.append(
            {
                "name": entry.name,
                "source": f"manifest {entry.path}",
                "games": ["(told in its handshake)"],
                "description": " ".join(entry.command.argv),
                "build": hint,
            }
        )
        if shadowed:
            problems.append(
                f"{entry.path}: bot {entry.name!r} is also registered; the name means the registered one"
            )
    problems += catalog.problems
    if args.json:
        print(json.dumps({"bots": rows, "problems": problems}))
        return 0
    width = max([len(row["name"]) for row in rows] + [4])
    source_width = max([len(row["source"]) for row in rows] + [6])
    print(f"{'name':<{width}}  {'source':<{source_width}}  games")
    for row in rows:
        print(f"{row['name']:<{width}}  {row['source']:<{source_width}}  {', '.join(row['games'])}")
    for name, hint in unbuilt:
        print(f"{name} is not built yet: {hint}")
    for problem in problems:
        print(f"problem: {problem}")
    if not catalog.folders:
        print(
            "(manifests: give folders with --manifests DIR or ARENA_MANIFESTS, e.g. --manifests sample_bots)"
        )
    return 0
