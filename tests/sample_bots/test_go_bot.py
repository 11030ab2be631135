"""The Go starter kit (sample_bots/go) builds offline and plays through the real arena.

Real processes throughout: `make` builds the bot with Debian's Go packages (GOPATH
mode, no module downloads), `go test` runs the strategy's tests, and the arena
starts the compiled bot from its manifest as a bot author would. Skips, saying
why, where the Go toolchain or Debian's gRPC packages are missing (.ci/run
installs them).
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

from arena.hosting.sandbox import bwrap_problem
from arena.proto import bot_pb2, bot_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "sample_bots" / "go"
ARENA = Path(sys.executable).parent / "arena"
GOCODE = Path("/usr/share/gocode/src")
APT = (
    "apt-get install golang golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev "
    "protoc-gen-go protoc-gen-go-grpc protobuf-compiler"
)


def _missing() -> str | None:
    for program in ("make", "go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"):
        if shutil.which(program) is None:
            return f"{program} is not installed ({APT})"
    for package in ("google.golang.org/grpc/health", "github.com/golang/protobuf/proto"):
        if not (GOCODE / package).is_dir():
            return f"{GOCODE / package} is missing ({APT})"
    return None


MISSING = _missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"Go bot not buildable: {MISSING}")

BWRAP_PROBLEM = bwrap_problem()
SANDBOXES = [
    "limits",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(
            BWRAP_PROBLEM is not None, reason=f"bwrap is not usable here: {BWRAP_PROBLEM}"
        ),
    ),
]


def _make(*target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(KIT), *target],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def built() -> Path:
    """The bot binary, built by the kit's Makefile as its README says."""
    run = _make()
    assert run.returncode == 0, run.stdout + run.stderr
    binary = KIT / "bot"
    assert binary.is_file() and os.access(binary, os.X_OK)
    return binary


def test_build_is_offline_and_stays_in_the_kit(built: Path, tmp_path: Path) -> None:
    """A rebuild with the network pointed at a dead port and an empty HOME: it works,
    and writes nothing to HOME (the build cache lives in the kit's .gopath/)."""
    home = tmp_path / "home"
    home.mkdir()
    dead = "http://127.0.0.1:9"
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "http_proxy": dead, "https_proxy": dead, "HTTP_PROXY": dead, "HTTPS_PROXY": dead,
        "GOPROXY": "https://127.0.0.1:9", "GOFLAGS": "-mod=mod", "GO111MODULE": "on",
    }  # fmt: skip
    run = subprocess.run(
        ["make", "--no-print-directory", "-C", str(KIT), "-B", "bot"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert list(home.iterdir()) == []
    settings = subprocess.run(
        ["make", "--no-print-directory", "-C", str(KIT), "env"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert settings.stdout.splitlines() == [
        "off", "off", "", f"{KIT}/.gopath:/usr/share/gocode", f"{KIT}/.gopath/cache",
    ], settings.stdout + settings.stderr  # fmt: skip
    generated = KIT / ".gopath" / "src" / "rummyarena" / "botpb"
    assert sorted(path.name for path in generated.iterdir()) == ["bot.pb.go", "bot_grpc.pb.go"]


def test_strategy_unit_tests(built: Path) -> None:
    """strategy_test.go (deadwood, ace-low runs, draw/knock/discard choices) passes."""
    run = _make("test")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ok " in run.stdout


def test_arena_check_passes(built: Path) -> None:
    """`arena check sample_bots/go/bot.toml`: every conformance check passes."""
    run = subprocess.run(
        [str(ARENA), "check", "sample_bots/go/bot.toml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    verdicts = [line.split()[0] for line in run.stdout.splitlines() if line[:4].isupper()]
    assert len(verdicts) >= 10 and set(verdicts) == {"PASS"}, run.stdout
    assert f"go-starter: conforms ({len(verdicts)} passed, 0 failed, 0 skipped)" in run.stdout


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_cli_match_against_random(built: Path, sandbox: str, tmp_path: Path) -> None:
    """`arena match sample_bots/go/bot.toml random`, as the README tells an author."""
    run = subprocess.run(
        [
            str(ARENA), "match", "sample_bots/go/bot.toml", "random",
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
    go, opponent = result["bots"]
    assert (go["name"], opponent["name"]) == ("go-starter", "random")
    assert go["sandbox"] == sandbox
    assert go["faults"] == 0 and go["status"] == "ok", logs
    assert go["decisions"] > 0
    assert go["wins"] >= 2, logs  # a greedy player beats random nearly always
    assert "[go-starter] handshake with" in Path(go["stderr"]).read_text()


@pytest.fixture
def go_process(built: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """The Go bot started by hand with ARENA_BOT_ADDRESS, serving and ready."""
    sock_dir = tempfile.mkdtemp(prefix="gobot-", dir="/tmp")  # short: unix paths max 107 bytes
    address = f"unix:{sock_dir}/bot.sock"
    process = subprocess.Popen(
        [str(built)],
        cwd=KIT,
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


def test_handshake_refuses_another_protocol_version(
    go_process: tuple[subprocess.Popen[bytes], str],
) -> None:
    _, address = go_process
    with grpc.insecure_channel(address) as channel:
        stub = bot_pb2_grpc.BotStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.Handshake(bot_pb2.HandshakeRequest(protocol_version=2, referee="test"), timeout=10)
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        details = caught.value.details() or ""
        assert "version 2" in details and "version 1" in details, details

        # The right version is still welcome on the same connection.
        reply = stub.Handshake(
            bot_pb2.HandshakeRequest(protocol_version=1, referee="test"), timeout=10
        )
        assert (reply.name, reply.protocol_version, list(reply.games)) == (
            "go-starter", 1, ["gin-rummy/*"],
        )  # fmt: skip
        health = health_pb2_grpc.HealthStub(channel)
        named = health.Check(
            health_pb2.HealthCheckRequest(service="rummy_arena.v1.Bot"), timeout=10
        )
        assert named.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as caught:
            health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=10)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_exits_cleanly_on_sigterm(go_process: tuple[subprocess.Popen[bytes], str]) -> None:
    process, address = go_process
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    assert process.stderr is not None
    assert b"SIGTERM: shutting down" in process.stderr.read()
    assert not Path(address.removeprefix("unix:")).exists()  # the socket is removed


def test_refuses_to_start_without_an_address(built: Path) -> None:
    run = subprocess.run(
        [str(built)], cwd=KIT, env={"PATH": os.defpath}, capture_output=True, text=True, timeout=30
    )
    assert run.returncode == 2
    assert "no address: set ARENA_BOT_ADDRESS" in run.stderr
