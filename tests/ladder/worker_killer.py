"""A plugin for the Dask tests: a match with a bot named "killer" kills the Dask worker
it runs on, from the referee's side, as a machine that runs out of memory would.  (A
bot cannot: it runs as a uid of its own, or in namespaces of its own, and its signal to
the worker fails, which tests/hosting/test_hostile.py checks.)"""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence

from arena.plugins import MatchContext, hookimpl
from arena.referee.observers import MatchObserver


@hookimpl
def arena_match_observers(context: MatchContext) -> Sequence[MatchObserver]:
    if "killer" in context.players:
        # The referee runs in the worker's match pool: its parent is the worker.
        os.kill(os.getppid(), signal.SIGKILL)
    return []
