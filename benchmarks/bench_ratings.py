"""Rating updates per second, TrueSkill against Weng-Lin (OpenSkill's Plackett-Luce), and
the time ``arena ladder rerate`` takes over a big ladder.

Run:  python benchmarks/bench_ratings.py [--updates 20000] [--matches 100000] [--quick]

Updates: ``--updates`` results of random finishing orders among players with spread
ratings, through each system's ``rate`` as the ladder calls it (2 seats: Gin and 2-seat
Rummy; 6 seats: a full Rummy table), best of three rounds.  Re-rate: a ladder database of
``--matches`` finished 2-seat matches in duplicate pairs (one rating update a pair) over
50 bots, generated with the storage layer's tables, then re-rated by each system with
:func:`arena.storage.rerate.rerate` (the command's engine: read, replay in order, write
the new table, switch).  ``--quick``: 500 updates and 2,000 matches, for the smoke test.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tables import print_table  # benchmarks/tables.py: scripts run from their folder

from arena.ratings import Rating, RatingSystem, rating_system
from arena.storage import LadderStore
from arena.storage.ladder_store import DealSecret
from arena.storage.rerate import rerate

SYSTEMS = ("trueskill", "openskill")


def updates_per_second(system: RatingSystem, seats: int, updates: int, seed: int = 1) -> float:
    """Rating updates a second: ``updates`` random results of ``seats`` players."""
    rng = random.Random(seed)
    pool = [Rating(rng.gauss(25, 5), rng.uniform(1, 25 / 3)) for _ in range(64)]
    cases = []
    for _ in range(updates):
        players = rng.sample(range(len(pool)), seats)
        ranks = [rng.randrange(seats) for _ in range(seats)]  # ties included
        cases.append((players, ranks))
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for players, ranks in cases:
            after = system.rate([pool[p] for p in players], ranks)
            for player, rating in zip(players, after, strict=True):
                pool[player] = rating
        best = min(best, time.perf_counter() - started)
    return updates / best


def generate(path: Path, matches: int, bots: int = 50, seed: int = 1) -> int:
    """A ladder of ``matches`` finished matches in duplicate pairs, each pair rated once
    (its history rows give the order; the numbers in them do not matter to a re-rate
    beyond each bot's first); how many units."""
    rng = random.Random(seed)
    config = {"name": "bench", "game": "gin-rummy/standard"}
    store = LadderStore.create(
        path, "bench", json.dumps(config), None, DealSecret(b"bench", "config")
    )
    names = [f"bot-{index:03d}" for index in range(bots)]
    start = rating_system("trueskill").initial()
    for name in names:
        store.add_bot(name, "random", start)
    store.db.execute("PRAGMA synchronous = OFF")  # a throwaway file
    ids = {row["name"]: row["id"] for row in store.db.execute("SELECT id, name FROM bots")}
    strength = {name: rng.gauss(0, 1) for name in names}
    units, match_rows, seat_rows, history = [], [], [], []
    match_id = 0
    for unit in range(1, matches // 2 + 1):
        pair = rng.sample(names, 2)
        units.append((unit, f"u{unit}", unit, 1))
        totals = dict.fromkeys(pair, 0)
        for seats in (pair, pair[::-1]):
            match_id += 1
            match_rows.append((match_id, unit, json.dumps(seats), "finished", 1, "{}"))
            edge = strength[seats[0]] - strength[seats[1]]
            first = rng.random() < 1 / (1 + 2.718 ** (-edge))
            wins = (2, 0) if first else (0, 2)
            for seat, name in enumerate(seats):
                seat_rows.append((match_id, seat, ids[name], int(wins[seat] == 0), 2, wins[seat], 25 * wins[seat], 0, "ok"))  # fmt: skip
                totals[name] += wins[seat]
        for name in sorted(pair):
            rank = int(totals[name] < max(totals.values()))
            history.append((unit, ids[name], rank, start.mu, start.sigma, start.mu, start.sigma, "t"))  # fmt: skip
    with store.transaction() as db:
        db.executemany("INSERT INTO units (id, key, seed, rated) VALUES (?, ?, ?, ?)", units)
        db.executemany(
            "INSERT INTO matches (id, unit_id, seats, status, attempts, result) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            match_rows,
        )
        db.executemany("INSERT INTO match_seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", seat_rows)
        db.executemany(
            "INSERT INTO rating_history (unit_id, bot_id, rank, mu_before, sigma_before, "
            "mu_after, sigma_after, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            history,
        )
    store.close()
    return len(units)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small workloads (smoke test)")
    parser.add_argument("--updates", type=int, help="updates per case (default 20000; quick 500)")
    parser.add_argument(
        "--matches", type=int, help="matches to re-rate (default 100000; quick 2000)"
    )
    args = parser.parse_args(argv)
    updates = args.updates or (500 if args.quick else 20_000)
    matches = args.matches or (2_000 if args.quick else 100_000)

    rows = []
    speed: dict[tuple[str, int], float] = {}
    for seats in (2, 6):
        for name in SYSTEMS:
            speed[(name, seats)] = updates_per_second(rating_system(name), seats, updates)
        rows.append(
            [
                f"{seats} seats",
                *(f"{speed[(name, seats)]:,.0f}" for name in SYSTEMS),
                f"{speed[('openskill', seats)] / speed[('trueskill', seats)]:.1f}x",
            ]
        )
    print(f"rating updates per second ({updates:,} random results, best of 3)")
    print_table(
        ["line-up", "TrueSkill", "OpenSkill (Plackett-Luce)", "OpenSkill / TrueSkill"], rows
    )
    print()

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.sqlite"
        started = time.perf_counter()
        units = generate(db, matches)
        made = time.perf_counter() - started
        timing = []
        for name in SYSTEMS:
            store = LadderStore.open(db)
            try:
                started = time.perf_counter()
                summary = rerate(store, rating_system(name))
                seconds = time.perf_counter() - started
            finally:
                store.close()
            assert summary.units == units
            timing.append([name, f"{seconds:.2f}", f"{units / seconds:,.0f}"])
        size = db.stat().st_size
    print(
        f"re-rate {matches:,} recorded matches ({units:,} rating updates, 50 bots; "
        f"database {size / 1e6:.0f} MB, generated in {made:.1f} s)"
    )
    print_table(["system", "seconds", "updates per second"], timing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
