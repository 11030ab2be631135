"""A competition on a host where bwrap does not run (``ARENA_BWRAP`` pointing nowhere,
as where user namespaces are refused): a stranger's bot is built, checked and played
at Landlock ``limits``, from a ladder whose data folder its uid cannot even pass
(pytest's folders are root-only), and the match is recorded at that level."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.hosting.confine import landlock_abi
from tests.submissions.conftest import JS_KIT, add_author, needs_js_kit, serve, submit

pytestmark = pytest.mark.slow  # every test here starts processes or servers


def test_a_submitted_bot_plays_at_landlock_limits_without_bwrap(
    ladder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if landlock_abi() == 0:
        pytest.skip("[landlock] this kernel offers no Landlock")
    needs_js_kit()
    monkeypatch.setenv("ARENA_BWRAP", "/nonexistent/bwrap")
    alice = add_author(ladder, "alice", capsys)
    with serve(ladder) as server:
        code, out = submit(server.url, JS_KIT, alice, capsys)
        assert code == 0, out
        assert "accepted: js-starter version 1" in out
    assert main(["ladder", "run", str(ladder), "--quiet", "--no-leaderboard"]) == 0
    capsys.readouterr()
    assert main(["ladder", "history", str(ladder), "--json"]) == 0
    matches = json.loads(capsys.readouterr().out)["matches"]
    assert matches, "no match was played"
    for match in matches:
        assert set(match["sandbox"]) == {"limits"}, match
        assert match["faults"] == [0] * len(match["faults"]), match
