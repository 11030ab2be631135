"""Ladders played for real once per test session (builtin bots, no sandbox, so quick),
and ``arena serve`` running over them on a free loopback port.

The Gin ladder has a bot whose name is a script tag and a bot that plays illegal
moves (faults with reasons); the Rummy ladder has four seats.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.ratings import DEFAULT_ENV
from arena.storage import LadderStore
from arena.testing.broken_bots import write_manifest
from tests.web.browsers import browser, page  # noqa: F401  (fixtures for every web test)

ARENA = Path(sys.executable).parent / "arena"
HOSTILE = "<script>alert(1)</script>"

GIN = """\
name = "gin-web"
game = "gin-rummy/standard"
seed = 17
[schedule]
kind = "gauntlet"
champion = "greedy"
duplicate = true
[match]
games = 3
hands_only = true
[run]
concurrency = 2
sandbox = "none"
replays = "replays"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
[[bots]]
name = "illegal"
manifest = "{manifest}"
"""

RUMMY = """\
name = "rummy-web"
game = "rummy/standard"
seats = 4
seed = 5
[schedule]
duplicate = false
[match]
games = 2
hands_only = true
[run]
concurrency = 2
sandbox = "none"
replays = "replays"
[[bots]]
name = "greedy-rummy"
[[bots]]
name = "random"
[[bots]]
name = "random-2"
plugin = "random"
[[bots]]
name = "greedy-2"
plugin = "greedy-rummy"
"""


@dataclass(frozen=True)
class Ladders:
    gin: Path
    rummy: Path


def _play(folder: Path, config: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "ladder.toml").write_text(config)
    db = folder / "ladder.sqlite"
    assert main(["ladder", "create", str(folder / "ladder.toml"), "--db", str(db)]) == 0
    return db


@pytest.fixture(scope="session")
def ladders(tmp_path_factory: pytest.TempPathFactory) -> Ladders:
    root = tmp_path_factory.mktemp("web-ladders")
    manifest = write_manifest(root, "illegal", name="illegal")
    gin = _play(root / "gin", GIN.format(manifest=manifest))
    # A bot named like a script, added through the storage layer (no name check there),
    # so that every page must escape what a stranger's bot calls itself.
    store = LadderStore.open(gin)
    store.add_bot(HOSTILE, "random", DEFAULT_ENV.initial())
    store.close()
    assert main(["ladder", "run", str(gin), "--quiet", "--no-leaderboard"]) == 0
    assert main(["ladder", "disable", str(gin), "illegal"]) == 0  # listed apart
    rummy = _play(root / "rummy", RUMMY)
    assert main(["ladder", "run", str(rummy), "--quiet", "--no-leaderboard"]) == 0
    return Ladders(gin, rummy)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def server(ladders: Ladders) -> Iterator[str]:
    """``arena serve`` over both ladders, as a user would run it; its base URL."""
    with serving(ladders.gin, ladders.rummy) as url:
        yield url


@contextmanager
def serving(*dbs: Path, options: tuple[str, ...] = ()) -> Iterator[str]:
    """``arena serve DB... [OPTIONS]`` on a free loopback port until the block ends; its
    base URL."""
    port = _free_port()
    process = subprocess.Popen(
        [str(ARENA), "serve", *map(str, dbs), "--port", str(port), *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/api/ladders", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    output = process.stdout.read().decode() if process.stdout else ""
                    raise RuntimeError(f"arena serve did not start: {output}") from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
