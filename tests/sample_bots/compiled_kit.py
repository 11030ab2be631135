"""What every compiled starter kit (sample_bots/go, sample_bots/cpp) must do, as
checks the kits' test modules call on their own built bot: real processes, real
sockets, the real arena command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.hosting.sandbox import bwrap_problem
from arena.proto import bot_pb2, bot_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
ARENA = Path(sys.executable).parent / "arena"

BWRAP_PROBLEM = bwrap_problem()
SANDBOXES = [
    "limits",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(
            BWRAP_PROBLEM is not None, reason=f"[bwrap] bwrap is not usable here: {BWRAP_PROBLEM}"
        ),
    ),
]


def make(kit: Path, *target: str, env: dict[str, str] | None = None) -> str:
    """Run the kit's Makefile as its README says; its output, or the test fails."""
    run = subprocess.run(
        ["make", "--no-print-directory", "-C", str(kit), *target],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def check_conforms(manifest: str, name: str) -> None:
    """`arena check MANIFEST`: every conformance check passes."""
    run = subprocess.run(
        [str(ARENA), "check", manifest], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    verdicts = [line.split()[0] for line in run.stdout.splitlines() if line[:4].isupper()]
    assert len(verdicts) >= 10 and set(verdicts) == {"PASS"}, run.stdout
    assert f"{name}: conforms ({len(verdicts)} passed, 0 failed, 0 skipped)" in run.stdout


def check_match_against_random(manifest: str, name: str, sandbox: str, replays: Path) -> None:
    """`arena match MANIFEST random`: no fault, and a greedy player wins most games."""
    run = subprocess.run(
        [
            str(ARENA), "match", manifest, "random", "--games", "3", "--seed", "1",
            "--json", "--sandbox", sandbox, "--replays", str(replays),
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
    bot, opponent = result["bots"]
    assert (bot["name"], opponent["name"]) == (name, "random")
    assert bot["sandbox"] == sandbox
    assert bot["faults"] == 0 and bot["status"] == "ok", logs
    assert bot["decisions"] > 0
    assert bot["wins"] >= 2, logs  # a greedy player beats random nearly always
    assert f"[{name}] handshake with" in Path(bot["stderr"]).read_text()


@contextmanager
def started(binary: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """The bot started by hand with ARENA_BOT_ADDRESS, serving and ready."""
    sock_dir = tempfile.mkdtemp(prefix="kitbot-", dir="/tmp")  # unix paths: 107 bytes at most
    address = f"unix:{sock_dir}/bot.sock"
    process = subprocess.Popen(
        [str(binary)],
        cwd=binary.parent,
        env={"PATH": os.environ.get("PATH", os.defpath), "ARENA_BOT_ADDRESS": address},
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


def check_handshake_and_health(address: str, name: str) -> None:
    """Protocol version 2 is refused naming both versions; 1 is then welcome on the
    same connection; the health service knows the Bot service and nothing else."""
    with grpc.insecure_channel(address) as channel:
        stub = bot_pb2_grpc.BotStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.Handshake(bot_pb2.HandshakeRequest(protocol_version=2, referee="test"), timeout=10)
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        details = caught.value.details() or ""
        assert "version 2" in details and "version 1" in details, details
        reply = stub.Handshake(
            bot_pb2.HandshakeRequest(protocol_version=1, referee="test"), timeout=10
        )
        assert (reply.name, reply.protocol_version, list(reply.games)) == (
            name, 1, ["gin-rummy/*"],
        )  # fmt: skip
        health = health_pb2_grpc.HealthStub(channel)
        named = health.Check(
            health_pb2.HealthCheckRequest(service="rummy_arena.v1.Bot"), timeout=10
        )
        assert named.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as caught:
            health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=10)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def check_sigterm(process: subprocess.Popen[bytes], address: str) -> None:
    """SIGTERM: the bot says so, exits 0 and leaves no socket file behind."""
    process.terminate()
    assert process.wait(timeout=10) == 0
    assert process.stderr is not None
    assert b"SIGTERM: shutting down" in process.stderr.read()
    assert not Path(address.removeprefix("unix:")).exists()


def check_needs_an_address(binary: Path) -> None:
    run = subprocess.run(
        [str(binary)], cwd=binary.parent, env={"PATH": os.defpath}, capture_output=True,
        text=True, timeout=30,
    )  # fmt: skip
    assert run.returncode == 2
    assert "no address: set ARENA_BOT_ADDRESS" in run.stderr
