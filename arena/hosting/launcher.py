"""From a bot reference (name, manifest, address) to a connected bot.

References:
- ``grpc://HOST:PORT`` or ``unix:/PATH``: a bot someone else started (a debugger
  session, another host).  Nothing is launched or sandboxed.
- a path to a ``.toml`` manifest: its command is launched in the sandbox.
- a bot name: a registered Python bot, launched in its own process through the
  SDK (or, with ``in_process``, called inside the referee).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.hosting.allowlist import python_import_roots
from arena.hosting.connection import BotConnection, GrpcConnection, InProcessConnection
from arena.hosting.errors import HostingError, UnknownBotError
from arena.hosting.faults import BotFault, SeatStatus
from arena.hosting.in_process import load_manifest_bot
from arena.hosting.limits import Limits
from arena.hosting.logs import DEFAULT_LOG_CAP
from arena.hosting.lookup import is_address
from arena.hosting.manifest import BotCommand, load_manifest
from arena.hosting.process import BotProcess, reachable_copy
from arena.hosting.programs import program_problem
from arena.hosting.sandbox import SandboxLevel, resolve_level
from arena.sdk import Bot

__all__ = [
    "HostedBot",
    "LaunchSettings",
    "SandboxUnavailableError",
    "UnknownBotError",
    "UnstartableBotError",
    "start_bot",
    "start_bots",
]


class SandboxUnavailableError(HostingError, ValueError):
    """The sandbox level asked for cannot be used here (names the level and why)."""


class UnstartableBotError(HostingError, ValueError):
    """A bot whose program cannot run at all (for commands where that is the user's
    mistake to fix; a ladder records it as the bot's ``start_failed`` fault instead)."""

    @classmethod
    def of(cls, bots: Sequence[HostedBot]) -> UnstartableBotError | None:
        """The error for the first bot that can never start, or ``None``."""
        for bot in bots:
            if bot.unstartable and bot.start_fault is not None:
                return cls(f"cannot start {bot.reference}: {bot.start_fault.reason}")
        return None


@dataclass(frozen=True)
class LaunchSettings:
    sandbox: str = "auto"  # auto | none | limits | bwrap
    run_dir: Path | None = None  # where sockets, work dirs and stderr logs go
    startup_seconds: float = 10.0
    in_process: bool = False
    limits: Limits = field(default_factory=Limits)
    log_cap: int = DEFAULT_LOG_CAP  # bytes kept of each of a bot's stdout and stderr


@dataclass
class HostedBot:
    """A connected bot and whatever was started for it; ``close`` stops it all."""

    reference: str
    connection: BotConnection | None
    sandbox: str
    process: BotProcess | None = None
    stderr_path: str | None = None
    start_fault: BotFault | None = None
    # The program cannot run however often it is started (missing, not executable,
    # bad interpreter): the user named something that cannot work.
    unstartable: bool = False
    own_dir: Path | None = None  # a temporary run folder, removed with the bot
    copy_dir: Path | None = None  # a copy of its folder its uid can reach, removed with it
    manifest_name: str | None = None  # the name its manifest gives (to match its handshake's)

    @property
    def name(self) -> str:
        """The name the bot gave in its handshake; before one, its manifest's name (or
        what the user named it by)."""
        info = getattr(self.connection, "info", None)
        if info is not None and info.name:
            return str(info.name)
        return self.manifest_name or self.reference

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
        if self.process is not None:
            self.process.kill()
        for folder in (self.own_dir, self.copy_dir):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)


def start_bot(
    reference: str,
    settings: LaunchSettings,
    python_bots: Mapping[str, Callable[[], Bot[Any, Any]]],
    python_command: Callable[[str], Sequence[str]],
) -> HostedBot:
    """Start (or reach) the bot and shake hands: ``start_bots`` for one bot."""
    (hosted,) = start_bots([reference], settings, python_bots, python_command)
    return hosted


def start_bots(
    references: Sequence[str],
    settings: LaunchSettings,
    python_bots: Mapping[str, Callable[[], Bot[Any, Any]]],
    python_command: Callable[[str], Sequence[str]],
) -> list[HostedBot]:
    """Start (or reach) every bot, all at once, and shake hands with each.

    The processes are started one after the other in the calling thread (a fork takes
    milliseconds, and the parent-death signal follows the thread that forked); then
    each bot's wait for readiness and handshake runs in a thread of its own, so the
    seats' start-ups (the better part of a second each for a Python bot) overlap.

    A bot that fails to come up is not an exception: its ``HostedBot`` carries a
    ``start_fault`` and the referee forfeits its games.  Bad references and
    manifests raise (``HostingError``) before anything starts, since the user must
    fix them.  Whatever raises, nothing started here outlives the call.
    ``python_bots`` are the registered Python bots by name, and
    ``python_command(name)`` the command that serves one in its own process.
    """
    plans = [_plan(reference, settings, python_bots, python_command) for reference in references]
    hosted: list[HostedBot] = []
    started = time.monotonic()
    try:
        for plan in plans:
            if isinstance(plan, HostedBot):
                hosted.append(plan)
                continue
            bot = _spawn(plan, settings)
            bot.manifest_name = plan.command.name if plan.manifest else None
            hosted.append(bot)
        limit = settings.startup_seconds
        waits = [_Wait(bot, plan, started, limit) for bot, plan in zip(hosted, plans, strict=True)]
        for wait in waits:
            wait.start()
        for wait in waits:
            wait.join()
        for wait in waits:
            wait.finish()
    except BaseException:
        for bot in hosted:
            bot.close()  # threads still waiting on a closed bot give up at once
        raise
    return hosted


@dataclass(frozen=True)
class _Launch:
    """A bot to start, and the command that starts it."""

    reference: str
    command: BotCommand
    manifest: bool  # started from a manifest, whose name the handshake's must match
    level: SandboxLevel  # resolved while planning, so that a level that cannot work raises first


def _plan(
    reference: str,
    settings: LaunchSettings,
    python_bots: Mapping[str, Callable[[], Bot[Any, Any]]],
    python_command: Callable[[str], Sequence[str]],
) -> HostedBot | _Launch:
    """What hosting ``reference`` takes: a launch, or a bot to reach (not connected yet)."""
    if is_address(reference):
        return HostedBot(reference, None, "external")
    if reference in python_bots and settings.in_process:
        try:
            return HostedBot(reference, InProcessConnection(python_bots[reference]()), "in-process")
        except BotFault as fault:
            return HostedBot(reference, None, "in-process", start_fault=fault)
    manifest = False
    if reference in python_bots:
        import_path = [Path(path) for path in sys.path if path and Path(path).is_dir()]
        command = BotCommand(
            name=reference,
            argv=tuple(python_command(reference)),
            cwd=None,
            # The referee's import path, so plugin modules it loaded import in the bot too.
            env={"PYTHONPATH": os.pathsep.join(str(path) for path in import_path)},
            limits=settings.limits,
            source=f"python bot {reference!r}",
            # What it imports outside the Python prefixes: the arena and plugin packages.
            read_only_paths=tuple(python_import_roots()),
        )
    elif reference.endswith(".toml") or Path(reference).is_file():
        command = load_manifest(Path(reference))
        manifest = True
        if settings.in_process:  # the user's own bot, to debug in the referee's process
            bot = HostedBot(reference, None, "in-process", manifest_name=command.name)
            try:
                bot.connection = InProcessConnection(load_manifest_bot(command, Path(reference)))
            except BotFault as fault:
                bot.start_fault = fault
            return bot
    else:
        known = ", ".join(sorted(python_bots)) or "none"
        raise UnknownBotError(
            f"unknown bot {reference!r}: not a grpc://HOST:PORT or unix:PATH address, "
            f"not a manifest file, not a registered bot (registered: {known})"
        )
    try:
        level = resolve_level(settings.sandbox)
    except HostingError as error:  # e.g. bwrap asked for where it cannot work
        raise SandboxUnavailableError(str(error)) from None
    return _Launch(reference, command, manifest, level)


def _spawn(launch: _Launch, settings: LaunchSettings) -> HostedBot:
    """Start the bot's process (or record why it cannot start); not yet ready."""
    command, level = launch.command, launch.level
    problem = program_problem(command)
    if problem is not None:
        fault = BotFault(
            SeatStatus.START_FAILED, f"bot {command.name!r} ({command.source}): {problem}"
        )
        return HostedBot(launch.reference, None, level.value, start_fault=fault, unstartable=True)
    command, copy_dir = reachable_copy(command, level)
    # Without a folder to keep them in, the bot's files (logs included) go when it does.
    own_dir = None if settings.run_dir else Path(tempfile.mkdtemp(prefix="arena-run-"))
    run_dir = settings.run_dir or own_dir
    assert run_dir is not None
    try:
        process = BotProcess.start(command, level, run_dir, log_cap=settings.log_cap)
    except BaseException as error:
        for folder in (own_dir, copy_dir):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
        if not isinstance(error, HostingError):
            raise  # the arena's own trouble (a full disk): not the bot's fault
        fault = BotFault(SeatStatus.START_FAILED, _one_line(str(error)))  # could not run at all
        return HostedBot(launch.reference, None, level.value, start_fault=fault, unstartable=True)
    process.logs_kept = own_dir is None  # a temporary folder goes with the bot
    stderr = None if own_dir else str(process.stderr_path)
    return HostedBot(
        launch.reference,
        None,
        process.level.value,
        process,
        stderr,
        own_dir=own_dir,
        copy_dir=copy_dir,
    )


class _Wait(threading.Thread):
    """One bot's wait for readiness and handshake, beside the others', all within
    ``limit`` seconds of ``started`` (the protocol's start-up limit, which runs from
    the moment the processes were started)."""

    def __init__(
        self, hosted: HostedBot, plan: HostedBot | _Launch, started: float, limit: float
    ) -> None:
        # A daemon: on Ctrl-C the bots are killed and the caller need not wait for this.
        super().__init__(name=f"start {hosted.reference}", daemon=True)
        self.hosted = hosted
        self.label = plan.command.name if isinstance(plan, _Launch) else hosted.reference
        self.deadline = started + limit
        self.limit = limit
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._connect()
        except BaseException as error:  # handed to the caller's thread by ``finish``
            self.error = error

    def _connect(self) -> None:
        hosted = self.hosted
        if hosted.start_fault is not None or hosted.connection is not None:
            return  # failed already, or in-process
        process = hosted.process
        try:
            if process is None:  # an address: nothing started, only reached
                connection = GrpcConnection(hosted.reference, hosted.reference)
            else:
                process.wait_ready(_left(self.deadline), limit=self.limit)
                connection = GrpcConnection(
                    process.address, self.label, describe_exit=lambda: _exit_note(process)
                )
            hosted.connection = connection
            connection.wait_ready(_left(self.deadline), limit=self.limit)
        except HostingError as error:
            hosted.start_fault = BotFault(SeatStatus.START_FAILED, _one_line(str(error)))
        except BotFault as fault:
            hosted.start_fault = fault

    def finish(self) -> None:
        """In the caller's thread: raise what went wrong on the arena's side, and close
        a bot that failed to start."""
        if self.error is not None:
            raise self.error
        hosted = self.hosted
        if hosted.start_fault is not None:
            hosted.close()
            hosted.connection = None


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.0)


def _one_line(text: str) -> str:
    """A multi-line reason (a stderr tail) as one line, for tables and fault records."""
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())


def _exit_note(process: BotProcess) -> str:
    """How a dead bot process ended, for fault reasons ("" while it runs)."""
    code = process.returncode()
    if code is None:
        return ""
    how = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
    tail = _one_line(process.stderr_tail(5))
    return f"process {how}" + (f"; stderr: {tail}" if tail else "")
