"""The SDK's server as a process: it serves, and it stops by itself when told to."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from arena.hosting.connection import GrpcConnection

pytestmark = pytest.mark.slow  # every test here starts processes or servers

SERVE_RANDOM = "from arena.bots import RandomBot; from arena.sdk import serve; serve(RandomBot())"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_served_bot_answers_then_stops_cleanly_on_a_signal(tmp_path: Path, signum: int) -> None:
    address = f"unix:{tmp_path / 'bot.sock'}"
    bot = subprocess.Popen(
        [sys.executable, "-c", SERVE_RANDOM, "--address", address],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        connection = GrpcConnection(address, "random")
        connection.wait_ready(20)  # health check, then the handshake
        assert connection.info.name == "random"
        bot.send_signal(signum)
        assert bot.wait(timeout=10) == 0
    finally:
        bot.kill()
        bot.wait()
    assert bot.stderr is not None
    assert f"random listening on {address}" in bot.stderr.read()
    with pytest.raises(grpc.FutureTimeoutError):  # nobody left at the address
        grpc.channel_ready_future(grpc.insecure_channel(address)).result(timeout=0.5)
