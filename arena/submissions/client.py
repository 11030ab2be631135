"""``arena submit``'s side: pack a bot's folder, send it, wait for the verdict (stdlib only).

Packing: every file under the folder except what ``.arenaignore`` names (one pattern a
line, ``#`` comments; a pattern matches a path relative to the folder or any single
name in it, ``dir/`` only folders; ``.git/`` is always left out).  Links that stay inside
the folder travel as links; a link to something outside travels as a copy of what it
points to (so a monorepo's shared folder goes along).
"""

from __future__ import annotations

import fnmatch
import io
import json
import secrets
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.archives import ArchiveError, OuterLinks, pack
from arena.errors import ArenaError

__all__ = ["ClientError", "Reply", "fetch_json", "pack_folder", "send_archive"]

IGNORE_FILE = ".arenaignore"


class ClientError(ArenaError, ValueError):
    """Bad input on the author's side, or a server that cannot be reached."""


@dataclass(frozen=True)
class Reply:
    status: int
    body: dict[str, Any]


def _patterns(folder: Path) -> list[str]:
    path = folder / IGNORE_FILE
    if not path.is_file():
        return []
    lines = (line.strip() for line in path.read_text(errors="replace").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _ignored(relative: str, is_dir: bool, patterns: list[str]) -> bool:
    names = relative.split("/")
    for pattern in patterns:
        only_dirs = pattern.endswith("/")
        pattern = pattern.rstrip("/").lstrip("/")
        if only_dirs and not is_dir:
            continue
        if fnmatch.fnmatchcase(relative, pattern) or (
            "/" not in pattern and fnmatch.fnmatchcase(names[-1], pattern)
        ):
            return True
    return False


def pack_folder(folder: Path) -> bytes:
    """The folder as a .tar.gz (see the module docstring)."""
    if not folder.is_dir():
        raise ClientError(f"{folder}: no such folder")
    if not (folder / "bot.toml").is_file():
        raise ClientError(
            f"{folder}: no bot.toml in it (the manifest the arena starts the bot from)"
        )
    patterns = [".git/", *_patterns(folder)]
    buffer = io.BytesIO()
    try:
        pack(
            folder,
            buffer,
            outer_links=OuterLinks.FOLLOW,
            skip=lambda name, is_dir: _ignored(name, is_dir, patterns),
        )
    except ArchiveError as error:
        raise ClientError(str(error)) from None
    return buffer.getvalue()


def _request(url: str, token: str, data: bytes | None = None, content_type: str = "") -> Reply:
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Accept", "application/json")
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return Reply(response.status, json.loads(response.read() or b"{}"))
    except urllib.error.HTTPError as error:
        try:
            body = json.loads(error.read() or b"{}")
        except ValueError:
            body = {"error": error.reason}
        return Reply(error.code, body if isinstance(body, dict) else {"error": str(body)})
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ClientError(f"{url}: the server cannot be reached: {reason}") from None


def send_archive(base_url: str, token: str, archive: bytes, filename: str) -> Reply:
    boundary = f"arena-{secrets.token_hex(12)}"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; '
        f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode()
    body = head + archive + f"\r\n--{boundary}--\r\n".encode()
    return _request(
        f"{base_url.rstrip('/')}/api/submissions",
        token,
        body,
        f"multipart/form-data; boundary={boundary}",
    )


def fetch_json(base_url: str, token: str, path: str) -> Reply:
    return _request(f"{base_url.rstrip('/')}{path}", token)
