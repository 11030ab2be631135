"""Server time of the web view's leaderboard and bot pages on a big ladder (target: 50 ms).

Run:  python benchmarks/bench_web.py [--bots 1000] [--matches 100000] [--requests 200]

Generates a ladder database of ``--bots`` bots and ``--matches`` finished Gin matches
(duplicate pairs, results in the shape the referee writes, a rating update per pair)
through the storage layer: ``LadderStore.create`` and ``add_bot``, then the match rows in
one transaction on the store's connection (recording 100,000 matches one by one, each
durable, would take most of an hour).  Then it requests each page in turn, in-process
through the ASGI app (routing, middleware, SQLite, templates or JSON; no socket), and
prints the median and 95th percentile per page against the target.  Bot pages ask for
a different bot each time.  The same pages are timed on a copy of the database without
the schema's version 2 indexes, which is what they are for.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ratings import DEFAULT_ENV
from arena.storage import LadderStore
from arena.storage.ladder_store import DealSecret
from arena.web import create_app, open_ladders
from arena.web.ladders import LadderSet

TARGET_MS = 50.0


def generate(path: Path, bots: int, matches: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    config = {"name": "bench", "game": "gin-rummy/standard"}
    # A throwaway ladder: its matches are written here, never dealt, so the secret is moot.
    store = LadderStore.create(
        path, "bench", json.dumps(config), None, DealSecret(b"bench", "config")
    )
    names = [f"bot-{index:04d}" for index in range(bots)]
    for name in names:
        store.add_bot(name, "random", DEFAULT_ENV.initial())
    store.db.execute("PRAGMA synchronous = OFF")  # a throwaway file
    strength = {name: rng.gauss(25, 8) for name in names}
    mu = {name: 25.0 for name in names}
    sigma = {name: 25 / 3 for name in names}
    ids = {row["name"]: row["id"] for row in store.db.execute("SELECT id, name FROM bots")}
    totals = {
        name: [0, 0, 0, 0, 0, 0, 0] for name in names
    }  # matches wins draws games gw points faults
    clock = 1_750_000_000.0
    match_id = 0
    unit_rows, match_rows, seat_rows, history_rows = [], [], [], []
    for unit in range(1, matches // 2 + 1):
        a, b = rng.sample(names, 2)
        unit_rows.append((unit, f"cont:{unit}", rng.getrandbits(62)))
        unit_wins = {a: 0, b: 0}
        for seats in ((a, b), (b, a)):
            match_id += 1
            clock += 2.0
            wins = [0, 0]
            points = [0, 0]
            games = []
            for game in range(3):
                edge = strength[seats[0]] - strength[seats[1]]
                winner = 0 if rng.random() < 1 / (1 + 10 ** (-edge / 20)) else 1
                wins[winner] += 1
                score = [0, 0]
                score[winner] = 100 + rng.randrange(80)
                points[0] += score[0]
                points[1] += score[1]
                games.append({"game": game, "seed": rng.getrandbits(60), "scores": score,
                              "ranks": [1 - winner, winner] if winner else [0, 1],
                              "winner": winner, "reason": "target", "hands": rng.randrange(3, 9)})  # fmt: skip
            faults = [int(rng.random() < 0.002), 0]
            result: dict[str, Any] = {
                "match_id": f"m{match_id}-a1", "game_id": "gin-rummy/standard",
                "seed": rng.getrandbits(60), "games": 3, "fault_policy": "forfeit",
                "bots": [
                    {"name": name, "version": "1.0", "seat": seat, "wins": wins[seat],
                     "losses": 3 - wins[seat], "draws": 0, "points": points[seat],
                     "faults": faults[seat], "status": "timeout" if faults[seat] else "ok",
                     "sandbox": "bwrap", "decisions": 120, "mean_decision_ms": 1.2}
                    for seat, name in enumerate(seats)
                ],
                "results": games,
                "faults": [{"seat": 0, "status": "timeout", "reason": "no reply within 1000 ms",
                            "game": 1, "hand": 2, "consequence": "forfeit"}] if faults[0] else [],
                "replay": None,
            }  # fmt: skip
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(clock))
            match_rows.append(
                (match_id, unit, json.dumps(list(seats)), "finished", 1, stamp, stamp, None,
                 json.dumps(result))
            )  # fmt: skip
            ranks = [0, 1] if wins[0] > wins[1] else [1, 0]
            for seat, name in enumerate(seats):
                seat_rows.append((match_id, seat, ids[name], ranks[seat], 3, wins[seat],
                                  points[seat], faults[seat], result["bots"][seat]["status"]))  # fmt: skip
                total = totals[name]
                total[0] += 1
                total[1] += ranks[seat] == 0
                total[3] += 3
                total[4] += wins[seat]
                total[5] += points[seat]
                total[6] += faults[seat]
                unit_wins[name] += wins[seat]
        # A rating update that looks like TrueSkill's: the winner up, both less unsure.
        unit_winner = a if unit_wins[a] >= unit_wins[b] else b
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(clock))
        for name in sorted((a, b)):
            before = (mu[name], sigma[name])
            step = sigma[name] ** 2 / 40
            mu[name] += step if name == unit_winner else -step
            sigma[name] = max(0.8, sigma[name] * 0.985)
            history_rows.append((unit, ids[name], int(name != unit_winner), *before, mu[name],
                                 sigma[name], stamp))  # fmt: skip
    with store.transaction() as db:
        db.executemany("INSERT INTO units (id, key, seed, rated) VALUES (?, ?, ?, 1)", unit_rows)
        db.executemany(
            "INSERT INTO matches (id, unit_id, seats, status, attempts, started, finished, replay, "
            "result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            match_rows,
        )
        db.executemany("INSERT INTO match_seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", seat_rows)
        db.executemany(
            "INSERT INTO rating_history (unit_id, bot_id, rank, mu_before, sigma_before, mu_after, "
            "sigma_after, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            history_rows,
        )
        for name in names:
            m, w, d, g, gw, p, f = totals[name]
            status = "active" if rng.random() > 0.02 else rng.choice(["suspended", "disabled"])
            db.execute(
                "UPDATE bots SET mu = ?, sigma = ?, matches = ?, wins = ?, draws = ?, games = ?, "
                "game_wins = ?, points = ?, faults = ?, status = ? WHERE name = ?",
                (mu[name], sigma[name], m, w, d, g, gw, p, f, status, name),
            )
    store.db.execute("ANALYZE")
    store.close()


def without_indexes(source: Path, target: Path) -> None:
    shutil.copy(source, target)
    with sqlite3.connect(target) as db:
        for index in ("match_seats_bot", "rating_history_bot", "matches_finished"):
            db.execute(f"DROP INDEX {index}")
        db.execute("ANALYZE")


async def measure(
    ladders: LadderSet, bots: list[str], requests: int, seed: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    app = create_app(ladders)
    rng = random.Random(seed)
    pages: dict[str, Any] = {
        "leaderboard page /": lambda: "/",
        "leaderboard JSON /api/leaderboard": lambda: "/api/leaderboard",
        "bot page /bots/NAME": lambda: f"/bots/{rng.choice(bots)}",
        "bot JSON /api/bots/NAME": lambda: f"/api/bots/{rng.choice(bots)}",
    }
    times: dict[str, list[float]] = {name: [] for name in pages}
    cpu: dict[str, list[float]] = {name: [] for name in pages}
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://bench") as client:
        for url in pages.values():  # warm up: imports, template compilation
            await client.get(url())
        for _ in range(requests):
            for name, url in pages.items():  # interleaved, so load spikes hit every page
                started, started_cpu = time.perf_counter(), time.process_time()
                response = await client.get(url())
                times[name].append((time.perf_counter() - started) * 1000)
                cpu[name].append((time.process_time() - started_cpu) * 1000)
                if response.status_code != 200:
                    raise SystemExit(f"{name}: HTTP {response.status_code}")
    return times, cpu


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200, help="per page")
    parser.add_argument("--no-baseline", action="store_true", help="skip the run without indexes")
    parser.add_argument(
        "--keep", type=Path, help="generate into this file, or reuse it if it exists"
    )
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = options.keep or Path(folder) / "bench.sqlite"
        if not path.exists():
            started = time.perf_counter()
            generate(path, options.bots, options.matches)
            size = path.stat().st_size / 1e6
            print(
                f"generated {options.bots} bots, {options.matches} matches ({size:.0f} MB) "
                f"in {time.perf_counter() - started:.1f} s"
            )
        ladders = open_ladders([path])
        bots = [f"bot-{index:04d}" for index in range(options.bots)]
        runs = [("schema v2 (indexed)", ladders)]
        if not options.no_baseline:
            bare = Path(folder) / "bare.sqlite"
            without_indexes(path, bare)
            # Bypass open_ladders, which would add the indexes back.
            runs.append(
                ("without the v2 indexes", LadderSet((replace(ladders.default, path=bare),)))
            )
        print(
            f"\n{'page':<36}{'database':<24}{'wall median':>12}{'p95':>8}{'CPU median':>12}"
            f"{'p95':>8}  (ms; target {TARGET_MS:.0f} ms)"
        )
        for label, subject in runs:
            requests = options.requests if subject is ladders else max(5, options.requests // 20)
            times, cpu = asyncio.run(measure(subject, bots, requests, seed=7))
            for name, values in times.items():
                median, high = statistics.median(values), p95(values)
                cpu_median, cpu_high = statistics.median(cpu[name]), p95(cpu[name])
                verdict = (
                    "met"
                    if cpu_high < TARGET_MS
                    else ("median met" if cpu_median < TARGET_MS else "MISSED")
                )
                print(
                    f"{name:<36}{label:<24}{median:>12.1f}{high:>8.1f}{cpu_median:>12.1f}"
                    f"{cpu_high:>8.1f}  {verdict} (CPU)"
                )
        print(
            f"\n{options.requests} requests per page on the indexed database, interleaved, "
            "in-process (httpx2 ASGI transport, gzip accepted). Wall: the request's time; CPU: "
            "the process's CPU time meanwhile (nothing else runs in it), which other jobs on "
            "a busy machine do not inflate."
        )


if __name__ == "__main__":
    main()
