"""Start-up of the CLI and of bots until they play, per bot kind and sandbox level:
this checkout against an earlier commit (default: the one before seats started
together).

    python benchmarks/bench_startup.py [--base-commit REV] [--rounds N]

Two measures.  "Ready": one bot until it can play (the process started in its
sandbox, its health service SERVING, the protocol handshake done).  "First
decision": two seats of that bot asked for, until the first decision of a hand
between them is answered: what a match waits for before it starts playing, where
starting the seats together (rather than one after the other) shows.  The earlier
commit's ``arena/`` is taken out with ``git archive`` into a temporary folder; each
side runs in its own worker process, taking turns round after round (the order flips
every round), so a noisy spell on this shared machine hits both alike.  Each worker
measures three times a round and reports the median; the table shows every round's
ratio (now / base) and their median.  Kinds: a registered Python bot (``random``,
served by ``python -m arena.plugins.serve_bot``) and the Node.js starter kit's
manifest (where node and its packages are installed).  ``--base-commit c708a11``
measures the sandbox's cost instead (target: at most 100 ms more per bot).

First, the commands a user waits on before anything happens, wall time, both
checkouts in turn: ``arena --help`` and ``import arena.cli.main`` (target: under
150 ms), a registered bot's imports, and ``python -c pass`` as the floor.
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
import tempfile
import time
from pathlib import Path

from checkouts import checkout, compiled

HERE = Path(__file__).resolve().parent
TOP = HERE.parent
DEFAULT_BASE = "9eb09b1"  # main before seats started together (c708a11: before the sandbox)

_WORKER = r"""
import json, statistics, sys, tempfile, time
from pathlib import Path
from arena.hosting.launcher import LaunchSettings
from arena.plugins import load_plugins
from arena.plugins.bot_references import host_bots
from arena.referee.match import MatchConfig, Seat, play_match
level, reference, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
plugins = load_plugins((), autoload=False)
spec = plugins.game("gin-rummy/standard")

class FirstDecision:
    def __init__(self):
        self.at = None
    def on_record(self, record):
        if record["type"] == "action" and self.at is None:
            self.at = time.perf_counter()
    def close(self):
        pass

def start(seats):
    # A generous start-up limit: on a loaded machine a bwrap bot can take over 10 s.
    # Seconds from asking for the bots to (ready, first decision of a match between them).
    with tempfile.TemporaryDirectory() as run:
        started = time.perf_counter()
        bots = host_bots([reference] * seats, LaunchSettings(sandbox=level, run_dir=Path(run), startup_seconds=60), plugins, (), False)
        ready = time.perf_counter() - started
        try:
            faults = [bot.start_fault for bot in bots if bot.start_fault is not None]
            if faults:
                sys.exit(f"{reference} at {level}: {faults[0]}")
            first = FirstDecision()
            if seats > 1:
                config = MatchConfig(spec, games=1, seed=1, hands_only=True)
                play_match(config, [Seat(b.connection, b.name) for b in bots], [first])
        finally:
            for bot in bots:
                bot.close()
    return ready, (first.at - started if first.at else float("nan"))

ready = [start(1)[0] for _ in range(count)]
first = [start(2)[1] for _ in range(count)]
print(json.dumps([statistics.median(ready), statistics.median(first)]))
"""


def measure(
    pythonpath: Path, level: str, reference: str, env: dict[str, str]
) -> tuple[float, float]:
    """Milliseconds: (one bot until ready, two seats until a match's first decision)."""
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
        return math.nan, math.nan
    ready, first = json.loads(result.stdout)
    return ready * 1000, first * 1000


# Commands whose wall time a user waits for before anything else happens.
_COMMANDS = {
    "python -c pass (the floor)": ["-c", "pass"],
    "arena --help": ["-m", "arena.cli.main", "--help"],
    "import arena.cli.main": ["-c", "import arena.cli.main"],
    "a bot's imports (serve_bot)": ["-c", "import arena.plugins.serve_bot"],
}


def command_ms(pythonpath: Path, argv: list[str], env: dict[str, str]) -> float:
    """Median wall milliseconds of 5 runs of ``python argv`` with ``pythonpath``'s arena."""
    times = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, *argv],
            env={**env, "PYTHONPATH": str(pythonpath)},
            cwd=pythonpath,
            capture_output=True,
            check=True,
        )
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def commands(base: Path, rounds: int, env: dict[str, str]) -> None:
    """The command table: each command with both checkouts, round after round."""
    print(
        f"{'command (wall ms, median of 5)':<34}{'base':>8}{'now':>8}{'now/base':>10}"
        "  every round's now/base (target for arena --help and the import: 150 ms)"
    )
    for label, argv in _COMMANDS.items():
        pairs = []
        for round_number in range(rounds):
            sides = [base, TOP] if round_number % 2 == 0 else [TOP, base]
            got = {side: command_ms(side, argv, env) for side in sides}
            pairs.append((got[base], got[TOP]))
        ratios = [now / old for old, now in pairs]
        print(
            f"{label:<34}{statistics.median(p[0] for p in pairs):>8.0f}"
            f"{statistics.median(p[1] for p in pairs):>8.0f}{statistics.median(ratios):>10.2f}"
            f"  {' '.join(f'{r:.2f}' for r in ratios)}",
            flush=True,
        )


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
    compiled(TOP)
    with tempfile.TemporaryDirectory() as scratch:
        base = checkout(args.base_commit, Path(scratch))
        commands(base, args.rounds, env)
        print(
            f"start-up, ms: this checkout vs {args.base_commit}, {args.rounds} rounds, median "
            f"of 3 starts each (uid {os.geteuid()}); 'ready': one bot started, serving and "
            "through its handshake; 'first decision': two seats of that bot asked for, until "
            "the first decision of a match between them is answered"
        )
        print(
            f"{'bot':<14}{'level':<8}{'measure':<16}{'base':>8}{'now':>8}{'now/base':>10}"
            "  every round's now/base"
        )
        for kind, reference in kinds.items():
            for level in levels:
                pairs: list[tuple[tuple[float, float], tuple[float, float]]] = []
                for round_number in range(args.rounds):
                    sides = [base, TOP] if round_number % 2 == 0 else [TOP, base]
                    got = {side: measure(side, level, reference, env) for side in sides}
                    pairs.append((got[base], got[TOP]))
                for index, what in enumerate(("ready", "first decision")):
                    ratios = [now[index] / old[index] for old, now in pairs]
                    ratios = [r for r in ratios if not math.isnan(r)]
                    old = statistics.median(p[0][index] for p in pairs)
                    now = statistics.median(p[1][index] for p in pairs)
                    shown = " ".join(f"{r:.2f}" for r in ratios)
                    median = statistics.median(ratios) if ratios else math.nan
                    print(
                        f"{kind:<14}{level:<8}{what:<16}{old:>8.0f}{now:>8.0f}{median:>10.2f}"
                        f"  {shown}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
