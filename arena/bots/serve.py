"""``python -m arena.bots.serve search --playouts 800 [--max-ms MS] [--address ADDR]``:
serve a reference bot with its options (``arena.bots.reference.main``).

A module of its own so that ``-m`` does not run ``arena.bots.reference`` a second
time (the package imports it to register the built-in bots)."""

from __future__ import annotations

import sys

from arena.bots.reference import main

if __name__ == "__main__":
    main(sys.argv[1:])
