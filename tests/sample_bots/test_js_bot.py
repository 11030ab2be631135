"""The JavaScript starter kit (sample_bots/js) plays through the real arena.

Real processes throughout: the bot runs under Node.js from its manifest, as a bot
author would run it. Skips, saying why, without ``node`` or without the kit's
npm packages (``cd sample_bots/js && npm ci --ignore-scripts``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.bots import BUILTIN_BOTS
from arena.games.registry import find_game
from arena.hosting.launcher import LaunchSettings, start_bot
from arena.hosting.sandbox import bwrap_problem
from arena.plugins.serve_bot import command_for
from arena.proto import bot_pb2, bot_pb2_grpc
from arena.referee.match import MatchConfig, Seat, play_match

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "sample_bots" / "js"
MANIFEST = KIT / "bot.toml"
ARENA = Path(sys.executable).parent / "arena"
NODE = shutil.which("node")


def _missing() -> str | None:
    if NODE is None:
        return "node is not installed: the JavaScript starter bot needs Node.js 20+"
    if not (KIT / "node_modules").is_dir():
        return "sample_bots/js/node_modules is missing: run `cd sample_bots/js && npm ci --ignore-scripts`"
    return None


MISSING = _missing()
pytestmark = [
    pytest.mark.slow,  # every test here starts processes
    pytest.mark.skipif(MISSING is not None, reason=f"[node] JS bot not runnable: {MISSING}"),
]

BWRAP_PROBLEM = bwrap_problem()
SANDBOXES = [
    "none",
    "limits",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(
            BWRAP_PROBLEM is not None, reason=f"[bwrap] bwrap is not usable here: {BWRAP_PROBLEM}"
        ),
    ),
]


def test_strategy_unit_tests() -> None:
    """strategy.test.js (deadwood, ace-low runs, draw/knock/discard choices) passes."""
    run = subprocess.run(
        [str(NODE), "--test", "strategy.test.js"],
        cwd=KIT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_cli_match_against_random(sandbox: str, tmp_path: Path) -> None:
    """`arena match sample_bots/js/bot.toml random`, as the README tells an author."""
    run = subprocess.run(
        [
            str(ARENA), "match", "sample_bots/js/bot.toml", "random",
            "--games", "3", "--seed", "1", "--json",
            "--sandbox", sandbox, "--replays", str(tmp_path / "replays"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    logs = "\n".join(Path(bot["stderr"]).read_text() for bot in result["bots"] if bot.get("stderr"))
    assert result["faults"] == [], logs
    assert result["games"] == 3
    js, opponent = result["bots"]
    assert js["name"] == "js-starter"
    assert opponent["name"] == "random"
    assert js["sandbox"] == sandbox
    assert js["faults"] == 0 and js["status"] == "ok", logs
    assert js["decisions"] > 0
    assert "[js-starter] handshake with" in Path(js["stderr"]).read_text()


def test_host_bot_and_play_match(tmp_path: Path) -> None:
    """The same through the library: start_bot on the manifest path, then play_match."""
    settings = LaunchSettings(sandbox="auto", run_dir=tmp_path / "run")

    def serve_command(name: str) -> list[str]:  # how a registered Python bot is served
        return command_for(name, [], autoload=False)

    js = start_bot(str(MANIFEST), settings, BUILTIN_BOTS, serve_command)
    opponent = start_bot("random", settings, BUILTIN_BOTS, serve_command)
    try:
        assert js.start_fault is None, js.start_fault
        assert opponent.start_fault is None, opponent.start_fault
        assert js.connection is not None
        info = js.connection.info
        assert info.name == "js-starter"
        assert info.protocol_version == 1
        assert list(info.games) == ["gin-rummy/*"]
        seats = [
            Seat(bot.connection, bot.name, bot.sandbox, bot.stderr_path, bot.start_fault)
            for bot in (opponent, js)  # the JS bot in seat 1 this time
        ]
        config = MatchConfig(find_game("gin-rummy/standard"), games=3, seed=1)
        result = play_match(config, seats)
    finally:
        js.close()
        opponent.close()
    stderr = Path(js.stderr_path).read_text() if js.stderr_path else ""
    assert len(result.games) == 3
    assert [record.name for record in result.seats] == ["random", "js-starter"]
    assert [fault for record in result.seats for fault in record.faults] == [], stderr
    assert result.seats[1].decision_seconds, "the JS bot made no decision"


@pytest.fixture
def js_process() -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """The JS bot started by hand with ARENA_BOT_ADDRESS, serving and ready."""
    sock_dir = tempfile.mkdtemp(prefix="jsbot-", dir="/tmp")  # short: unix paths max 107 bytes
    address = f"unix:{sock_dir}/bot.sock"
    env = {"PATH": os.environ.get("PATH", os.defpath), "ARENA_BOT_ADDRESS": address}
    process = subprocess.Popen(
        [str(NODE), "bot.js"],
        cwd=KIT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        with grpc.insecure_channel(address) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=20, wait_for_ready=True
            )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        yield process, address
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        assert process.stderr is not None
        process.stderr.close()
        shutil.rmtree(sock_dir, ignore_errors=True)


def test_handshake_refuses_another_protocol_version(
    js_process: tuple[subprocess.Popen[bytes], str],
) -> None:
    _, address = js_process
    with grpc.insecure_channel(address) as channel:
        stub = bot_pb2_grpc.BotStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.Handshake(bot_pb2.HandshakeRequest(protocol_version=2, referee="test"), timeout=10)
        error = caught.value
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
        details = error.details() or ""
        assert "version 2" in details and "version 1" in details, details

        # The right version is still welcome on the same connection.
        reply = stub.Handshake(
            bot_pb2.HandshakeRequest(protocol_version=1, referee="test"), timeout=10
        )
        assert reply.name == "js-starter"
        assert reply.protocol_version == 1

        # Watch is not implemented (the arena only uses Check).
        watch = health_pb2_grpc.HealthStub(channel).Watch(
            health_pb2.HealthCheckRequest(service=""), timeout=10
        )
        with pytest.raises(grpc.RpcError) as caught:
            next(iter(watch))
        assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_exits_cleanly_on_sigterm(js_process: tuple[subprocess.Popen[bytes], str]) -> None:
    process, _ = js_process
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    assert process.stderr is not None
    assert b"SIGTERM: shutting down" in process.stderr.read()
