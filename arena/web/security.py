"""The one security layer every answer of ``arena serve`` passes through, and the ids
its URLs take.

:class:`SecurityHeaders` wraps the web application (the view and, with
``--submissions``, the submission pages and API): every response gets
:data:`SECURITY_HEADERS`, and ``Cache-Control: no-store`` unless it set a cache policy
of its own (only the static assets do).  An author's answers are ``no-store`` whatever
their handler set: the private paths (:func:`is_private`: ``/my*``, ``/signin``,
``/signout``, ``/api/submissions*``) and every answer to a request that carries
credentials (a bearer token or the session cookie), the static assets apart (the same
bytes for everyone).  An exception that escapes the app is answered here, with the
headers, as a plain 500; Starlette's own last-resort 500 would go out from outside
every middleware, without them.

Ids in URLs (``/matches/{match_id:id}``) use the ``id`` convertor: the decimal numbers
SQLite can hold (0 to 2**63 - 1).  A longer number matches no route, so it is a 404
like any other unknown path, never an ``OverflowError`` from the database.
"""

from __future__ import annotations

from starlette.convertors import Convertor, register_url_convertor
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "MAX_ID",
    "NO_STORE",
    "SECURITY_HEADERS",
    "SESSION_COOKIE",
    "SecurityHeaders",
    "id_pattern",
    "is_private",
    "route_path",
]

MAX_ID = 2**63 - 1  # SQLite's largest INTEGER: a rowid past it cannot exist

# Scripts and styles only from this server's own files (no inline script, no CDN), no
# framing, nothing sent elsewhere.
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
NO_STORE = "no-store"
SESSION_COOKIE = "arena_session"  # a signed-in author's session (arena.web.submissions)
_PRIVATE = ("/my", "/signin", "/signout", "/api/submissions")
_HEADER_BYTES = [(name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items()]
_NAMES = {name for name, _ in _HEADER_BYTES}
_CACHE_NAMES = {b"cache-control", b"expires", b"etag", b"last-modified"}


def id_pattern(largest: int = MAX_ID) -> str:
    """A regular expression for the decimal numbers 0..``largest`` (no sign, and no
    leading zeros past ``largest``'s length): what ``\\d+`` would be if it knew the
    database's range."""
    digits = str(largest)
    shorter = f"[0-9]{{1,{len(digits) - 1}}}" if len(digits) > 1 else None
    same_length = []
    for place, digit in enumerate(digits):
        if digit != "0":
            rest = len(digits) - place - 1
            tail = f"[0-9]{{{rest}}}" if rest else ""
            lower = "0" if digit == "1" else f"0-{int(digit) - 1}"
            same_length.append(f"{digits[:place]}[{lower}]{tail}")
    same_length.append(digits)
    return "|".join(([shorter] if shorter else []) + same_length)


class IdConvertor(Convertor[int]):
    """``{name:id}``: a row id within SQLite's range (see the module docstring)."""

    regex = f"(?:{id_pattern()})"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        if not 0 <= int(value) <= MAX_ID:
            raise ValueError(f"{value} is not a row id (0..{MAX_ID})")
        return str(int(value))


register_url_convertor("id", IdConvertor())

_ERROR_BODY = b"internal server error\n"


def is_private(path: str) -> bool:
    """An author's own path (``path`` as routed, without the app's ``root_path``)."""
    return any(path == prefix or path.startswith(prefix + "/") for prefix in _PRIVATE)


def route_path(scope: Scope) -> str:
    """The path as the app's routes see it: without the ``root_path`` the server (or a
    proxy's prefix, ``arena serve --root-path``) put in front of it."""
    path: str = scope["path"]
    prefix: str = scope.get("root_path", "")
    return path[len(prefix) :] if prefix and path.startswith(prefix) else path


def _credentialed(scope: Scope) -> bool:
    """The request carries a bearer token or the session cookie."""
    cookie = SESSION_COOKIE.encode() + b"="
    for name, value in scope.get("headers", []):
        if name == b"authorization" or (name == b"cookie" and cookie in value):
            return True
    return False


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` (and ``no-store`` where no cache policy is set, or
    wherever an author's answer goes: see the module docstring) to every response, and
    answers an escaping exception itself (pure ASGI: streams pass through untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        path = route_path(scope)
        private = is_private(path) or (_credentialed(scope) and not path.startswith("/static/"))

        async def with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [
                    (name, value)
                    for name, value in message.get("headers", [])
                    if name.lower() not in _NAMES  # ours win: nothing can weaken them
                    and not (private and name.lower() in _CACHE_NAMES)
                ]
                if not any(name.lower() == b"cache-control" for name, _ in headers):
                    headers.append((b"cache-control", NO_STORE.encode()))
                message["headers"] = [*headers, *_HEADER_BYTES]
            await send(message)

        try:
            await self.app(scope, receive, with_headers)
        except Exception:
            if not started:
                await with_headers(
                    {
                        "type": "http.response.start",
                        "status": 500,
                        "headers": [
                            (b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(_ERROR_BODY)).encode()),
                            (b"connection", b"close"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": _ERROR_BODY})
            raise  # the server logs it; the answer is already ours
