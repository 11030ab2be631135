"""A ladder, its authors and a real submissions server (uvicorn on 127.0.0.1)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main
from arena.hosting.sandbox import bwrap_problem

ROOT = Path(__file__).resolve().parents[2]
JS_KIT = ROOT / "sample_bots" / "js"

LADDER = """
name = "open"
game = "gin-rummy/standard"
seed = 3
[schedule]
kind = "gauntlet"
champion = "random"
duplicate = false
[match]
games = 1
hands_only = true
[run]
concurrency = 1
replays = "replays"
[[bots]]
name = "random"
[[bots]]
name = "greedy"
"""


def needs_bwrap() -> None:
    problem = bwrap_problem()
    if problem:
        pytest.skip(f"[bwrap] {problem}")


def needs_js_kit() -> None:
    if not (JS_KIT / "node_modules" / ".package-lock.json").is_file():
        pytest.skip(
            "[node] the JS kit's packages are not installed (make sample_bots/js/node_modules/.package-lock.json)"
        )


@pytest.fixture
def ladder(tmp_path: Path) -> Path:
    config = tmp_path / "open.toml"
    config.write_text(LADDER)
    db = tmp_path / "open.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    return db


def add_author(db: Path, name: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["ladder", "author", "add", str(db), name]) == 0
    return capsys.readouterr().out.strip().splitlines()[-1]


def submit(
    url: str, folder: Path, token: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """``arena submit URL FOLDER --token TOKEN --wait``: its exit status and output."""
    capsys.readouterr()
    code = main(["submit", url, str(folder), "--token", token, "--wait", "--poll", "0.5"])
    return code, capsys.readouterr().out


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def call(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: bytes | None = None,
        content_type: str = "",
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        request = urllib.request.Request(f"{self.url}{path}", data=body, method=method)
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        if content_type:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read()), dict(response.headers)
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}"), dict(error.headers)

    def upload(self, token: str | None, archive: bytes) -> tuple[int, dict[str, Any]]:
        boundary = "testboundary1234"
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; filename="a"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n"
            ).encode()
            + archive
            + f"\r\n--{boundary}--\r\n".encode()
        )
        status, reply, _ = self.call(
            "POST", "/api/submissions", token, body, f"multipart/form-data; boundary={boundary}"
        )
        return status, reply

    def wait(self, token: str, submission: int, timeout: float = 240.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, reply, _ = self.call("GET", f"/api/submissions/{submission}", token)
            assert status == 200, reply
            if reply["status"] != "checking":
                return reply
            time.sleep(0.5)
        raise AssertionError(f"submission {submission} still checking after {timeout} s")


@contextlib.contextmanager
def serve(db: Path, *options: str) -> Iterator[Server]:
    port = _free_port()
    log = db.parent / f"server-{port}.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli.main", "serve", str(db), "--submissions",
             "--port", str(port), *options],
            stdout=output, stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True,
        )  # fmt: skip
    server = Server(f"http://127.0.0.1:{port}", process, log)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the server did not start: {log.read_text()}") from None
                time.sleep(0.1)
        yield server
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def tar_gz(files: Mapping[str, bytes | str], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            raw = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            info.mode = 0o755 if name.endswith(".sh") else 0o644
            tar.addfile(info, io.BytesIO(raw))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tar.addfile(info)
    return buffer.getvalue()


def data_files(db: Path) -> set[str]:
    """Everything in the ladder's data folder but check logs and the session key."""
    root = Path(f"{db}.data")
    return {
        str(path.relative_to(root))
        for path in root.rglob("*")
        if not str(path.relative_to(root)).startswith("submissions") and path.name != "session.key"
    }
