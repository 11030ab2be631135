"""With ``ARENA_EXPECT_COMPILED=FILE`` (make test's pass over ``build/compiled``), the
modules listed in FILE must be the compiled ones: a pass that quietly imported the
pure modules again would prove nothing."""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    listing = os.environ.get("ARENA_EXPECT_COMPILED")
    if not listing:
        return
    for name in Path(listing).read_text().split():
        origin = importlib.import_module(name).__file__ or ""
        if not origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            raise pytest.UsageError(f"{name} is not the compiled module: it came from {origin}")


#: ``ARENA_REQUIRE_SANDBOX=bwrap,landlock``: the sandbox mechanisms this host must have,
#: and ``ARENA_REQUIRE_TOOLS=chromium,go,...`` the tools (CI sets both).  A test that
#: would skip for want of one of them, its reason tagged ``[bwrap]``, ``[landlock]``,
#: ``[chromium]``, ``[go]``, ``[cpp]``, ``[node]``, ``[openspiel]``, ``[dask]``,
#: ``[learn]``, ``[rlcard]`` or ``[dev]``, fails instead: a guard whose mechanism
#: broke, or a tool CI failed to install, must not turn its tests into skips while the
#: suite stays green.
REQUIRED_ENV = ("ARENA_REQUIRE_SANDBOX", "ARENA_REQUIRE_TOOLS")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or not isinstance(report.longrepr, tuple):
        return
    reason = str(report.longrepr[2]).removeprefix("Skipped: ")
    required = {
        name.strip() for env in REQUIRED_ENV for name in os.environ.get(env, "").split(",") if name
    }
    tag = reason[1 : reason.find("]")] if reason.startswith("[") else None
    if tag in required:
        report.outcome = "failed"
        report.longrepr = f"{tag} is required here ({' or '.join(REQUIRED_ENV)}), and this test would skip: {reason}"


class _StartsProcesses(Exception):
    pass


@functools.cache
def _prewarm() -> None:
    """What this process caches once, whichever test asks first: the host's sandbox
    probe runs bwrap the first time.  Done before any test, so that whether a test
    starts a process does not depend on the order the tests ran in."""
    from arena.hosting.host import probe_host

    probe_host()


def _refuse_processes(item: pytest.Item) -> Any:
    """While a test not marked ``slow`` runs in the fast loop, starting a process fails
    it: the marker says what the fast loop may leave out, so it must not lie."""

    def refuse(*_: object, **__: object) -> Any:
        raise _StartsProcesses(
            f"{item.nodeid} starts a process: mark it @pytest.mark.slow (make test-fast leaves those out)"
        )

    return refuse


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    fast_loop = "not slow" in (item.config.getoption("markexpr", "") or "")
    if not fast_loop or item.get_closest_marker("slow") is not None:
        yield
        return
    _prewarm()
    refuse = _refuse_processes(item)
    saved = (subprocess.Popen.__init__, os.fork, os.posix_spawn)
    # Patched in place (and put back below) so that no test of the fast loop starts one.
    subprocess.Popen.__init__ = refuse  # type: ignore[method-assign]
    os.fork = refuse
    os.posix_spawn = refuse
    try:
        yield
    finally:
        subprocess.Popen.__init__, os.fork, os.posix_spawn = saved  # type: ignore[method-assign]
