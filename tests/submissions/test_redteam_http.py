"""The red-team suite for the submission server's HTTP side (issue 36, items 2, 5, 6, 7):
each attack that once got through, run against a real server process on a real socket,
failing if it gets through again.

- quotas raced by concurrent uploads, in flight per author and in all, on disk;
- ids past SQLite's range, and the headers on every kind of answer;
- sessions that outlive sign-out, a new token or their lifetime;
- clients that trickle their headers or body, open too many connections, or try
  token after token.
"""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.web.security import MAX_ID, SECURITY_HEADERS
from tests.submissions.conftest import Server, add_author, serve, tar_gz
from tests.submissions.web import WebSession

MANIFEST = 'name = "{name}"\ncommand = ["node", "bot.js"]\nworking_directory = "."\n'
BOUNDARY = "redteamboundary"


def _archive(name: str = "racer", padding: int = 0) -> bytes:
    files: dict[str, bytes | str] = {"bot.toml": MANIFEST.format(name=name)}
    if padding:
        files["pad.bin"] = bytes(padding)
    return tar_gz(files)


def _body(archive: bytes) -> bytes:
    return (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="archive"; filename="a"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + archive
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


def _head(port: int, token: str, length: int, path: str = "/api/submissions") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


def _port(server: Server) -> int:
    return int(server.url.rsplit(":", 1)[1])


def _read_answer(sock: socket.socket) -> tuple[int, dict[str, str], str]:
    """Status, headers and body of the one answer on ``sock`` (read until it closes or
    the body is whole)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and lines[0] else 0
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body.decode(errors="replace")


def _assert_ours(headers: dict[str, str], what: str) -> None:
    lowered = {k.lower(): v for k, v in headers.items()}
    for name, value in SECURITY_HEADERS.items():
        assert lowered.get(name) == value, (what, name, lowered)


def _in_flight(ladder: Path) -> int:
    with sqlite3.connect(ladder) as db:
        return int(db.execute("SELECT COUNT(*) FROM upload_slots").fetchone()[0])


def _race(server: Server, token: str, uploads: int) -> list[tuple[int, dict[str, str], str]]:
    """``uploads`` uploads whose heads all arrive before any body is whole: each has
    sent its head and half its body before the first one finishes."""
    port = _port(server)
    body = _body(_archive())
    socks = []
    for _ in range(uploads):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(_head(port, token, len(body)) + body[: len(body) // 2])
        socks.append(sock)
    time.sleep(1.0)  # every handler has reserved (or been refused) by now
    answers = []
    for sock in socks:
        with contextlib.suppress(OSError):  # closed before the rest: the answer is there
            sock.sendall(body[len(body) // 2 :])
        answers.append(_read_answer(sock))
        sock.close()
    return answers


@pytest.mark.slow
def test_twelve_racing_uploads_against_five_an_hour(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = add_author(ladder, "alice", capsys)
    with serve(ladder, "--per-hour", "5", "--uploads-per-author", "12") as server:
        answers = _race(server, alice, 12)
        statuses = sorted(status for status, _, _ in answers)
        assert statuses == [202] * 5 + [429] * 7, statuses
        for status, headers, body in answers:
            _assert_ours(headers, str(status))
            if status == 429:
                assert "at most 5 submissions an hour: the next one frees at" in body, body
                assert 3500 <= int(headers["retry-after"]) <= 3600
        assert _in_flight(ladder) == 0
        # A sixth, later, is refused as well: the five are counted.
        assert server.upload(alice, _archive())[0] == 429
    assert not list(Path(f"{ladder}.data", "uploads").iterdir())


@pytest.mark.slow
def test_uploads_in_flight_per_author_and_in_all(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = add_author(ladder, "alice", capsys)
    bob = add_author(ladder, "bob", capsys)
    with serve(ladder, "--per-hour", "50", "--uploads-at-once", "3") as server:
        # The default: two at once per author, whatever the hourly limit.
        answers = _race(server, alice, 6)
        statuses = sorted(status for status, _, _ in answers)
        assert statuses == [202] * 2 + [429] * 4, statuses
        assert any("at most 2 uploads at once per author" in body for _, _, body in answers)
        # Three in flight on the server (two of Alice's, one of Bob's): the next is 503.
        port = _port(server)
        body = _body(_archive())
        held = []
        for token in (alice, alice, bob):
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            sock.sendall(_head(port, token, len(body)) + body[:100])
            held.append(sock)
        deadline = time.monotonic() + 10
        while _in_flight(ladder) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        status, reply = server.upload(bob, _archive())
        assert status == 503, (status, reply)
        assert "at most 3 uploads at once on this server" in str(reply["error"])
        for sock in held:
            sock.sendall(body[100:])
            assert _read_answer(sock)[0] == 202
            sock.close()
        assert _in_flight(ladder) == 0


@pytest.mark.slow
def test_disk_quota_over_stored_versions(ladder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alice = add_author(ladder, "alice", capsys)
    with sqlite3.connect(ladder) as db:
        author = db.execute("SELECT id FROM authors WHERE name = 'alice'").fetchone()[0]
        submission = db.execute(
            "INSERT INTO submissions (author_id, status, archive_sha256, archive_bytes, created) "
            "VALUES (?, 'accepted', 'x', 10, '2020-01-01T00:00:00+00:00')",
            (author,),
        ).lastrowid
        db.execute(
            "INSERT INTO bot_versions (author_id, bot_name, version, ladder_name, "
            "archive_sha256, path, submission_id, created, stored_bytes) "
            "VALUES (?, 'big', 1, 'big.v1', 'x', '/nonexistent', ?, '2020', ?)",
            (author, submission, 3 * 1024 * 1024),
        )
    with serve(ladder, "--disk-quota-mb", "2") as server:
        status, reply = server.upload(alice, _archive())
        assert status == 429
        assert str(reply["error"]).startswith("at most 2 MiB stored per author: your versions")
        assert "frees only when the ladder's keeper removes versions" in str(reply["error"])
        assert _in_flight(ladder) == 0


@pytest.mark.slow
def test_a_too_large_body_is_refused_while_it_is_read(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No Content-Length to refuse it by (chunked): the cap is applied as it streams in,
    and nothing of it is left."""
    alice = add_author(ladder, "alice", capsys)
    with serve(ladder, "--max-archive-mb", "1") as server:
        port = _port(server)
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        head = _head(port, alice, 0).replace(b"Content-Length: 0", b"Transfer-Encoding: chunked")
        body = _body(bytes(3 * 1024 * 1024))
        sock.sendall(head)
        try:
            for start in range(0, len(body), 65536):
                chunk = body[start : start + 65536]
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass
        status, headers, text = _read_answer(sock)
        sock.close()
        assert status == 413 and "larger than 1 MiB" in text
        _assert_ours(headers, "413")
        assert _in_flight(ladder) == 0
    assert not list(Path(f"{ladder}.data", "uploads").iterdir())


@pytest.mark.slow
def test_ids_past_the_range_are_404_with_the_headers(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = add_author(ladder, "alice", capsys)
    with serve(ladder) as server:
        web = WebSession(server.url)
        assert web.sign_in(alice)[0] == 200
        for value in (MAX_ID + 1, 2**64, 10**40):
            for path in (
                f"/matches/{value}",
                f"/api/matches/{value}",
                f"/api/matches/{value}/replay",
                f"/api/submissions/{value}",
                f"/my/submissions/{value}",
                f"/my/submissions/{value}/logs/x.log",
                f"/my/bots/x.v1/matches/{value}/stderr",
            ):
                request = urllib.request.Request(server.url + path)
                request.add_header("Authorization", f"Bearer {alice}")
                try:
                    with web.opener.open(request, timeout=30) as response:
                        status, headers = response.status, dict(response.headers)
                except urllib.error.HTTPError as error:
                    status, headers = error.code, dict(error.headers)
                assert status == 404, (path, status)
                _assert_ours(headers, path)


def _cookie(web: WebSession) -> str:
    return next(c.value or "" for c in web.jar if c.name == "arena_session")


def _my_with(server: Server, cookie: str) -> int:
    """The status of /my for a request carrying only ``cookie`` (redirects not followed)."""
    conn = socket.create_connection(("127.0.0.1", _port(server)), timeout=30)
    conn.sendall(
        f"GET /my HTTP/1.1\r\nHost: x\r\nCookie: arena_session={cookie}\r\n"
        "Connection: close\r\n\r\n".encode()
    )
    status, _, _ = _read_answer(conn)
    conn.close()
    return status


@pytest.mark.slow
def test_sessions_end_on_the_server(ladder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alice = add_author(ladder, "alice", capsys)
    with serve(ladder) as server:
        # no-store on the sign-in page, the pages and the API.
        for path, token in (("/signin", None), ("/api/submissions", alice)):
            request = urllib.request.Request(server.url + path)
            if token:
                request.add_header("Authorization", f"Bearer {token}")
            with urllib.request.urlopen(request, timeout=30) as response:
                assert response.headers["cache-control"] == "no-store", path
        web = WebSession(server.url)
        assert web.sign_in(alice)[0] == 200
        with web.opener.open(server.url + "/my", timeout=30) as response:
            assert response.headers["cache-control"] == "no-store"
        # Sign out: the old cookie, replayed, opens nothing.
        cookie = _cookie(web)
        assert _my_with(server, cookie) == 200
        assert web.post("/signout", {"csrf": web.form_csrf()})[0] == 200
        assert _my_with(server, cookie) == 303
        # A new token: the old token and every session signed in with it end.
        again = WebSession(server.url)
        assert again.sign_in(alice)[0] == 200
        cookie = _cookie(again)
        capsys.readouterr()
        assert main(["ladder", "author", "rotate", str(ladder), "alice"]) == 0
        fresh = capsys.readouterr().out.strip().splitlines()[-1]
        assert fresh != alice and len(fresh) >= 40
        assert _my_with(server, cookie) == 303
        assert server.call("GET", "/api/submissions", alice)[0] == 401
        assert server.call("GET", "/api/submissions", fresh)[0] == 200
        assert WebSession(server.url).sign_in(alice)[0] == 401
    with serve(ladder, "--session-hours", str(1.5 / 3600)) as server:  # 1.5 s
        web = WebSession(server.url)
        assert web.sign_in(fresh)[0] == 200
        cookie = _cookie(web)
        assert _my_with(server, cookie) == 200
        time.sleep(2.5)
        assert _my_with(server, cookie) == 303


@pytest.mark.slow
def test_wrong_tokens_are_slowed_down(ladder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alice = add_author(ladder, "alice", capsys)
    with serve(ladder, "--auth-failures", "5") as server:
        for n in range(5):
            assert server.call("GET", "/api/submissions", f"wrong-{n}")[0] == 401
        status, reply, headers = server.call("GET", "/api/submissions", "wrong-6")
        assert status == 429 and "too many wrong tokens" in str(reply["error"])
        assert 1 <= int({k.lower(): v for k, v in headers.items()}["retry-after"]) <= 60
        _assert_ours(headers, "429")
        # Blocked before any token is looked at: the right one too, and the sign-in form.
        assert server.call("GET", "/api/submissions", alice)[0] == 429
        assert WebSession(server.url).sign_in(alice)[0] == 429


@contextmanager
def _trickle(port: int, data: bytes, every: float) -> Iterator[dict[str, float]]:
    """A client that sends ``data`` a byte at a time, ``every`` seconds apart, in a
    thread; ``result["closed"]`` is how long the server took to end it."""
    result: dict[str, float] = {}
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    started = time.monotonic()
    stop = threading.Event()

    def run() -> None:
        try:
            for byte in data:
                if stop.wait(every):
                    return
                sock.sendall(bytes([byte]))
        except OSError:
            pass

    def watch() -> None:
        try:
            while sock.recv(4096):
                pass
        except OSError:
            pass
        result["closed"] = time.monotonic() - started

    threads = [
        threading.Thread(target=run, daemon=True),
        threading.Thread(target=watch, daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        yield result
    finally:
        stop.set()
        threads[1].join(timeout=30)
        sock.close()


@pytest.mark.slow
def test_trickling_clients_are_dropped_while_others_are_served(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = add_author(ladder, "alice", capsys)
    timeout = 2.0
    with serve(
        ladder,
        "--header-timeout", str(timeout),
        "--body-timeout", str(timeout),
        "--uploads-per-author", "10",
    ) as server:  # fmt: skip
        port = _port(server)
        head = b"GET /signin HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 200 + b"\r\n\r\n"
        body = _body(_archive())
        upload = _head(port, alice, len(body)) + body
        with (
            _trickle(port, head, 0.2) as slow_head,
            _trickle(port, upload[: len(upload) - len(body)], 0.0) as whole_head,
            _trickle(port, b"G", 0.0) as one_byte,
        ):
            # whole_head sent its head at once, then trickles nothing of its body.
            time.sleep(0.5)
            assert _in_flight(ladder) == 1  # its slot is taken...
            served = 0
            started = time.monotonic()
            while time.monotonic() - started < timeout + 1.5:
                with urllib.request.urlopen(server.url + "/signin", timeout=5) as response:
                    assert response.status == 200
                    served += 1
                time.sleep(0.1)
            deadline = time.monotonic() + 5
            while len(slow_head) + len(whole_head) + len(one_byte) < 3:
                assert time.monotonic() < deadline, (slow_head, whole_head, one_byte)
                time.sleep(0.1)
        assert served >= 10
        for name, result in (("head", slow_head), ("body", whole_head), ("byte", one_byte)):
            assert timeout - 0.5 <= result["closed"] <= timeout + 1.5, (name, result)
        assert _in_flight(ladder) == 0  # ...and freed when it was dropped
        # A body that trickles at 1 byte every 0.2 s (5 B/s, under 500 B/s) is dropped
        # once its first bytes' grace is spent: body-timeout + bytes / rate.
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(_head(port, alice, len(body)))
        started = time.monotonic()
        closed = None
        try:
            for byte in body:
                sock.sendall(bytes([byte]))
                time.sleep(0.2)
                if time.monotonic() - started > timeout + 3:
                    break
        except OSError:
            closed = time.monotonic() - started
        if closed is None:
            sock.settimeout(5)
            with contextlib.suppress(OSError):
                assert sock.recv(1) == b""
            closed = time.monotonic() - started
        sock.close()
        assert closed <= timeout + 2.5, closed


@pytest.mark.slow
def test_connections_per_address(ladder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    add_author(ladder, "alice", capsys)
    with serve(ladder, "--connections-per-address", "4") as server:
        port = _port(server)
        held = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(4)]
        time.sleep(0.3)
        extra = socket.create_connection(("127.0.0.1", port), timeout=30)
        status, headers, body = _read_answer(extra)
        extra.close()
        assert status == 429 and "at most 4 connections at once from one address" in body
        _assert_ours(headers, "429")
        held.pop().close()
        time.sleep(0.3)
        with urllib.request.urlopen(server.url + "/signin", timeout=5) as response:
            assert response.status == 200
        for sock in held:
            sock.close()


@pytest.mark.slow
def test_a_malformed_request_is_answered_with_the_headers(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve(ladder) as server:
        sock = socket.create_connection(("127.0.0.1", _port(server)), timeout=30)
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        status, headers, _ = _read_answer(sock)
        sock.close()
        assert status == 400
        _assert_ours(headers, "400")


def test_rotate_names_the_author(ladder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["ladder", "author", "rotate", str(ladder), "nobody"]) == 2
    assert "no author 'nobody'" in capsys.readouterr().err
    add_author(ladder, "carol", capsys)
    assert main(["ladder", "author", "revoke", str(ladder), "carol"]) == 0
    capsys.readouterr()
    assert main(["ladder", "author", "rotate", str(ladder), "carol"]) == 2
    assert "author 'carol' is revoked" in capsys.readouterr().err


@pytest.mark.slow
def test_a_forged_forwarded_for_does_not_dodge_the_wrong_token_limit(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_author(ladder, "alice", capsys)
    with serve(ladder, "--auth-failures", "3") as server:
        statuses = []
        for n in range(6):
            request = urllib.request.Request(f"{server.url}/api/submissions")
            request.add_header("Authorization", f"Bearer wrong-{n}")
            request.add_header("X-Forwarded-For", f"203.0.113.{n}")  # a new address each time
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    statuses.append(response.status)
            except urllib.error.HTTPError as error:
                statuses.append(error.code)
        assert statuses == [401, 401, 401, 429, 429, 429]
