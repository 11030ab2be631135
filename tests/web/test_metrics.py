"""``GET /metrics`` from a real ``arena serve``: the runner's counts move as matches finish,
the server counts its own requests by route, every name follows Prometheus' conventions
and is documented, and each request leaves one access-log line."""

from __future__ import annotations

import re
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from arena.cli.main import main

from .conftest import ARENA, _free_port, serving

pytestmark = pytest.mark.slow  # a ladder is played and a server started

ROOT = Path(__file__).resolve().parents[2]

LADDER = """\
name = "metered"
game = "gin-rummy/standard"
[schedule]
kind = "continuous"
[match]
games = 1
hands_only = true
[run]
concurrency = 1
sandbox = "none"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(url + "/metrics", timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=")
        text = response.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str
) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def ladder(tmp_path: Path) -> Path:
    (tmp_path / "metered.toml").write_text(LADDER)
    db = tmp_path / "metered.sqlite"
    assert main(["ladder", "create", str(tmp_path / "metered.toml"), "--db", str(db)]) == 0
    return db


def test_metrics_move_as_matches_finish(ladder: Path) -> None:
    assert (
        main(["ladder", "run", str(ladder), "--matches", "2", "--quiet", "--no-leaderboard"]) == 0
    )
    with serving(ladder) as url:
        before = scrape(url)
        key = {"ladder": "metered"}
        assert value(before, "arena_matches_finished_total", outcome="played", **key) == 2
        assert value(before, "arena_bot_starts_total", sandbox="none", **key) == 4
        assert value(before, "arena_matches_running", **key) == 0
        decisions = value(before, "arena_decision_seconds_count", **key)
        assert decisions > 0
        assert value(before, "arena_decision_seconds_bucket", le="+Inf", **key) == decisions
        assert value(before, "arena_ladder_database_up", **key) == 1

        assert (
            main(["ladder", "run", str(ladder), "--matches", "3", "--quiet", "--no-leaderboard"])
            == 0
        )
        with urllib.request.urlopen(url + "/api/leaderboard", timeout=30):
            pass
        after = scrape(url)
        assert value(after, "arena_matches_finished_total", outcome="played", **key) == 5
        assert value(after, "arena_decision_seconds_count", **key) > decisions
        assert value(after, "arena_runner_heartbeat_age_seconds", state="stopped", **key) >= 0
        requests = value(
            after, "arena_http_requests_total", method="GET", route="/api/leaderboard", code="200"
        )
        assert requests == 1
        assert (
            value(after, "arena_http_requests_total", method="GET", route="/metrics", code="200")
            >= 1
        )

        # A finals: its matches by status.
        finals = ["ladder", "finals", str(ladder), "--top", "2", "--games", "1"]
        assert main([*finals, "--max-games", "2"]) == 0
        played = scrape(url)
        assert value(played, "arena_finals_matches", status="finished", **key) == 2


def test_every_metric_is_named_by_the_conventions_and_documented(ladder: Path) -> None:
    assert (
        main(["ladder", "run", str(ladder), "--matches", "1", "--quiet", "--no-leaderboard"]) == 0
    )
    with serving(ladder) as url, urllib.request.urlopen(url + "/metrics", timeout=30) as response:
        text = response.read().decode()
    families = {
        family.name: family.type
        for family in text_string_to_metric_families(text)
        if family.name.startswith("arena_")
    }
    assert len(families) >= 12, families
    documented = (ROOT / "docs" / "OPERATIONS.md").read_text()
    for name, kind in families.items():
        exposed = f"{name}_total" if kind == "counter" else name
        assert re.fullmatch(r"arena_[a-z_]+", exposed)
        assert f"`{exposed}`" in documented, f"{exposed} is not in docs/OPERATIONS.md"
        if kind == "histogram":
            assert name.endswith("_seconds"), name  # units in the name, base units


def test_each_request_leaves_one_access_log_line(ladder: Path, tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "serve.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [str(ARENA), "serve", str(ladder), "--port", str(port)], stdout=output, stderr=output
        )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                with urllib.request.urlopen(url + "/api/leaderboard?secret=1", timeout=5):
                    break
            except OSError:
                assert process.poll() is None, log.read_text()
                time.sleep(0.1)
    finally:
        process.terminate()
        process.wait(30)
    lines = [line for line in log.read_text().splitlines() if '"GET /api/leaderboard"' in line]
    assert len(lines) == 1, log.read_text()
    assert re.search(r'127\.0\.0\.1 "GET /api/leaderboard" 200 [0-9.]+ms$', lines[0])
    assert "secret" not in log.read_text()  # the query string is not logged
