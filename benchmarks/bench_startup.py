"""Start-up of a bot until it is ready to play, per bot kind and sandbox level: this
checkout against an earlier commit (default: the one before the untrusted-bots sandbox).

    python benchmarks/bench_startup.py [--base-commit REV] [--rounds N]

"Ready" is what the referee waits for before a match: the process started in its
sandbox, its health service SERVING, the protocol handshake done (the first decision
then costs one round trip, the same on both sides).  The earlier commit's ``arena/``
is taken out with ``git archive`` into a temporary folder; each side runs in its own
worker process, taking turns round after round (the order flips every round), so a
noisy spell on this shared machine hits both alike.  Each worker starts the bot three
times a round and reports the median; the table shows every round's difference
(this checkout minus base) and their median.  Kinds: a registered Python bot
(``random``, served by ``python -m arena.plugins.serve_bot``) and the Node.js starter
kit's manifest (where node and its packages are installed).  Target: the stronger
sandbox costs at most 100 ms more per bot.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = HERE.parent
DEFAULT_BASE = "c708a11"  # main before the untrusted-bots sandbox

_WORKER = r"""
import json, statistics, sys, tempfile, time
from pathlib import Path
from arena.hosting.launcher import LaunchSettings
from arena.plugins import load_plugins
from arena.plugins.hosted import host_bots
level, reference, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
plugins = load_plugins((), autoload=False)
times = []
for _ in range(count):
    with tempfile.TemporaryDirectory() as run:
        started = time.perf_counter()
        bots = host_bots([reference], LaunchSettings(sandbox=level, run_dir=Path(run)), plugins, (), False)
        ready = time.perf_counter() - started
        fault = bots[0].start_fault
        for bot in bots:
            bot.close()
    if fault is not None:
        sys.exit(f"{reference} at {level}: {fault}")
    times.append(ready)
print(json.dumps(statistics.median(times)))
"""


def checkout(commit: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(TOP), "archive", commit, "arena"], capture_output=True, check=True
    ).stdout
    folder = into / f"base-{commit}"
    folder.mkdir()
    with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def measure(pythonpath: Path, level: str, reference: str, env: dict[str, str]) -> float:
    result = subprocess.run(
        [sys.executable, "-c", _WORKER, level, reference, "3"],
        env={**env, "PYTHONPATH": str(pythonpath)},
        cwd=pythonpath,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        print(f"  {pythonpath.name} {level} {reference}: {result.stderr.strip()[-300:]}")
        return math.nan
    return float(json.loads(result.stdout)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-commit", default=DEFAULT_BASE)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(TOP))
    from arena.hosting.sandbox import bwrap_problem

    env = dict(os.environ)
    kinds = {"python bot": "random"}
    js = TOP / "sample_bots" / "js"
    if shutil.which("node") and (js / "node_modules").is_dir():
        kinds["node manifest"] = str(js / "bot.toml")
    levels = ["none", "limits"] + ([] if bwrap_problem() else ["bwrap"])
    with tempfile.TemporaryDirectory() as scratch:
        base = checkout(args.base_commit, Path(scratch))
        print(
            f"start-up until ready, ms: this checkout vs {args.base_commit}, "
            f"{args.rounds} rounds, median of 3 starts each (uid {os.geteuid()})"
        )
        print(
            f"{'bot':<14}{'level':<8}{'base':>8}{'now':>8}{'now-base (median)':>19}  every round's now-base"
        )
        for kind, reference in kinds.items():
            for level in levels:
                pairs = []
                for round_number in range(args.rounds):
                    sides = [base, TOP] if round_number % 2 == 0 else [TOP, base]
                    got = {side: measure(side, level, reference, env) for side in sides}
                    pairs.append((got[base], got[TOP]))
                diffs = [now - old for old, now in pairs if not math.isnan(now - old)]
                old = statistics.median(p[0] for p in pairs)
                now = statistics.median(p[1] for p in pairs)
                shown = " ".join(f"{d:+.0f}" for d in diffs)
                median = statistics.median(diffs) if diffs else math.nan
                print(f"{kind:<14}{level:<8}{old:>8.0f}{now:>8.0f}{median:>+19.0f}  {shown}")


if __name__ == "__main__":
    main()
