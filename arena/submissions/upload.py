"""An uploaded archive, streamed from a multipart body to a file as it arrives.

The server never holds a body: each chunk the connection delivers is parsed, the one
file field's bytes are hashed and written to an owner-only file, and the size caps are
applied while reading (the body's and the file's), so an upload costs the server a
chunk of memory (uvicorn stops reading a socket at 64 KiB unread), whatever its size.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from python_multipart.multipart import MultipartParser, parse_options_header

from arena.errors import ArenaError

__all__ = ["MultipartFile", "Received", "UploadError"]

_MAX_PARTS = 4  # the file and a few form fields
_HEAD = 512  # bytes kept to tell the archive's kind


class UploadError(ArenaError, ValueError):
    """An upload refused while it was read: the message is the one-line reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Received:
    path: Path
    sha256: str
    size: int
    head: bytes  # its first bytes


def _mib(size: int) -> str:
    return f"{size // (1024 * 1024)} MiB" if size >= 1024 * 1024 else f"{size} bytes"


class MultipartFile:
    """Feed it a ``multipart/form-data`` body chunk by chunk; it writes the file field
    ``field`` to ``path`` (made new, mode 0600) and refuses (:class:`UploadError`, 413)
    as soon as the file passes ``max_file`` bytes or the body ``max_body``."""

    def __init__(
        self, content_type: str, field: str, path: Path, max_file: int, max_body: int
    ) -> None:
        kind, options = parse_options_header(content_type)
        boundary = options.get(b"boundary")
        if kind != b"multipart/form-data" or not boundary:
            raise UploadError(400, f"not a multipart form with a field {field!r}")
        self.field = field
        self.path = path
        self.max_file = max_file
        self.max_body = max_body
        self.body = 0
        self.size = 0
        self.parts = 0
        self.files = 0
        self.digest = hashlib.sha256()
        self.head = b""
        self.file: IO[bytes] | None = None
        self.ended = False
        self._name = bytearray()
        self._value = bytearray()
        self._headers: dict[str, bytes] = {}
        self._writing = False
        self._error: UploadError | None = None
        self.parser = MultipartParser(
            boundary,
            {
                "on_part_begin": self._part_begin,
                "on_header_field": self._header_field,
                "on_header_value": self._header_value,
                "on_header_end": self._header_end,
                "on_headers_finished": self._headers_finished,
                "on_part_data": self._part_data,
                "on_part_end": self._part_end,
                "on_end": self._end,
            },
        )

    # -- the parser's callbacks: they record a refusal, feed() raises it --------------

    def _part_begin(self) -> None:
        self.parts += 1
        self._headers = {}
        self._writing = False
        if self.parts > _MAX_PARTS:
            self._refuse(400, f"more than {_MAX_PARTS} fields in the form")

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._name += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        self._headers[self._name.decode("latin-1").lower()] = bytes(self._value)
        self._name.clear()
        self._value.clear()

    def _headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get("content-disposition", b""))
        if options.get(b"name") != self.field.encode() or b"filename" not in options:
            return  # another field: read past it
        self.files += 1
        if self.files > 1:
            self._refuse(400, f"more than one file in the form field {self.field!r}")
            return
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        self.file = os.fdopen(fd, "wb")
        self._writing = True

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if not self._writing or self.file is None:
            return
        chunk = data[start:end]
        self.size += len(chunk)
        if self.size > self.max_file:
            self._refuse(413, f"the archive is larger than {_mib(self.max_file)}")
            return
        if len(self.head) < _HEAD:
            self.head += chunk[: _HEAD - len(self.head)]
        self.digest.update(chunk)
        self.file.write(chunk)

    def _part_end(self) -> None:
        self._writing = False

    def _end(self) -> None:
        self.ended = True

    def _refuse(self, status: int, message: str) -> None:
        if self._error is None:
            self._error = UploadError(status, message)
        self._writing = False

    # -- the reader's side ----------------------------------------------------------

    def feed(self, chunk: bytes) -> None:
        self.body += len(chunk)
        if self.body > self.max_body:
            raise UploadError(413, f"the archive is larger than {_mib(self.max_file)}")
        try:
            self.parser.write(chunk)
        except Exception as error:  # python-multipart's own: a malformed form
            raise UploadError(400, f"not a multipart form with a field {self.field!r}") from error
        if self._error is not None:
            raise self._error

    def finish(self) -> Received:
        """The whole body was fed: the file, or why not."""
        try:
            self.parser.finalize()
        except Exception as error:
            raise UploadError(400, f"not a multipart form with a field {self.field!r}") from error
        if self._error is not None:
            raise self._error
        if self.file is None or not self.ended:
            raise UploadError(400, f"no file in the form field {self.field!r}")
        self.close()
        return Received(self.path, self.digest.hexdigest(), self.size, self.head)

    def close(self) -> None:
        if self.file is not None and not self.file.closed:
            self.file.close()

    def discard(self) -> None:
        """Close and remove what was written (a refused or abandoned upload)."""
        self.close()
        self.path.unlink(missing_ok=True)
