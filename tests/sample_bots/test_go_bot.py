"""The Go starter kit (sample_bots/go) builds offline and plays through the real arena.

`make` builds the bot with Debian's Go packages (GOPATH mode, no module downloads),
`go test` runs the strategy's tests, and the arena starts the compiled bot from its
manifest as a bot author would. Skips, saying why, where the Go toolchain or
Debian's gRPC packages are missing (.ci/run installs them).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from . import compiled_kit as kit

KIT = kit.ROOT / "sample_bots" / "go"
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
pytestmark = [
    pytest.mark.slow,  # every test here starts processes
    pytest.mark.skipif(MISSING is not None, reason=f"[go] Go bot not buildable: {MISSING}"),
]


@pytest.fixture(scope="module")
def built() -> Path:
    """The bot binary, built by the kit's Makefile as its README says."""
    kit.make(KIT)
    binary = KIT / "bot"
    assert binary.is_file() and os.access(binary, os.X_OK)
    return binary


def test_build_is_offline_and_stays_in_the_kit(built: Path, tmp_path: Path) -> None:
    """A rebuild with the network pointed at a dead port, module mode asked for from
    outside, and an empty HOME: it works, and writes nothing to HOME (the build cache
    lives in the kit's .gopath/)."""
    home = tmp_path / "home"
    home.mkdir()
    dead = "http://127.0.0.1:9"
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "http_proxy": dead, "https_proxy": dead, "HTTP_PROXY": dead, "HTTPS_PROXY": dead,
        "GOPROXY": "https://127.0.0.1:9", "GOFLAGS": "-mod=mod", "GO111MODULE": "on",
    }  # fmt: skip
    kit.make(KIT, "-B", "bot", env=env)
    assert list(home.iterdir()) == []
    assert kit.make(KIT, "env", env=env).splitlines() == [
        "off", "off", "", f"{KIT}/.gopath:/usr/share/gocode", f"{KIT}/.gopath/cache",
    ]  # fmt: skip
    generated = KIT / ".gopath" / "src" / "rummyarena" / "botpb"
    assert sorted(path.name for path in generated.iterdir()) == ["bot.pb.go", "bot_grpc.pb.go"]


def test_strategy_unit_tests(built: Path) -> None:
    """strategy_test.go (deadwood, ace-low runs, draw/knock/discard choices) passes."""
    assert "ok " in kit.make(KIT, "test")


def test_arena_check_passes(built: Path) -> None:
    kit.check_conforms("sample_bots/go/bot.toml", "go-starter")


@pytest.mark.parametrize("sandbox", kit.SANDBOXES)
def test_cli_match_against_random(built: Path, sandbox: str, tmp_path: Path) -> None:
    kit.check_match_against_random("sample_bots/go/bot.toml", "go-starter", sandbox, tmp_path)


def test_handshake_and_health(built: Path) -> None:
    with kit.started(built) as (_, address):
        kit.check_handshake_and_health(address, "go-starter")


def test_exits_cleanly_on_sigterm(built: Path) -> None:
    with kit.started(built) as (process, address):
        kit.check_sigterm(process, address)


def test_refuses_to_start_without_an_address(built: Path) -> None:
    kit.check_needs_an_address(built)
