"""benchmarks/bench_ratings.py still runs (``make bench`` runs it in full): its quick
mode, on a tiny workload, ends with its re-rate table.  No figure is checked here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_ratings.py"


@pytest.mark.slow  # a subprocess
def test_the_quick_rating_benchmark_runs_to_its_table(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARK), "--quick"],
        cwd=tmp_path,  # whatever it writes stays out of the checkout
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rating updates per second" in done.stdout
    assert "| openskill |" in done.stdout.splitlines()[-1]
