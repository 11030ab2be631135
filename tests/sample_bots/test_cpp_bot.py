"""The C++ starter kit (sample_bots/cpp) builds offline and plays through the real arena.

`make` builds the bot with Debian's grpc++ and protobuf packages, `make test` runs
the strategy's tests, and the arena starts the compiled bot from its manifest as a
bot author would. Skips, saying why, where the compiler or Debian's gRPC packages
are missing (.ci/run installs them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from . import compiled_kit as kit

KIT = kit.ROOT / "sample_bots" / "cpp"
APT = "apt-get install g++ make pkg-config libgrpc++-dev protobuf-compiler-grpc"


def _missing() -> str | None:
    for program in ("make", "g++", "pkg-config", "protoc", "grpc_cpp_plugin"):
        if shutil.which(program) is None:
            return f"{program} is not installed ({APT})"
    found = subprocess.run(["pkg-config", "--exists", "grpc++", "protobuf"], check=False)
    if found.returncode != 0:
        return f"pkg-config knows no grpc++ or protobuf ({APT})"
    return None


MISSING = _missing()
pytestmark = [
    pytest.mark.slow,  # every test here starts processes
    pytest.mark.skipif(MISSING is not None, reason=f"[cpp] C++ bot not buildable: {MISSING}"),
]


@pytest.fixture(scope="module")
def built() -> Path:
    """The bot binary, built by the kit's Makefile as its README says."""
    kit.make(KIT)
    binary = KIT / "bot"
    assert binary.is_file() and os.access(binary, os.X_OK)
    return binary


def test_strategy_unit_tests(built: Path) -> None:
    """strategy_test.cpp (deadwood, ace-low runs, draw/knock/discard choices) passes."""
    assert "ok: every strategy check passed" in kit.make(KIT, "test")


def test_arena_check_passes(built: Path) -> None:
    kit.check_conforms("sample_bots/cpp/bot.toml", "cpp-starter")


@pytest.mark.parametrize("sandbox", kit.SANDBOXES)
def test_cli_match_against_random(built: Path, sandbox: str, tmp_path: Path) -> None:
    kit.check_match_against_random("sample_bots/cpp/bot.toml", "cpp-starter", sandbox, tmp_path)


def test_handshake_and_health(built: Path) -> None:
    with kit.started(built) as (_, address):
        kit.check_handshake_and_health(address, "cpp-starter")


def test_exits_cleanly_on_sigterm(built: Path) -> None:
    with kit.started(built) as (process, address):
        kit.check_sigterm(process, address)


def test_refuses_to_start_without_an_address(built: Path) -> None:
    kit.check_needs_an_address(built)
