"""A modest limit on failed sign-ins and wrong tokens per client address.

Tokens are 32 random bytes, so guessing is hopeless anyway; the limit keeps a client
from using the server as an oracle at full speed and from filling the log.  After
``failures`` wrong tokens within ``window`` seconds, an address is answered 429 with
``Retry-After`` (the seconds until its oldest failure leaves the window) before any
token it sends is looked at.  Counted in memory, per server process; behind a reverse
proxy every client has the proxy's address unless the proxy passes the client's on
(see docs/SUBMISSIONS.md).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

__all__ = ["FailureLimit"]

_ADDRESSES = 10_000  # addresses remembered at most: the oldest is forgotten first


class FailureLimit:
    def __init__(
        self,
        failures: int = 20,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if failures < 1 or window <= 0:
            raise ValueError(
                f"a failure limit needs failures >= 1 and window > 0, got {failures}, {window}"
            )
        self.failures = failures
        self.window = window
        self.clock = clock
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, address: str, now: float) -> deque[float]:
        times = self._seen.get(address)
        if times is None:
            return deque()
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._seen[address]
        return times

    def retry_after(self, address: str) -> int | None:
        """Seconds until ``address`` may try again, or None if it may now."""
        with self._lock:
            now = self.clock()
            times = self._recent(address, now)
            if len(times) < self.failures:
                return None
            return max(1, math.ceil(times[0] + self.window - now))

    def failed(self, address: str) -> None:
        with self._lock:
            now = self.clock()
            times = self._recent(address, now)
            if not times:
                self._seen[address] = times
            times.append(now)
            self._seen.move_to_end(address)
            while len(self._seen) > _ADDRESSES:
                self._seen.popitem(last=False)
