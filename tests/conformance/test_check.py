"""``arena check``: the sample bots conform; each deliberately broken bot is caught,
by the check that names its fault.

Real bot processes throughout (registered Python bots in their own process, manifests,
an address served from this test process).  Most runs check one rule set per
family with two hands against random, to keep the suite fast.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.cli.main import main
from arena.conformance.check import CheckReport, CheckSettings, Status, run_check
from arena.conformance.report import CheckResult
from arena.plugins import PluginSet, load_plugins
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.referee.settings import TimeControl
from arena.testing.broken_bots import write_manifest

ROOT = Path(__file__).resolve().parents[2]
JS_KIT = ROOT / "sample_bots" / "js"

GIN_SCENARIOS = {
    "first-upcard-non-dealer",
    "first-upcard-dealer",
    "gin-first-turn",
    "knock-first-turn",
    "defend-layoffs",
    "stock-end",
}
GIN = "gin-rummy/standard"
# A start-up limit no loaded machine misses: these tests are about what a bot does, not
# how fast it starts (a loaded CI machine once took over 10 s to start one).
FAST = CheckSettings(
    time_control=TimeControl(startup_ms=120_000),
    games=2,
    only=(GIN,),
    sandbox="none",
)


def fast(tmp_path: Path, **changes: Any) -> CheckSettings:
    """``FAST``, keeping the logs of a failing bot in the test's folder (not in /tmp)."""
    return replace(FAST, log_dir=tmp_path / "logs", **changes)


@pytest.fixture(scope="module")
def plugins() -> PluginSet:
    return load_plugins()


def names(report: CheckReport, status: Status) -> set[str]:
    return {result.name for result in report.results if result.status is status}


def assert_conforms(report: CheckReport, games: list[str]) -> None:
    failed = [f"{r.name}: {r.detail}" for r in report.results if r.status is Status.FAIL]
    assert failed == []
    passed = names(report, Status.PASS)
    assert {"start", "handshake", "version-mismatch"} <= passed
    for game in games:
        assert f"{game} play-vs-random" in passed
        if game.startswith("gin-rummy/"):
            assert {f"{game} {scenario}" for scenario in GIN_SCENARIOS} <= passed
    if any(game.startswith("gin-rummy/") for game in games):
        assert "gin-rummy/check-last-discard last-discard" in passed
    assert report.passed


# -- the sample bots ---------------------------------------------------------------------


@pytest.mark.slow
def test_random_conforms_in_both_families(plugins: PluginSet) -> None:
    settings = CheckSettings(games=2, only=(GIN, "rummy/jokers"), sandbox="none")
    seen: list[CheckResult] = []
    report = run_check("random", plugins, settings, seen.append)
    assert_conforms(report, [GIN, "rummy/jokers"])
    assert seen == report.results  # each result is reported as soon as it is known
    rummy = {f"rummy/jokers {name}" for name in ("meld", "layoff", "going-out", "swap-joker")}
    assert rummy <= names(report, Status.PASS)
    timing = report.timing[GIN]
    assert timing["decisions"] > 0 and timing["faults"] == 0
    assert 0 < timing["min"] <= timing["median"] <= timing["p95"] <= timing["max"]
    # the scenario lines say what the bot was asked
    details = {r.name: r.detail for r in report.results}
    assert "asked FIRST_UPCARD as non-dealer" in details[f"{GIN} first-upcard-non-dealer"]
    assert "asked FIRST_UPCARD as dealer" in details[f"{GIN} first-upcard-dealer"]
    assert "offered gin on its first turn" in details[f"{GIN} gin-first-turn"]
    assert "asked DEFEND" in details[f"{GIN} defend-layoffs"]
    assert "asked LAST_DISCARD" in details["gin-rummy/check-last-discard last-discard"]


@pytest.mark.slow
def test_greedy_conforms_and_takes_what_it_is_offered(plugins: PluginSet) -> None:
    report = run_check("greedy", plugins, FAST)
    assert_conforms(report, [GIN])
    details = {r.name: r.detail for r in report.results}
    assert "took it: knock KS" in details[f"{GIN} gin-first-turn"]
    assert "layoffs" in details[f"{GIN} defend-layoffs"]
    assert report.name == "greedy"


@pytest.mark.slow
def test_strong_conforms(plugins: PluginSet) -> None:
    if "strong" not in plugins.bots:
        pytest.skip("[dev] the sample plugin (sample_bots/python, bot 'strong') is not installed")
    assert_conforms(run_check("strong", plugins, FAST), [GIN])


@pytest.mark.slow
def test_js_starter_conforms(plugins: PluginSet) -> None:
    if shutil.which("node") is None or not (JS_KIT / "node_modules").is_dir():
        pytest.skip("[node] the JS bot needs node and sample_bots/js/node_modules (npm ci)")
    assert_conforms(run_check(str(JS_KIT / "bot.toml"), plugins, FAST), [GIN])


# -- broken bots: each failure found and named -------------------------------------------


def failures(report: CheckReport) -> dict[str, str]:
    return {
        r.name: f"{r.detail} | hint: {r.hint}" for r in report.results if r.status is Status.FAIL
    }


@pytest.mark.slow
def test_illegal_discard_fails_the_scenarios_that_discard(
    plugins: PluginSet, tmp_path: Path
) -> None:
    report = run_check(str(write_manifest(tmp_path, "illegal")), plugins, fast(tmp_path))
    failed = failures(report)
    assert not report.passed
    assert f"{GIN} first-upcard-non-dealer" in failed
    assert f"{GIN} play-vs-random" in failed
    assert "illegal_action: cannot discard" in failed[f"{GIN} play-vs-random"]
    assert "legal_index" in failed[f"{GIN} play-vs-random"]  # the hint
    # it answers DEFEND legally: that scenario passes
    assert f"{GIN} defend-layoffs" in names(report, Status.PASS)
    assert {"start", "handshake", "version-mismatch"} <= names(report, Status.PASS)


@pytest.mark.slow
def test_garbage_index_is_a_malformed_reply(plugins: PluginSet, tmp_path: Path) -> None:
    report = run_check(str(write_manifest(tmp_path, "garbage-index")), plugins, fast(tmp_path))
    failed = failures(report)
    assert f"{GIN} defend-layoffs" in failed
    assert "malformed_reply: legal_index 999 out of range" in failed[f"{GIN} defend-layoffs"]


@pytest.mark.slow
def test_hang_times_out_and_is_not_waited_for_forever(plugins: PluginSet, tmp_path: Path) -> None:
    settings = CheckSettings(
        games=2,
        only=(GIN,),
        sandbox="none",
        time_control=TimeControl(10_000, 100, 0),
        max_timeouts=1,
    )
    report = run_check(str(write_manifest(tmp_path, "hang")), plugins, settings)
    failed = failures(report)
    assert "timeout: no reply" in failed[f"{GIN} first-upcard-non-dealer"]
    assert "decision_ms" in failed[f"{GIN} first-upcard-non-dealer"]  # the hint
    skipped = [r for r in report.results if r.status is Status.SKIP]
    assert skipped and all("already timed out in 1 match" in r.detail for r in skipped)
    # the temporary folder with the bot's stderr log is kept for its author
    assert report.logs is not None and list(Path(report.logs).glob("*.stderr.log"))
    shutil.rmtree(report.logs)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "check", "reason"),
    [
        ("wrong-version", "handshake", "speaks protocol version 2"),
        ("refuse-handshake", "handshake", "refused the handshake: FAILED_PRECONDITION"),
        ("crash-start", "start", "giving up before serving"),
    ],
)
def test_start_and_handshake_faults(
    plugins: PluginSet, tmp_path: Path, kind: str, check: str, reason: str
) -> None:
    report = run_check(str(write_manifest(tmp_path, kind)), plugins, fast(tmp_path))
    failed = failures(report)
    assert list(failed) == [check]
    assert reason in failed[check]
    if check == "start":
        assert [(r.name, r.status) for r in report.results] == [
            ("start", Status.FAIL),
            ("handshake", Status.SKIP),
        ]
    else:  # nothing can be checked without a handshake
        assert report.results[-1].name == "handshake"


@pytest.mark.slow
def test_a_crashing_bot_is_restarted_then_given_up(plugins: PluginSet, tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path, "crash-mid", "--after", "0")
    report = run_check(str(manifest), plugins, fast(tmp_path, max_restarts=1))
    failed = failures(report)
    assert "crashed" in failed[f"{GIN} first-upcard-non-dealer"]
    assert "stderr" in failed[f"{GIN} first-upcard-non-dealer"]  # the hint
    assert "crashed" in failed[f"{GIN} first-upcard-dealer"]  # after a restart
    assert "not run: it stopped 2 times" in failed[f"{GIN} gin-first-turn"]


# -- a bot served at an address from this test process -----------------------------------


class _AddressBot(pb_grpc.BotServicer):
    """Plays legal_index 0; ``strict``: refuses protocol versions other than 1, as it
    should; otherwise it answers every handshake, whatever version it is offered."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict

    def Handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeReply:
        if self.strict and request.protocol_version != 1:
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, "I speak version 1 only")
        return pb.HandshakeReply(name="at-address", protocol_version=1, games=[GIN])

    def PlayMatch(
        self, requests: Iterator[pb.RefereeMessage], context: Any
    ) -> Iterator[pb.BotMessage]:
        for message in requests:
            if message.WhichOneof("body") == "decision":
                reply = pb.DecisionReply(request_id=message.decision.request_id, legal_index=0)
                yield pb.BotMessage(decision=reply)


@contextmanager
def served(tmp_path: Path, *, strict: bool) -> Iterator[str]:
    """A bot served in this process on a unix socket; yields its address."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_BotServicer_to_server(_AddressBot(strict), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    address = f"unix:{tmp_path / 'bot.sock'}"
    server.add_insecure_port(address)
    server.start()
    health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    try:
        yield address
    finally:
        server.stop(grace=None)


def test_a_bot_accepting_another_protocol_version_fails_that_check(
    plugins: PluginSet, tmp_path: Path
) -> None:
    with served(tmp_path, strict=False) as address:
        report = run_check(address, plugins, fast(tmp_path))
    failed = failures(report)
    assert list(failed) == ["version-mismatch"]
    assert "accepted protocol version 2" in failed["version-mismatch"]
    assert "FAILED_PRECONDITION" in failed["version-mismatch"]  # the hint
    # its games do not cover the last-discard probe: that check is skipped, saying why
    assert "last-discard" in names(report, Status.SKIP)


# -- the command line ---------------------------------------------------------------------


def test_cli_json_for_a_conforming_bot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with served(tmp_path, strict=True) as address:
        status = main(["check", address, "--games", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert out["passed"] is True and out["name"] == "at-address"
    assert out["counts"] == {"pass": 10, "fail": 0, "skip": 1}
    assert {check["name"] for check in out["checks"]} >= {"version-mismatch", f"{GIN} stock-end"}
    assert set(out["timing"][GIN]) >= {"min", "median", "p95", "max", "faults"}


def test_cli_text_exit_status_and_failing_check_name(capsys: pytest.CaptureFixture[str]) -> None:
    nobody = "grpc://127.0.0.1:9"  # the discard port: no bot answers there
    assert main(["check", nobody, "--game", GIN, "--startup-ms", "300"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("FAIL  start") and "not reachable" in lines[0]
    assert "hint: is the bot running" in lines[1]
    assert "does NOT conform" in lines[-1]


def test_cli_unknown_game_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "greedy", "--game", "poker"]) == 2
    assert "no such registered game" in capsys.readouterr().err


@pytest.mark.slow
def test_without_seed_the_hands_against_random_are_fresh_and_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seeds = []
    for _ in range(2):
        status = main(
            ["check", "random", "--game", "gin-rummy/standard", "--games", "1", "--json",
             "--sandbox", "none", "--no-plugin-autoload"]
        )  # fmt: skip
        assert status == 0
        seeds.append(json.loads(capsys.readouterr().out.splitlines()[-1])["seed"])
    assert seeds[0] != seeds[1] and all(isinstance(seed, int) for seed in seeds)
