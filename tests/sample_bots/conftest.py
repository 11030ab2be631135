"""Make the sample bots importable from the source tree when they are not installed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SOURCE = Path(__file__).resolve().parents[2] / "sample_bots" / "python"

if importlib.util.find_spec("arena_sample_bots") is None:
    sys.path.insert(0, str(_SOURCE))
