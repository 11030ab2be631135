"""The long fuzzing run: at least 10,000 fuzzed replies through a real gRPC connection.

Run:  python benchmarks/bench_fuzz.py [--cases N] [--seed S]

A bot server in this process (``arena.testing.fuzz.FuzzBot``, on a Unix socket)
answers the referee's decision requests with what hypothesis draws: random bytes,
valid replies, and valid replies mutated (index or request id shifted, bytes
flipped, inserted, deleted or cut, sent more than once).  Each match is a single
hand against ``random`` under the fault policy ``random:1000000``, so that
non-fatal faults keep it going.  The table counts the verdicts by status; exceptions
that escaped the referee and verdicts other than the bytes call for must be 0
(exit status 1 otherwise).  ``make test`` runs a short version
(tests/referee/test_fuzz_protocol.py).
"""

from __future__ import annotations

import argparse
import sys
import time

from hypothesis import HealthCheck, Phase, given, seed, settings

from arena.games.registry import find_game
from arena.hosting.connection import GrpcConnection
from arena.testing.fuzz import OK, FuzzBot, FuzzStats, Recipe, fuzz_matches, scripts

_BATCH = 200  # hypothesis examples (matches) per round


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000, help="fuzzed replies, at least")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis seed of the first round")
    args = parser.parse_args()
    spec = find_game("gin-rummy/standard")
    stats = FuzzStats()
    started = time.perf_counter()
    with FuzzBot() as bot:
        connection = GrpcConnection(bot.address, "fuzz")
        connection.wait_ready(10)
        round_number = 0
        while stats.cases < args.cases:

            @seed(args.seed + round_number)
            @settings(
                max_examples=_BATCH,
                deadline=None,
                database=None,
                phases=[Phase.generate],  # count cases, do not shrink: failures are listed
                suppress_health_check=list(HealthCheck),
            )
            @given(script=scripts())
            def play(script: list[Recipe]) -> None:
                fuzz_matches(bot, connection, spec, [script], stats, seed=stats.matches)

            play()
            round_number += 1
            print(f"  {stats.cases} cases, {stats.matches} matches", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    faults = sum(n for verdict, n in stats.verdicts.items() if verdict != OK)
    rows = [
        ("fuzzed replies (cases)", f"{stats.cases:,}"),
        ("matches (one hand each)", f"{stats.matches:,}"),
        ("accepted (ok)", f"{stats.verdicts[OK]:,}"),
        ("faults", f"{faults:,}"),
        *(
            (f"  {verdict}", f"{n:,}")
            for verdict, n in sorted(stats.verdicts.items())
            if verdict != OK
        ),
        ("exceptions escaped the referee (must be 0)", f"{len(stats.escaped)}"),
        ("verdicts not as the bytes call for (must be 0)", f"{len(stats.wrong)}"),
        ("cases per second", f"{stats.cases / elapsed:,.0f}"),
        ("seconds", f"{elapsed:,.1f}"),
    ]
    width = max(len(what) for what, _ in rows)
    print(f"| {'fuzzing the referee over gRPC':<{width}} | value |")
    print(f"|{'-' * (width + 2)}|-------|")
    for what, value in rows:
        print(f"| {what:<{width}} | {value} |")
    for problem in [*stats.escaped, *stats.wrong][:20]:
        print(f"problem: {problem[:400]}")
    return 1 if stats.escaped or stats.wrong else 0


if __name__ == "__main__":
    sys.exit(main())
