"""``arena doctor``: what each sandbox level guarantees on this host, and the level
strangers' bots get (:mod:`arena.hosting.host`).  Exit 0 when a level fit for
strangers exists, 1 when none does."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.hosting.errors import HostingError
from arena.hosting.host import FIT_FOR_STRANGERS, Guarantee, HostSandbox, probe_host
from arena.hosting.sandbox import SandboxLevel, bwrap_binary

__all__ = ["register"]

_LEVELS = (SandboxLevel.NONE, SandboxLevel.LIMITS, SandboxLevel.BWRAP)


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "doctor",
        help="what each sandbox level guarantees on this host, and what strangers' bots get",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    host = probe_host()
    try:
        strangers: SandboxLevel | None = host.strangers_level()
        refusal = None
    except HostingError as error:
        strangers, refusal = None, str(error)
    if args.json:
        print(json.dumps(_as_json(host, strangers, refusal), indent=2))
    else:
        _print(host, strangers, refusal)
    return 0 if strangers is not None else 1


def _print(host: HostSandbox, strangers: SandboxLevel | None, refusal: str | None) -> None:
    print("This host:")
    print(
        f"  running as   {'root (bots get uids of their own)' if host.root else 'an ordinary user'}"
    )
    bwrap = "runs" if host.bwrap_problem is None else f"no: {host.bwrap_problem}"
    print(f"  bwrap        {bwrap} ({bwrap_binary() or 'not found'})")
    landlock = f"ABI {host.landlock_abi}" if host.landlock_abi else "not offered by this kernel"
    print(f"  Landlock     {landlock}")
    print(
        f"  seccomp      {'a filter for this architecture' if host.seccomp else 'no filter here'}"
    )
    print(f"  cgroups      {host.cgroups} (not used)")
    print()
    for level in _LEVELS:
        rows = host.guarantees(level)
        fit = "fit for strangers" if host.fit(level) else "not fit for strangers"
        print(f"{level.value} ({fit}):")
        for guarantee in Guarantee:
            row = rows[guarantee]
            needed = "*" if guarantee in FIT_FOR_STRANGERS else " "
            print(f"  {needed}{guarantee.value:<12} {'yes' if row.held else 'no ':<4} {row.how}")
        print()
    print("(* what a level must hold to run strangers' bots)")
    if strangers is not None:
        print(
            f"Strangers' bots (submitted, or a ladder's untrusted = true) run at: {strangers.value}"
        )
    else:
        print(f"Strangers' bots cannot run here: {refusal}")
    advice = host.advice()
    if advice:
        print("To get more:")
        for line in advice:
            print(f"  - {line}")


def _as_json(
    host: HostSandbox, strangers: SandboxLevel | None, refusal: str | None
) -> dict[str, object]:
    return {
        "root": host.root,
        "bwrap": {"binary": bwrap_binary(), "problem": host.bwrap_problem},
        "landlock_abi": host.landlock_abi,
        "seccomp": host.seccomp,
        "cgroups": host.cgroups,
        "levels": {
            level.value: {
                "fit_for_strangers": host.fit(level),
                "guarantees": {
                    g.value: {"held": row.held, "how": row.how}
                    for g, row in host.guarantees(level).items()
                },
            }
            for level in _LEVELS
        },
        "strangers_level": strangers.value if strangers is not None else None,
        "refusal": refusal,
        "advice": host.advice(),
    }
