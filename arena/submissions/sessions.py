"""Web sessions for signed-in authors: a signed cookie, and CSRF tokens tied to it.

The token is typed once; the browser then holds ``author.expiry.nonce.signature``
(HMAC-SHA256 under a key kept in the ladder's data folder, mode 0600), never the token.
Each form carries ``HMAC(key, "csrf:" + nonce)``; the sign-in form, before any session,
a random value that must equal a cookie of the same value (a double-submit cookie).

The signature only says the server made the cookie.  Whether the session still holds
is the database's to say (``SubmissionStore.session_author``): signing out, rotating
the author's token, revoking the author and the lifetime end it there, whatever the
browser keeps.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_LIFETIME", "Session", "SessionKeys"]

_KEY_BYTES = 32


DEFAULT_LIFETIME = 12 * 3600  # seconds: a working day, then the token again


@dataclass(frozen=True)
class Session:
    author_id: int
    nonce: str
    expires: int  # Unix time


class SessionKeys:
    def __init__(self, key: bytes, lifetime_seconds: int = DEFAULT_LIFETIME) -> None:
        if lifetime_seconds < 1:
            raise ValueError(f"a session lasts at least a second, not {lifetime_seconds}")
        self.key = key
        self.lifetime = lifetime_seconds

    @classmethod
    def load(cls, path: Path, lifetime_seconds: int = DEFAULT_LIFETIME) -> SessionKeys:
        """The key in ``path``, made (owner-only) the first time."""
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return cls(path.read_bytes(), lifetime_seconds)
        key = secrets.token_bytes(_KEY_BYTES)
        with os.fdopen(fd, "wb") as file:
            file.write(key)
        return cls(key, lifetime_seconds)

    def _sign(self, text: str) -> str:
        return hmac.new(self.key, text.encode(), hashlib.sha256).hexdigest()

    def issue(self, author_id: int) -> tuple[str, Session]:
        """A new session's cookie, and the session (to record: see the module docstring)."""
        session = Session(author_id, secrets.token_hex(16), int(time.time()) + self.lifetime)
        body = f"{author_id}.{session.expires}.{session.nonce}"
        return f"{body}.{self._sign(body)}", session

    def read(self, cookie: str | None) -> Session | None:
        if not cookie:
            return None
        body, _, signature = cookie.rpartition(".")
        if not hmac.compare_digest(self._sign(body), signature):
            return None
        try:
            author, expiry, nonce = body.split(".")
            if int(expiry) < time.time():
                return None
            return Session(int(author), nonce, int(expiry))
        except ValueError:
            return None

    def csrf(self, session: Session) -> str:
        return self._sign(f"csrf:{session.nonce}")

    def csrf_ok(self, session: Session, token: object) -> bool:
        return isinstance(token, str) and hmac.compare_digest(self.csrf(session), token)
