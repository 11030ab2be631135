"""Running bots: manifests, sandboxed processes and their cleanup.

```python
command = load_manifest(Path("bots/greedy/bot.toml"))
level = resolve_level("auto")
with BotProcess.start(command, level, run_dir) as bot:
    bot.wait_ready(timeout=10)
    ...  # talk gRPC to bot.address
```

The names below are imported when first used: a bot process imports
``arena.hosting.errors`` (through the plugin manager) and should not pay for the
process launcher, the sandbox and gRPC's client on the way.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.hosting.errors import BotStartError, HostingError, ManifestError
    from arena.hosting.limits import Limits
    from arena.hosting.manifest import BotCommand, load_manifest
    from arena.hosting.process import ADDRESS_ENV, BotProcess
    from arena.hosting.sandbox import SandboxLevel, resolve_level

_HOMES = {
    "ADDRESS_ENV": "process",
    "BotCommand": "manifest",
    "BotProcess": "process",
    "BotStartError": "errors",
    "HostingError": "errors",
    "Limits": "limits",
    "ManifestError": "errors",
    "SandboxLevel": "sandbox",
    "load_manifest": "manifest",
    "resolve_level": "sandbox",
}

__all__ = [
    "ADDRESS_ENV",
    "BotCommand",
    "BotProcess",
    "BotStartError",
    "HostingError",
    "Limits",
    "ManifestError",
    "SandboxLevel",
    "load_manifest",
    "resolve_level",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
