"""Dask in this process: a LocalCluster, the admission check, a match that kills every
worker it lands on, and what ``--dask`` says without the package."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="[dask] the Dask tests need the dask extra")

from distributed import Client, LocalCluster

from arena.cli.main import main
from arena.hosting.host import probe_host
from arena.ladder import dask_executor, run_ladder
from arena.ladder.config import LadderConfigError, load_ladder_config
from arena.ladder.dask_worker import (
    WorkerProfile,
    admit_worker,
    describe_difference,
    requirement_resource,
    worker_profile,
)
from arena.storage import LadderStore
from tests.ladder.dask_helpers import (
    FIRST_BOT,
    WORKER_KILLER,
    ladder_config,
    read,
    statuses,
    write_bot,
)


@pytest.mark.slow
def test_a_match_that_kills_every_worker_is_recorded_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(dask_executor, "MAX_ATTEMPTS", 2)  # two dead workers each, not three
    killer = write_bot(tmp_path / "killer", "killer", WORKER_KILLER)
    config = ladder_config(
        tmp_path, killer, repeat=1, duplicate=False, plugins=("tests.ladder.worker_killer",)
    )
    db = tmp_path / "dk.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    store = LadderStore.open(db)
    try:
        summary = run_ladder(store, progress=False, dask="local")
    finally:
        store.close()
    # Three matches: the one without the killer is played, the two with it fail.
    assert summary.finished == 1 and summary.failed == 2
    assert statuses(db) == {"finished": 1, "failed": 2}
    rows = read(db, "SELECT seats, attempts, failure FROM matches WHERE status = 'failed'")
    for seats, attempts, failure in rows:
        assert "killer" in str(seats)
        assert attempts == 1  # one Dask task, run on two workers that both died
        assert "took down 2 Dask workers" in str(failure)
    # A loss for neither bot: the killer has no match, and no unit with it was rated.
    bots = dict(read(db, "SELECT name, matches FROM bots"))
    assert bots == {"greedy": 1, "greedy2": 1, "killer": 0}
    assert read(db, "SELECT COUNT(*) FROM rating_history") == [(2,)]


@pytest.mark.slow
def test_local_cluster_ships_the_manifest_bot(tmp_path: Path) -> None:
    manifest = write_bot(tmp_path / "first", "first", FIRST_BOT)
    config = ladder_config(
        tmp_path, manifest, repeat=1, duplicate=False, extra_run='executor = "dask"'
    )
    db = tmp_path / "dk.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    assert main(["ladder", "run", str(db), "--quiet", "--no-leaderboard"]) == 0
    assert statuses(db) == {"finished": 3}
    logs = list((tmp_path / "replays-dk" / "dk").glob("m*-a1/first.stderr.log"))
    assert len(logs) == 2
    assert all("/arena-bots/" in log.read_text() for log in logs)
    # The results name the logs where the runner keeps them, not where the worker did.
    for (result,) in read(db, "SELECT result FROM matches"):
        for bot in json.loads(str(result))["bots"]:
            assert Path(bot["stderr"]).parent.parent == tmp_path / "replays-dk" / "dk"
            assert Path(bot["stderr"]).is_file()


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as connected,
    ):
        yield connected


def resources(client: Client) -> dict[str, float]:
    (worker,) = client.scheduler_info()["workers"].values()
    return dict(worker["resources"])


@pytest.mark.slow
def test_a_worker_with_other_versions_is_refused(client: Client) -> None:
    mine = worker_profile((), True)
    runner = replace(mine, arena="9.9.9", plugins={**mine.plugins, "extra": "extra-bots 1.0"})
    (answer,) = client.run(admit_worker, runner, "none", (), True).values()
    assert answer.problem == (
        f"arena {mine.arena} (the runner has 9.9.9); plugin extra missing (the runner has extra-bots 1.0)"
    )
    assert requirement_resource(runner, "none") not in resources(client)

    (answer,) = client.run(admit_worker, mine, "none", (), True).values()
    assert answer.problem is None
    assert resources(client)[requirement_resource(mine, "none")] == 2  # one per thread


def test_profile_differences_are_named() -> None:
    runner = WorkerProfile("1", {"a": "pa 1", "b": "pb 1"}, ("x", "y"))
    worker = WorkerProfile("1", {"a": "pa 2", "c": "pc 1"}, ("x", "z"))
    assert describe_difference(runner, worker) == (
        "plugin a: pa 2 (the runner has pa 1); plugin b missing (the runner has pb 1); "
        "plugin c (pc 1) that the runner does not have; bots missing: y; "
        "bots the runner does not have: z"
    )
    assert describe_difference(runner, runner) is None


@pytest.mark.slow
def test_a_worker_without_the_sandbox_gets_no_matches(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker runs in this process: without bwrap on its PATH it cannot sandbox.
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    monkeypatch.delenv("ARENA_BWRAP", raising=False)
    mine = worker_profile((), True)
    (answer,) = client.run(admit_worker, mine, "bwrap", (), True).values()
    assert "sandbox level 'bwrap' is not usable here: bwrap is not installed" in answer.problem
    assert requirement_resource(mine, "bwrap") not in resources(client)


@pytest.mark.slow
def test_a_worker_whose_host_cannot_jail_strangers_gets_none_of_their_matches(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner's host may have Landlock or bwrap and a worker's not: a ladder of
    strangers' bots admits a worker only where a level fit for them exists there."""
    bare = dataclasses.replace(probe_host(), landlock_abi=0, bwrap_problem="bwrap is not installed")
    monkeypatch.setattr("arena.hosting.host.probe_host", lambda: bare)
    mine = worker_profile((), True)
    (answer,) = client.run(admit_worker, mine, "auto", (), True, strangers=True).values()
    assert answer.problem.startswith("no sandbox level here is fit for strangers' bots")
    assert requirement_resource(mine, "auto", strangers=True) not in resources(client)
    (answer,) = client.run(admit_worker, mine, "auto", (), True).values()  # own bots: auto
    assert answer.problem is None  # not held to the strangers' rule
    assert requirement_resource(mine, "auto", strangers=True) not in resources(client)


def test_dask_without_the_package_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = write_bot(tmp_path / "first", "first", FIRST_BOT)
    db = tmp_path / "dk.sqlite"
    assert main(["ladder", "create", str(ladder_config(tmp_path, manifest)), "--db", str(db)]) == 0
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    monkeypatch.delitem(sys.modules, "arena.ladder.dask_executor", raising=False)
    assert main(["ladder", "run", str(db), "--dask", "local", "--quiet"]) == 2
    assert "pip install 'rummy-arena[dask]'" in capsys.readouterr().err
    assert statuses(db) == {"scheduled": 12}  # nothing taken from the queue


@pytest.mark.parametrize(
    ("run", "error"),
    [
        ('executor = "spark"', "field 'run.executor' must be local or dask, got 'spark'"),
        ('scheduler = "tcp://h:1"', "field 'run.scheduler' needs executor = \"dask\""),
        ('executor = "dask"\nscheduler = "h:1"', "must be tcp://HOST:PORT or tls://HOST:PORT"),
    ],
)
def test_config_executor_errors(tmp_path: Path, run: str, error: str) -> None:
    manifest = write_bot(tmp_path / "first", "first", FIRST_BOT)
    with pytest.raises(LadderConfigError, match=error.replace("(", r"\(").replace(")", r"\)")):
        load_ladder_config(ladder_config(tmp_path, manifest, extra_run=run))
