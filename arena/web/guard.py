"""Slow and greedy clients, held off below the application: uvicorn's HTTP/1.1 protocol
with read deadlines and a cap on connections per client address.

uvicorn drops an idle keep-alive connection, but nothing else: a client that sends its
request line, headers or body a byte at a time keeps its connection (and, for an
upload, its quota slot) for as long as it likes.  :func:`guarded_protocol` gives a
subclass of uvicorn's h11 protocol that measures what the client owes and closes the
connection when it is late:

- **headers**: the whole request head within ``header_timeout`` of the connection (or,
  on a kept-alive connection, of the next request's first byte); nginx's
  ``client_header_timeout``, 60 s.  A late client gets 408 and the connection ends.
- **body**: never more than ``body_timeout`` between two reads (nginx's
  ``client_body_timeout``, 60 s), and on average at least ``body_min_rate`` bytes a
  second after the first ``body_timeout`` (Apache's ``mod_reqtimeout`` ``MinRate``, 500):
  the deadline starts ``body_timeout`` after the head and moves a second later for
  every ``body_min_rate`` bytes.  Time while the server itself stopped reading (the
  application not keeping up) does not count against the client.
- **after an early answer** (a 401, 413 or 429 sent before the body was read): the rest
  of the body is read and thrown away for at most ``linger`` seconds (nginx's
  ``lingering_time``, 30 s), so the client can read the answer, then the connection ends.
- **connections**: at most ``connections_per_address`` open at once from one address;
  the next is answered 429 and closed.

Answers made here (408, 429, and uvicorn's own 400 for a malformed request) carry the
same security headers as the application's (:mod:`arena.web.security`).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from arena.web.security import NO_STORE, SECURITY_HEADERS

__all__ = ["ClientLimits", "guarded_protocol", "raw_response"]


@dataclass(frozen=True)
class ClientLimits:
    header_timeout: float = 60.0  # nginx client_header_timeout
    body_timeout: float = 60.0  # nginx client_body_timeout
    body_min_rate: float = 500.0  # bytes a second (Apache mod_reqtimeout MinRate)
    linger: float = 30.0  # nginx lingering_time
    connections_per_address: int = 64

    def __post_init__(self) -> None:
        for name in ("header_timeout", "body_timeout", "body_min_rate", "linger"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be above 0, got {getattr(self, name)}")
        if self.connections_per_address < 1:
            raise ValueError(
                f"connections per address must be at least 1, got {self.connections_per_address}"
            )


_DRAIN_QUIET = 0.5  # seconds without data after which an answered client has sent all


def raw_response(
    status: int, reason: str, message: str, extra: dict[str, str] | None = None
) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, with the security headers:
    for the answers made below the application."""
    body = (message + "\n").encode()
    headers = {
        "content-type": "text/plain; charset=utf-8",
        "content-length": str(len(body)),
        "connection": "close",
        "cache-control": NO_STORE,
        **SECURITY_HEADERS,
        **(extra or {}),
    }
    head = f"HTTP/1.1 {status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode("latin-1") + b"\r\n" + body


class _Lingering:
    """The transport uvicorn is handed: its ``close`` goes through the protocol, which
    holds it while the client is still sending a body that was answered early (uvicorn
    closes at once after answering a request that said ``Connection: close``, and the
    client, still writing, would see a broken pipe instead of the answer)."""

    def __init__(self, real: asyncio.Transport, close: Any) -> None:
        self.real = real
        self._close = close

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def close(self) -> None:
        self._close()


def guarded_protocol(limits: ClientLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol with ``limits`` (pass it as ``uvicorn.Config(http=...)``).
    Each call makes a class with its own count of connections per address."""
    open_from: dict[str, int] = {}

    class GuardedH11Protocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._address: str | None = None
            self._timer: asyncio.TimerHandle | None = None
            self._owes: str | None = None  # "head" or "body": what the client is late with
            self._since = 0.0  # when it began to owe it
            self._last = 0.0  # its last bytes
            self._bytes = 0  # of the body, so far
            self._answered: float | None = None  # when an answer went out before the body
            self._idle = False  # kept alive between requests: uvicorn's own timeout applies
            self._drain_until: float | None = None  # lingering: the rest of a body is dropped
            self._drained_last = 0.0

        # -- the connection ------------------------------------------------------------

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            self._real_transport = transport
            super().connection_made(_Lingering(transport, self._close_when_drained))  # type: ignore[arg-type]
            address = self.client[0] if self.client else None
            if address is not None:
                if open_from.get(address, 0) >= limits.connections_per_address:
                    self._refuse(
                        429,
                        "Too Many Requests",
                        f"at most {limits.connections_per_address} connections at once "
                        "from one address",
                    )
                    return
                open_from[address] = open_from.get(address, 0) + 1
                self._address = address
            self._check()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._address is not None:
                left = open_from.get(self._address, 1) - 1
                if left > 0:
                    open_from[self._address] = left
                else:
                    open_from.pop(self._address, None)
                self._address = None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            now = time.monotonic()
            if self._drain_until is not None:
                self._drained_last = now  # the rest of an answered body: dropped unread
                return
            self._idle = False
            if self._owes == "body":
                self._bytes += len(data)
                self._last = now
            super().data_received(data)
            self._check()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.conn.their_state is h11.IDLE and not self.conn.trailing_data[0]:
                self._idle = True  # the next request's clock starts with its first byte
            self._check()

        def send_400_response(self, msg: str) -> None:
            self._refuse(400, "Bad Request", msg)

        # -- closing ------------------------------------------------------------------------

        def _close_when_drained(self) -> None:
            """Close now, unless the client is still sending a body already answered:
            then drop what it sends until it stops (quiet for a moment), hangs up, or
            ``linger`` seconds pass, so that it can read the answer."""
            real = self._real_transport
            if self.conn.their_state is not h11.SEND_BODY or real.is_closing():
                real.close()
                return
            if self._drain_until is None:
                now = time.monotonic()
                self._drain_until, self._drained_last = now + limits.linger, now
                self.loop.call_later(_DRAIN_QUIET, self._drained)

        def _drained(self) -> None:
            real = self._real_transport
            if real.is_closing() or self._drain_until is None:
                return
            now = time.monotonic()
            if now >= self._drain_until or now - self._drained_last >= _DRAIN_QUIET:
                real.close()
            else:
                self.loop.call_later(_DRAIN_QUIET, self._drained)

        # -- what the client owes, and when it is due -------------------------------------

        def _refuse(self, status: int, reason: str, message: str) -> None:
            if not self.transport.is_closing():
                self.transport.write(raw_response(status, reason, message))
                self.transport.close()

        def _now_owes(self) -> str | None:
            theirs, ours = self.conn.their_state, self.conn.our_state
            if theirs is h11.SEND_BODY:
                return "body"
            if theirs is h11.IDLE and ours is h11.IDLE and not self._idle:
                return "head"
            return None

        def _check(self) -> None:
            """Called after every event: note what the client owes now, and (re)arm the
            timer when that changed."""
            if self.transport is None or self.transport.is_closing():
                return
            owes = self._now_owes()
            now = time.monotonic()
            changed = owes != self._owes
            if changed:
                self._owes, self._since, self._last, self._bytes = owes, now, now, 0
                self._answered = None
            if owes == "body" and self._answered is None and self.conn.our_state is h11.DONE:
                self._answered = now  # answered before the body came: linger, then close
                changed = True
            if not changed and (self._timer is not None or owes is None):
                return
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if owes is not None:
                self._timer = self.loop.call_later(max(0.0, self._due() - now), self._expire)

        def _due(self) -> float:
            if self._owes == "head":
                return self._since + limits.header_timeout
            due = min(
                self._last + limits.body_timeout,
                self._since + limits.body_timeout + self._bytes / limits.body_min_rate,
            )
            if self._answered is not None:
                due = min(due, self._answered + limits.linger)
            return due

        def _expire(self) -> None:
            self._timer = None
            if self.transport.is_closing():
                return
            if self._now_owes() != self._owes:  # moved on unnoticed: start the new clock
                self._check()
                return
            if self._owes is None:
                return
            now = time.monotonic()
            if self._owes == "body" and self.flow.read_paused:
                # The server stopped reading (the application has not caught up): the
                # client cannot send, so the wait is not the client's.
                self._last = now
                self._since = now - self._bytes / limits.body_min_rate
            due = self._due()
            if now < due:
                self._timer = self.loop.call_later(due - now, self._expire)
                return
            if self._owes == "head":
                self._refuse(
                    408,
                    "Request Timeout",
                    f"the request's head did not arrive within {limits.header_timeout:g} s",
                )
            else:
                self._real_transport.close()  # mid-body: there is no answer to give

    return GuardedH11Protocol
