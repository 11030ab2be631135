"""Nothing left behind, ever (issue 36): every hostile archive goes through the check and
``staging/`` is empty afterwards; a server started over a full ``staging/`` empties it;
and, against a real server, a build that rewrites its manifest reveals nothing."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import stat
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.storage import LadderStore
from arena.storage.submissions_store import SubmissionStore
from arena.submissions.layout import DataLayout
from arena.submissions.pipeline import check_submission
from arena.submissions.worker import CheckQueue
from tests.submissions.conftest import add_author, needs_bwrap, serve, tar_gz

pytestmark = pytest.mark.slow  # every test here starts processes or servers

MANIFEST = 'name = "{name}"\ncommand = ["sh", "run.sh"]\n'


def _tar(entries: list[tuple[tarfile.TarInfo, bytes | None]], compress: bool = True) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if compress else "w") as tar:
        for info, data in entries:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, None if data is None else io.BytesIO(data))
    return buffer.getvalue()


def _entry(name: str, data: bytes | None = b"x", kind: bytes = tarfile.REGTYPE, mode: int = 0o644,
           target: str = "") -> tuple[tarfile.TarInfo, bytes | None]:  # fmt: skip
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.linkname = target
    return info, data if kind == tarfile.REGTYPE else None


def _zip(entries: list[tuple[str, bytes, int]], method: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as zipped:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            info.compress_type = method
            zipped.writestr(info, data)
    return buffer.getvalue()


def _many(count: int) -> bytes:
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=1) as packed,
        tarfile.open(fileobj=packed, mode="w", format=tarfile.USTAR_FORMAT) as tar,
    ):
        for n in range(count):
            tar.addfile(tarfile.TarInfo(f"f{n}"))
    return buffer.getvalue()


def _bad_crc_after_a_first_file() -> bytes:
    """A zip whose second file fails its CRC once written: the first is on disk by then."""
    data = bytearray(_zip([("first", b"a" * 1000, 0), ("second", b"b" * 1000, 0)]))
    at = data.rindex(b"b" * 1000)
    data[at] = ord("c")
    return bytes(data)


def _deep_valid_then_refused() -> bytes:
    """64 folders deep (allowed) of files, then no manifest: written, then refused."""
    deep = "/".join(["d" * 15] * 63)
    return _tar([_entry(f"{deep}/f{n}") for n in range(50)])


GOOD = MANIFEST.format(name="x").encode()
HOSTILE: dict[str, Callable[[], bytes]] = {
    "symlink-out": lambda: _tar([_entry("bot.toml", GOOD), _entry("l", None, tarfile.SYMTYPE, target="/etc")]),
    "symlink-chain": lambda: _tar([_entry("s", None, tarfile.SYMTYPE, target="."),
                                   _entry("t", None, tarfile.SYMTYPE, target="s/..")]),
    "hard-link": lambda: _tar([_entry("h", None, tarfile.LNKTYPE, target="/etc/passwd")]),
    "device": lambda: _tar([_entry("bot.toml", GOOD), _entry("null", None, tarfile.CHRTYPE)]),
    "fifo": lambda: _tar([_entry("bot.toml", GOOD), _entry("p", None, tarfile.FIFOTYPE)]),
    "zip-device": lambda: _zip([("bot.toml", GOOD, 0), ("n", b"", stat.S_IFCHR | 0o644)]),
    "zip-link": lambda: _zip([("l", b"/etc/passwd", stat.S_IFLNK | 0o777)]),
    "zip-bomb": lambda: _zip([("bot.toml", GOOD, 0), ("z", b"\0" * (30 << 20), 0)],
                             zipfile.ZIP_DEFLATED),
    "tar-bomb": lambda: _tar([_entry("bot.toml", GOOD), _entry("z", b"\0" * (30 << 20))]),
    "deep-2100": lambda: _tar([_entry("/".join(["d"] * 2100) + "/x")]),
    "deep-zip": lambda: _zip([("bot.toml", GOOD, 0), ("/".join(["d"] * 2100) + "/x", b"x", 0)]),
    "long-name": lambda: _tar([_entry("bot.toml", GOOD), _entry("n" * 300)]),
    "long-path": lambda: _tar([_entry("/".join(["n" * 250] * 20))]),
    "duplicate": lambda: _tar([_entry("bot.toml", GOOD), _entry("bot.toml", GOOD)]),
    "file-and-folder": lambda: _zip([("a", b"1", 0), ("a/b", b"2", 0)]),
    "30000-entries": lambda: _many(30_000),
    "setuid-no-manifest": lambda: _tar([_entry("run", b"#!/bin/sh\n", mode=0o6755)]),
    "absolute": lambda: _tar([_entry("bot.toml", GOOD), _entry("/tmp/x")]),
    "dot-dot": lambda: _tar([_entry("bot.toml", GOOD), _entry("../../x")]),
    "plain-tar-dot-dot": lambda: _tar([_entry("../x")], compress=False),
    "bad-crc": _bad_crc_after_a_first_file,
    "deep-valid-no-manifest": _deep_valid_then_refused,
    "not-an-archive": lambda: b"#!/bin/sh\nrm -rf /\n" * 40,
    "toml-bomb": lambda: _tar([_entry("bot.toml", b"x = " + b"[" * 20_000), _entry("pad", os.urandom(2048))]),
    "host-read-only": lambda: _tar([_entry("bot.toml", GOOD + b'[sandbox]\nread_only = ["/etc"]\n')]),
}  # fmt: skip


def test_every_hostile_archive_is_refused_and_staging_is_left_empty(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_author(ladder, "mallory", capsys)
    layout = DataLayout.of(ladder)
    store = LadderStore.open(ladder)
    try:
        submissions = SubmissionStore(store)
        author = submissions.authors()[0].id
        ids = {}
        for case, build in HOSTILE.items():  # staging filled with all of them at once
            archive = build()
            ids[case] = submissions.add_submission(
                author, hashlib.sha256(archive).hexdigest(), len(archive)
            )
            staging = layout.staging(ids[case])
            staging.mkdir(mode=0o700)
            (staging / "archive").write_bytes(archive)
    finally:
        store.close()
    for sid in ids.values():
        check_submission(ladder, sid)
    assert list((layout.root / "staging").iterdir()) == []
    assert list((layout.root / "archives").iterdir()) == []
    store = LadderStore.open(ladder)
    try:
        submissions = SubmissionStore(store)
        for case, sid in ids.items():
            submission = submissions.submission(sid)
            assert submission is not None and submission.status == "rejected", case
            reason = str(submission.reason)
            assert "internal error" not in reason and "\n" not in reason, (case, reason)
            assert str(layout.root) not in reason, (case, reason)
    finally:
        store.close()


def test_a_server_started_over_a_full_staging_folder_empties_it(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a server killed mid-check left (here: a tree 3,000 deep and a closed folder)
    is gone when the next one starts."""
    layout = DataLayout.of(ladder)
    left = layout.root / "staging" / "17" / "bot"
    left.mkdir(parents=True)
    fd = os.open(left, os.O_RDONLY)
    try:
        for _ in range(3000):
            os.mkdir("d" * 100, dir_fd=fd)
            inner = os.open("d" * 100, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
    (layout.root / "staging" / "stray").write_text("x")
    (layout.root / "staging" / "closed").mkdir(mode=0)
    queue = CheckQueue(ladder)
    try:
        assert queue.recover() == 0
    finally:
        queue.close()
    assert list((layout.root / "staging").iterdir()) == []


def test_against_a_server_a_manifest_rewriting_build_reveals_nothing(
    ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 36's attack, under bwrap: a build appends a host folder to sandbox.read_only;
    the submission is refused naming the field, and the host file's contents are nowhere
    in the ladder's folder.  A TOML bomb and a too-deep archive are refused with reasons,
    and staging/ is empty afterwards."""
    needs_bwrap()
    secret = tmp_path / "host-secret"
    secret.mkdir()
    (secret / "key").write_text("TOP-SECRET-7f3a")
    mallory = add_author(ladder, "mallory", capsys)
    rewrite = (
        'name = "leaky"\ncommand = ["sh", "run.sh"]\n'
        f"build = '''printf '[sandbox]\\nread_only = [\"{secret}\"]\\n' >> bot.toml'''\n"
    )
    leaky = tar_gz({"bot.toml": rewrite, "run.sh": f"cat {secret}/key >&2; exec sleep 60\n"})
    bomb = tar_gz({"bot.toml": "x = " + "[" * 20_000, "pad": os.urandom(2048).hex()})
    deep = tar_gz({"/".join(["d"] * 2100) + "/x": "x"})
    with serve(ladder, "--per-hour", "50") as server:
        ids = {}
        for case, archive in (("leaky", leaky), ("bomb", bomb), ("deep", deep)):
            status, reply = server.upload(mallory, archive)
            assert status == 202, (case, reply)
            ids[case] = int(str(reply["id"]))
        reasons = {case: str(server.wait(mallory, sid)["reason"]) for case, sid in ids.items()}
    assert reasons["leaky"].startswith("bot.toml: the build changed 'sandbox'")
    assert "nested 20000 deep, more than 32" in reasons["bomb"]
    assert "2101 names deep, more than 64" in reasons["deep"]
    data = Path(f"{ladder}.data")
    assert list((data / "staging").iterdir()) == []
    for path in [*data.rglob("*"), *ladder.parent.glob("open.sqlite*")]:
        if path.is_file():
            assert b"TOP-SECRET-7f3a" not in path.read_bytes(), path
    for path in (ladder.parent / "replays").rglob("*"):
        if path.is_file():
            assert b"TOP-SECRET-7f3a" not in path.read_bytes(), path
