"""The event loop the referee and Python bots run on: uvloop's where it is installed
(not on Windows), else asyncio's own.

A match is a chain of gRPC round trips through the loops at both ends, and uvloop's
are cheaper (benchmarks/bench_protocol.py; docs/PERFORMANCE.md).
"""

from __future__ import annotations

import asyncio

__all__ = ["new_event_loop"]


def new_event_loop() -> asyncio.AbstractEventLoop:
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()
