"""Running bots: manifests, sandboxed processes and their cleanup.

```python
command = load_manifest(Path("bots/greedy/bot.toml"))
level = resolve_level("auto")
with BotProcess.start(command, level, run_dir) as bot:
    bot.wait_ready(timeout=10)
    ...  # talk gRPC to bot.address
```
"""

from arena.hosting.errors import BotStartError, HostingError, ManifestError
from arena.hosting.limits import Limits
from arena.hosting.manifest import BotCommand, load_manifest
from arena.hosting.process import ADDRESS_ENV, BotProcess
from arena.hosting.sandbox import SandboxLevel, resolve_level

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
