"""``arena bots``: every bot the arena can find, where it came from, what it plays."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from arena.cli.common import add_plugin_options, plugins_from_args
from arena.hosting.errors import ManifestError
from arena.hosting.manifest import load_manifest

__all__ = ["register"]


def register(commands: Any) -> None:
    parser = commands.add_parser("bots", help="list the bots found (plugins, manifests)")
    parser.add_argument(
        "--manifests",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also list the *.toml manifests in DIR",
    )
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
    for folder in args.manifests:
        if not folder.is_dir():
            raise ManifestError(f"{folder}: not a folder of manifests")
        for path in sorted(folder.glob("*.toml")):
            try:
                command = load_manifest(path)
            except ManifestError as error:
                problems.append(str(error))
                continue
            rows.append(
                {
                    "name": command.name,
                    "source": f"manifest {path}",
                    "games": ["(asks the bot)"],
                    "description": " ".join(command.argv),
                }
            )
    if args.json:
        print(json.dumps({"bots": rows, "problems": problems}))
        return 0
    width = max([len(row["name"]) for row in rows] + [4])
    source_width = max([len(row["source"]) for row in rows] + [6])
    print(f"{'name':<{width}}  {'source':<{source_width}}  games")
    for row in rows:
        print(f"{row['name']:<{width}}  {row['source']:<{source_width}}  {', '.join(row['games'])}")
    for problem in problems:
        print(f"problem: {problem}")
    return 0
