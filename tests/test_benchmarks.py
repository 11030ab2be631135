"""The benchmarks still run: each quick one, on a tiny workload, ends with its table.

A benchmark is not imported by anything else, so nothing else notices when the code
under it changes: ``bench_web.py`` crashed on ``LadderStore.create``'s new argument
for a whole issue before this test.  No figure is checked here (figures belong to
``make bench``).  Left out for time, each over 25 s even at its smallest:
``bench_protocol``, ``bench_strong``, ``bench_startup``, ``bench_throughput`` and
``bench_dask``; ``bench_ab`` needs a second checkout.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test here starts processes or servers

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

QUICK = [
    ("bench_engine.py", ["--quick"], "min deadwood, 10 cards"),
    ("bench_rummy.py", ["--quick"], "jokers             6"),
    ("bench_fuzz.py", ["--cases", "20"], "exceptions escaped the referee (must be 0)     | 0 |"),
    ("bench_web.py", ["--bots", "4", "--matches", "20", "--requests", "5"], "without the v2"),
    ("bench_ladder.py", ["--quick"], "continuous / round-robin"),
    ("bench_jail.py", ["--quick"], "Python bot, ready: ms to start"),
    ("bench_service.py", ["--quick"], "with 20 API readers"),
    ("bench_cold_ladder.py", ["--quick"], "CPU kit / bare"),
    (
        "bench_race.py",
        ["--deals", "4", "--policies", "simple,search-prior,search,peek-2"],
        "races won vs openspiel-simple",
    ),
]


@pytest.mark.parametrize(("script", "args", "last_table"), QUICK, ids=[q[0] for q in QUICK])
def test_a_quick_benchmark_runs_to_its_table(
    script: str, args: list[str], last_table: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        cwd=tmp_path,  # whatever it writes stays out of the checkout
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert last_table in done.stdout, done.stdout[-3000:]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--policies", "simple,peek-9"], "unknown policy peek-9: choose from openspiel-simple"),
        (["--deals", "0"], "--deals: must be 1 or more, got 0"),
    ],
)
def test_the_race_benchmark_refuses_bad_arguments_before_any_deal(
    args: list[str], message: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_race.py"), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Solitaire races" not in done.stdout
