"""Over HTTP, against a real server: who may do what, and what hostile uploads get."""

from __future__ import annotations

import gzip
import io
import os
import socket
import sys
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest

from arena.storage import LadderStore
from tests.submissions.conftest import add_author, data_files, needs_bwrap, serve, tar_gz
from tests.submissions.web import WebSession

pytestmark = pytest.mark.slow  # every test here starts processes or servers

MANIFEST = 'name = "{name}"\ncommand = ["node", "bot.js"]\nworking_directory = "."\n'


def test_tokens_and_other_authors(ladder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alice = add_author(ladder, "alice", capsys)
    bob = add_author(ladder, "bob", capsys)
    store = LadderStore.open(ladder)
    stored = [row[0] for row in store.db.execute("SELECT token_sha256 FROM authors")]
    store.close()
    assert alice not in ladder.read_bytes().decode(errors="replace")  # only its hash is kept
    assert len(stored) == 2 and all(len(digest) == 64 for digest in stored)
    archive = tar_gz({"bot.toml": MANIFEST.format(name="greedy")})
    with serve(ladder) as server:
        assert server.upload(None, archive)[0] == 401
        assert server.upload("not-a-token", archive)[0] == 401
        assert server.call("GET", "/api/submissions/1")[0] == 401
        status, reply = server.upload(alice, archive)
        assert status == 202 and reply["status"] == "checking"
        mine = reply["id"]
        # Another author's submission is not found, whether or not it exists.
        assert server.call("GET", f"/api/submissions/{mine}", bob)[0] == 404
        assert server.call("GET", "/api/submissions/999", bob)[0] == 404
        assert server.call("GET", "/api/submissions", bob)[1] == {"submissions": []}
        done = server.wait(alice, mine)
        assert done["status"] == "rejected"
        assert "taken by the ladder's own bot 'greedy'" in str(done["reason"])
        # Pages: another author's submission page and logs are not found either.
        web = WebSession(server.url)
        assert web.sign_in(bob)[0] == 200
        assert web.get(f"/my/submissions/{mine}")[0] == 404
        assert web.get(f"/my/submissions/{mine}/logs/x.log")[0] == 404
        own = WebSession(server.url)
        own.sign_in(alice)
        status, page = own.get(f"/my/submissions/{mine}")
        assert status == 200 and "taken by the ladder&#39;s own bot" in page
        # A revoked author can neither submit nor read.
        capsys.readouterr()
        from arena.cli.main import main

        assert main(["ladder", "author", "revoke", str(ladder), "alice"]) == 0
        assert server.upload(alice, archive)[0] == 401
        assert server.call("GET", f"/api/submissions/{mine}", alice)[0] == 401
        assert own.get("/my")[1].count("Sign in") >= 1  # the session ends with the author


def test_security_headers_and_csrf(ladder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alice = add_author(ladder, "alice", capsys)
    with serve(ladder) as server:
        _, _, headers = server.call("GET", "/api/submissions")
        lowered = {k.lower(): v for k, v in headers.items()}
        assert "default-src 'none'" in lowered["content-security-policy"]
        assert lowered["x-frame-options"] == "DENY"
        assert lowered["x-content-type-options"] == "nosniff"
        web = WebSession(server.url)
        web.get("/signin")
        # Sign-in without the form's own value is refused, even with the right token.
        assert web.post("/signin", {"csrf": "0" * 32, "token": alice})[0] == 403
        assert web.sign_in("wrong")[0] == 401
        assert web.sign_in(alice)[0] == 200
        session = next(c for c in web.jar if c.name == "arena_session")
        assert alice not in (session.value or "")
        assert session.has_nonstandard_attr("HttpOnly")
        # An upload without the session's CSRF token is refused before it is read.
        status, _ = web.post("/my/upload", {"archive": "x"}, "application/x-www-form-urlencoded")
        assert status == 403
        status, _ = web.post("/my/upload?csrf=" + "0" * 64, {"archive": "x"})
        assert status == 403
        assert web.post("/signout", {"csrf": "bad"})[0] == 403


def test_size_and_rate_limits(ladder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alice = add_author(ladder, "alice", capsys)
    with serve(ladder, "--max-archive-mb", "1", "--per-hour", "2") as server:
        status, reply = server.upload(alice, os.urandom(2 * 1024 * 1024))
        assert status == 413 and "larger than 1 MiB" in str(reply["error"])
        status, reply = server.upload(alice, b"#!/bin/sh\necho not an archive\n")
        assert status == 400 and reply["error"] == "not a .tar.gz, .tar or .zip archive"
        archive = tar_gz({"bot.toml": MANIFEST.format(name="greedy")})
        assert server.upload(alice, archive)[0] == 202
        assert server.upload(alice, archive)[0] == 202
        status, reply = server.upload(alice, archive)
        assert status == 429 and "at most 2 submissions an hour" in str(reply["error"])


def _many_files() -> bytes:
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=1) as packed,
        tarfile.open(fileobj=packed, mode="w", format=tarfile.USTAR_FORMAT) as tar,
    ):
        for n in range(100_000):
            tar.addfile(tarfile.TarInfo(f"f{n}"))
    return buffer.getvalue()


def _zip_bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("bot.toml", MANIFEST.format(name="bomb"))
        zipped.writestr("zeros", b"\0" * (60 * 1024 * 1024))
    return buffer.getvalue()


class _Listener:
    """A TCP server on the host: a build that reaches it has the network."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.sock.close()


def test_hostile_uploads_are_rejected_and_leave_nothing(
    ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    needs_bwrap()
    alice = add_author(ladder, "alice", capsys)
    listener = _Listener()
    network = (
        f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {listener.port}), "
        f"timeout=5); print('connected')\""
    )
    cases = {
        "dot-dot": (tar_gz({"bot.toml": MANIFEST.format(name="a"), "../x": "x"}), "'..'"),
        "absolute": (tar_gz({"bot.toml": MANIFEST.format(name="a"), "/x": "x"}), "absolute path"),
        "symlink": (
            tar_gz({"bot.toml": MANIFEST.format(name="a")}, {"passwd": "/etc/passwd"}),
            "points outside the folder",
        ),
        "manifest-link": (tar_gz({}, {"bot.toml": "/etc/passwd"}), "points outside the folder"),
        "zip-bomb": (_zip_bomb(), "unpacks to more than 100 times its size"),
        "many-files": (_many_files(), "more than 20000 entries"),
        "no-manifest": (tar_gz({"bot.js": "x"}), "no bot.toml at the archive's root"),
        "host-path": (
            tar_gz({"bot.toml": MANIFEST.format(name="a") + '[sandbox]\nread_only = ["/etc"]\n'}),
            "sandbox.read_only may name only paths inside the submission's folder",
        ),
        "host-cwd": (
            tar_gz({"bot.toml": MANIFEST.format(name="a").replace('"."', '"/tmp"')}),
            "working_directory must be inside the submission's folder",
        ),
        "host-program": (
            tar_gz({"bot.toml": 'name = "a"\ncommand = ["' + sys.executable + '"]\n'}),
            "neither in the submission's folder nor in the system's",
        ),
        "host-path-env": (
            tar_gz({"bot.toml": MANIFEST.format(name="a") + '[env]\nPATH = "/root/bin"\n'}),
            "env.PATH may not be set by a submitted bot",
        ),
        "network-build": (
            tar_gz({"bot.toml": MANIFEST.format(name="net") + "build = '''" + network + "'''\n"}),
            "the build exited with status 1",
        ),
    }
    try:
        with serve(ladder, "--per-hour", "50") as server:
            ids = {}
            for case, (archive, _) in cases.items():
                status, reply = server.upload(alice, archive)
                assert status == 202, (case, reply)
                ids[case] = reply["id"]
            for case, (_, reason) in cases.items():
                done = server.wait(alice, int(ids[case]))
                assert done["status"] == "rejected", (case, done)
                assert reason in str(done["reason"]), (case, done["reason"])
            build = server.wait(alice, int(ids["network-build"]))["report"]
            # Inside, the loopback is the sandbox's own: nothing listens there.
            assert "ConnectionRefusedError" in build["build"]["output"]
    finally:
        listener.close()
    assert listener.connections == 0
    # Nothing of any of them is left: no staging folder, no archive, nothing beside them.
    # (uploads/: where bodies are received, emptied as each becomes a submission)
    assert data_files(ladder) == {"archives", "staging", "uploads"}
    assert not (tmp_path / "x").exists() and not Path("/x").exists()
    left = {
        p.name for p in tmp_path.iterdir() if not p.name.startswith(("server-", "open.sqlite-"))
    }
    # (replays/: the ladder's replay folder, made by `ladder create`, not by an upload)
    assert left == {"open.sqlite", "open.sqlite.data", "open.toml", "replays"}
