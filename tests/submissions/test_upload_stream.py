"""The streamed upload parser and the wrong-token limit, on their own."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from arena.submissions.throttle import FailureLimit
from arena.submissions.upload import MultipartFile, UploadError

TYPE = "multipart/form-data; boundary=b0und"


def _form(*parts: tuple[str, str | None, bytes]) -> bytes:
    out = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"' + (
            f'; filename="{filename}"' if filename is not None else ""
        )
        out += f"--b0und\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data + b"\r\n"
    return out + b"--b0und--\r\n"


def _feed(upload: MultipartFile, body: bytes, chunk: int = 7) -> None:
    for start in range(0, len(body), chunk):
        upload.feed(body[start : start + chunk])


def test_the_file_field_is_written_and_hashed_as_it_arrives(tmp_path: Path) -> None:
    data = bytes(range(256)) * 40
    body = _form(("note", None, b"hello"), ("archive", "a.tar.gz", data))
    upload = MultipartFile(TYPE, "archive", tmp_path / "u", 1 << 20, 1 << 21)
    _feed(upload, body)
    received = upload.finish()
    assert received.path.read_bytes() == data
    assert received.sha256 == hashlib.sha256(data).hexdigest()
    assert received.size == len(data) and received.head == data[:512]
    assert (received.path.stat().st_mode & 0o777) == 0o600


@pytest.mark.parametrize(
    ("content_type", "body", "status", "reason"),
    [
        ("text/plain", b"x", 400, "not a multipart form"),
        (TYPE, _form(("other", "a", b"x")), 400, "no file in the form field 'archive'"),
        (TYPE, _form(("archive", None, b"x")), 400, "no file in the form field 'archive'"),
        (TYPE, _form(("archive", "a", b"x"), ("archive", "b", b"y")), 400, "more than one file"),
        (TYPE, _form(*[("f", None, b"x")] * 5, ("archive", "a", b"x")), 400, "more than 4 fields"),
        (TYPE, _form(("archive", "a", b"x" * 2000)), 413, "larger than 1000 bytes"),
        (TYPE, _form(("f", None, b"x" * 5000), ("archive", "a", b"x")), 413, "larger than"),
        (
            TYPE,
            b'--b0und\r\nContent-Disposition: form-data; name="archive"; filename="a"\r\n\r\nabc',
            400,
            "no file",
        ),
    ],
)
def test_refusals_leave_nothing(
    tmp_path: Path, content_type: str, body: bytes, status: int, reason: str
) -> None:
    path = tmp_path / "u"
    with pytest.raises(UploadError, match=reason) as raised:
        upload = MultipartFile(content_type, "archive", path, 1000, 3000)
        try:
            _feed(upload, body)
            upload.finish()
        except UploadError:
            upload.discard()
            raise
    assert raised.value.status == status
    assert not path.exists()


def test_too_large_is_refused_before_the_rest_is_read(tmp_path: Path) -> None:
    upload = MultipartFile(TYPE, "archive", tmp_path / "u", 1000, 3000)
    body = _form(("archive", "a", b"x" * 100_000))
    fed = 0
    with pytest.raises(UploadError):
        for start in range(0, len(body), 512):
            upload.feed(body[start : start + 512])
            fed += 512
    assert fed <= 2048  # stopped at the cap, not at the end
    upload.discard()
    assert not (tmp_path / "u").exists()


def test_failure_limit_per_address_with_its_wait() -> None:
    now = [1000.0]
    limit = FailureLimit(3, 60.0, clock=lambda: now[0])
    for _ in range(3):
        assert limit.retry_after("a") is None
        limit.failed("a")
    assert limit.retry_after("a") == 60
    assert limit.retry_after("b") is None  # another address is not held
    now[0] += 59.5
    assert limit.retry_after("a") == 1
    now[0] += 1
    assert limit.retry_after("a") is None  # the oldest left the window
