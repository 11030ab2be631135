"""Ladders on Dask against the local process pool: throughput and per-match overhead.

Run:  python benchmarks/bench_dask.py [--rounds N] [--repeat R] [--tasks T] [--overhead-only]

1. Matches per minute: the same ladder (three registered bots, round-robin ``--repeat``
   times, duplicate, one game a match, sandbox "none") played by ``run_ladder`` on the
   local process pool (``concurrency = 2``) and on two Dask workers of one thread each
   (a LocalCluster started once, before the rounds, as a deployed cluster would be;
   the pool is started by each run, as ``arena ladder run`` does).  Each round runs
   both, in alternating order, on fresh databases; the ratio is Dask / local, and the
   figure is the median of the per-round ratios.  Target: at least 90%.
2. Per-match overhead: ``--tasks`` trivial tasks one after another through the path a
   match takes (Dask: ``client.submit`` with a key, ``pure=False`` and the admission
   resource, into the worker's process pool and back; local: ``ProcessPoolExecutor``
   submit and result), the difference per task.  Target: under 20 ms.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from distributed import Client, LocalCluster, get_worker

from arena.cli.main import main as arena
from arena.ladder import run_ladder
from arena.ladder.dask_worker import _pool, admit_worker, requirement_resource, worker_profile
from arena.storage import LadderStore

CONFIG = """\
name = "bench"
game = "gin-rummy/standard"
[schedule]
repeat = {repeat}
[match]
games = 1
hands_only = true
[run]
concurrency = 2
sandbox = "none"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
[[bots]]
name = "greedy2"
plugin = "greedy"
"""


def ladder_rate(folder: Path, repeat: int, dask: str | None) -> tuple[float, int]:
    """Matches per minute of one whole run, and the matches played."""
    (folder / "bench.toml").write_text(CONFIG.format(repeat=repeat))
    db = folder / "bench.sqlite"
    assert arena(["ladder", "create", str(folder / "bench.toml"), "--db", str(db)]) == 0
    store = LadderStore.open(db)
    try:
        started = time.perf_counter()
        summary = run_ladder(store, progress=False, dask=dask)
        elapsed = time.perf_counter() - started
    finally:
        store.close()
    return summary.finished / elapsed * 60, summary.finished


def trivial_through_the_pool() -> int:
    """Runs on a Dask worker: a no-op in the worker's process pool, as a match is played."""
    return int(_pool(get_worker()).submit(os.getpid).result())


def dask_overhead(client: Client, resource: str, tasks: int, round_: int) -> float:
    started = time.perf_counter()
    for task in range(tasks):
        future = client.submit(
            trivial_through_the_pool,
            key=f"bench-r{round_}-t{task}",
            pure=False,
            resources={resource: 1},
        )
        future.result()
        future.release()
    return (time.perf_counter() - started) / tasks


def pool_overhead(pool: ProcessPoolExecutor, tasks: int) -> float:
    started = time.perf_counter()
    for _ in range(tasks):
        pool.submit(os.getpid).result()
    return (time.perf_counter() - started) / tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=2, help="round-robin repeats (6 units each)")
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--overhead-only", action="store_true", help="skip the ladders")
    args = parser.parse_args()

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        address = cluster.scheduler_address
        profile = worker_profile((), True)
        resource = requirement_resource(profile, "none")
        client.run(admit_worker, profile, "none", (), True)
        client.submit(trivial_through_the_pool, pure=False, resources={resource: 1}).result()
        print(f"ladder: 3 bots, round-robin x{args.repeat}, duplicate, 1 game a match, "
              f"2 workers each side; Dask at {address}")  # fmt: skip
        print(f"{'round':>5} {'first':>6} {'local/min':>10} {'dask/min':>9} {'ratio':>7}")
        ratios = []
        for round_ in range(0 if args.overhead_only else args.rounds):
            order = ["local", "dask"] if round_ % 2 == 0 else ["dask", "local"]
            rates = {}
            for side in order:
                with tempfile.TemporaryDirectory(prefix="bench-dask-") as folder:
                    rate, _ = ladder_rate(
                        Path(folder), args.repeat, address if side == "dask" else None
                    )
                rates[side] = rate
            ratio = rates["dask"] / rates["local"]
            ratios.append(ratio)
            print(f"{round_ + 1:>5} {order[0]:>6} {rates['local']:>10.1f} {rates['dask']:>9.1f} "
                  f"{ratio:>7.1%}")  # fmt: skip
        if ratios:
            print(f"median ratio (Dask / local): {statistics.median(ratios):.1%} (target >= 90%)")

        print(f"\nper-match overhead: {args.tasks} trivial tasks one after another")
        print(f"{'round':>5} {'local ms':>9} {'dask ms':>8} {'added ms':>9}")
        context = multiprocessing.get_context("spawn")
        added = []
        with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
            pool_overhead(pool, 10)  # start the processes
            for round_ in range(args.rounds):
                local = pool_overhead(pool, args.tasks)
                remote = dask_overhead(client, resource, args.tasks, round_)
                added.append(remote - local)
                print(f"{round_ + 1:>5} {local * 1e3:>9.2f} {remote * 1e3:>8.2f} "
                      f"{(remote - local) * 1e3:>9.2f}")  # fmt: skip
        print(f"median added per match: {statistics.median(added) * 1e3:.2f} ms (target < 20 ms)")


if __name__ == "__main__":
    main()
