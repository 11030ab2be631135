"""``python -m arena.hosting.serve_python_bot NAME``: serve a registered Python bot.

This is the command the arena runs (in the sandbox) for a bot named by plugin or
built-in name, so that Python bots run isolated like any other.
"""

from __future__ import annotations

import sys

from arena.bots import BUILTIN_BOTS
from arena.sdk import serve


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in BUILTIN_BOTS:
        sys.exit(
            f"usage: python -m arena.hosting.serve_python_bot NAME (one of: {', '.join(BUILTIN_BOTS)})"
        )
    serve(BUILTIN_BOTS[sys.argv[1]](), argv=sys.argv[2:])


if __name__ == "__main__":
    main()
