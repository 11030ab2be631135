"""What the jail costs a bot's start: Landlock ``limits`` and ``bwrap`` against ``none``.

    python benchmarks/bench_jail.py [--rounds N] [--quick]

Each round starts the same program once at each level, in a shuffled order (so a noisy
spell on this shared machine hits every level alike), and times ``BotProcess.start``
until the process has exited: the launcher, the jail, the exec and the program.  The
table shows each round's extra milliseconds over ``none`` (which, under a root
referee, already runs the launcher to drop to the seat's uid) and their median.
Levels: ``limits, no jail`` is ``limits`` as it was before Landlock (rlimits and the
uid only: Landlock and the seccomp filter switched off), so ``limits`` minus it is
what the jail itself adds.  Programs: ``/bin/true`` (the launch alone), and a Python
bot that serves gRPC until its health service answers (``ready``: what a match waits
for).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

from arena.hosting import BotCommand, BotProcess, SandboxLevel
from arena.hosting import sandbox as sandbox_module
from arena.hosting.host import probe_host

HERE = Path(__file__).resolve().parent
HEALTHY = HERE.parent / "tests" / "hosting" / "bots" / "healthy.py"


@contextmanager
def without_jail() -> Iterator[None]:
    """``limits`` as before the jail: no Landlock rules, no seccomp filter."""
    saved_abi, saved_filter = sandbox_module.landlock_abi, sandbox_module.filter_program
    # A plain function in place of the cached one, for the benchmark's duration.
    sandbox_module.landlock_abi = lambda: 0  # type: ignore[assignment]
    sandbox_module.filter_program = lambda **_: None
    try:
        yield
    finally:
        sandbox_module.landlock_abi, sandbox_module.filter_program = saved_abi, saved_filter


def time_start(command: BotCommand, level: SandboxLevel, run_dir: Path, ready: bool) -> float:
    started = time.perf_counter()
    bot = BotProcess.start(command, level, run_dir)
    try:
        if ready:
            bot.wait_ready(timeout=30)
        else:
            while bot.returncode() is None:
                time.sleep(0.0005)
        took = time.perf_counter() - started
        if not ready and bot.returncode() != 0:
            raise SystemExit(f"{level.value}: exited {bot.returncode()}: {bot.stderr_tail()}")
    finally:
        bot.kill(grace=0.0)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="3 rounds, for the smoke test")
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    host = probe_host()
    variants: list[tuple[str, SandboxLevel, Callable[[], AbstractContextManager[None]]]] = [
        ("none", SandboxLevel.NONE, nullcontext),
        ("limits, no jail", SandboxLevel.LIMITS, without_jail),
        ("limits", SandboxLevel.LIMITS, nullcontext),
    ]
    if host.bwrap_problem is None:
        variants.append(("bwrap", SandboxLevel.BWRAP, nullcontext))
    print(
        f"host: Landlock ABI {host.landlock_abi}, bwrap {'runs' if host.bwrap_problem is None else 'absent'}, "
        f"{'root' if host.root else 'an ordinary user'}; {rounds} rounds, order shuffled each round"
    )
    programs = [
        ("/bin/true", BotCommand("true", ("/bin/true",)), False),
        ("Python bot, ready", BotCommand("healthy", (sys.executable, str(HEALTHY)),
                                          read_only_paths=(HEALTHY.parent, Path(sys.prefix))), True),
    ]  # fmt: skip
    shuffle = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="bench-jail-") as folder:
        run_dir = Path(folder)
        for label, command, ready in programs:
            times: dict[str, list[float]] = {name: [] for name, _, _ in variants}
            for _ in range(rounds):
                order = list(variants)
                shuffle.shuffle(order)
                for name, level, context in order:
                    with context():
                        times[name].append(time_start(command, level, run_dir, ready))
            print()
            print(f"{label}: ms to start, and extra ms over none, per round")
            header = "| level | median ms | extra over none (median) | every round's extra |"
            print(header)
            print("|---|---|---|---|")
            for name, _, _ in variants:
                extra = [1000 * (t - n) for t, n in zip(times[name], times["none"], strict=True)]
                rounds_text = " ".join(f"{value:+.1f}" for value in extra)
                print(
                    f"| {name} | {1000 * statistics.median(times[name]):.1f} "
                    f"| {statistics.median(extra):+.1f} | {rounds_text} |"
                )


if __name__ == "__main__":
    main()
