"""The learning environments need the ``learn`` extra; without it tests/envs skip,
tagged ``[learn]`` (CI requires it: .ci/run)."""

from __future__ import annotations

import pytest

for _module in ("numpy", "gymnasium", "pettingzoo"):
    pytest.importorskip(
        _module, reason=f"[learn] {_module} is not installed (pip install -e '.[learn]')"
    )
