"""Resource limits applied to a bot process."""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    """Per-bot resource limits, applied as rlimits at the ``limits`` and ``bwrap`` levels.

    ``cpu_seconds``   RLIMIT_CPU: CPU time for the whole life of the process
                      (SIGXCPU at the limit, SIGKILL one second later).
    ``memory_mb``     RLIMIT_AS: address space, not resident memory.
    ``file_size_mb``  RLIMIT_FSIZE: largest file the bot may write, its logs included.
    ``open_files``    RLIMIT_NOFILE.
    ``processes``     RLIMIT_NPROC, counted per user. Under ``bwrap`` the count is
                      per sandbox (its own user namespace); at ``limits`` level it is
                      added to what the user already runs. Linux never enforces it
                      for root, and a root referee's bots are root outside the sandbox.
    """

    cpu_seconds: int = 600
    memory_mb: int = 2048
    file_size_mb: int = 64
    open_files: int = 256
    processes: int = 64

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"Limits.{field.name} must be a positive integer, got {value!r}")
