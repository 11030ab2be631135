"""From a folder to the leaderboard: `arena submit` the JS kit, the ladder plays it, a new
version replaces it, and only its author sees its logs."""

from __future__ import annotations

import json
import re
import shutil
import urllib.request
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.ratings import DEFAULT_ENV
from arena.storage import LadderStore
from tests.submissions.conftest import (
    JS_KIT,
    add_author,
    needs_bwrap,
    needs_js_kit,
    serve,
    submit,
)
from tests.submissions.web import WebSession

pytestmark = pytest.mark.slow  # every test here starts processes or servers


def _board(db: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, object]]:
    capsys.readouterr()
    assert main(["ladder", "leaderboard", str(db), "--json"]) == 0
    return {row["name"]: row for row in json.loads(capsys.readouterr().out)["leaderboard"]}


def test_from_a_folder_to_the_leaderboard(
    ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    needs_bwrap()
    needs_js_kit()
    alice = add_author(ladder, "alice", capsys)
    bob = add_author(ladder, "bob", capsys)
    with serve(ladder) as server:
        code, out = submit(server.url, JS_KIT, alice, capsys)
        assert code == 0, out
        assert "PASS  handshake" in out
        assert "accepted: js-starter version 1, in the ladder as js-starter.v1" in out
        # The name is alice's now: bob's copy of the same kit is refused, naming why.
        code, out = submit(server.url, JS_KIT, bob, capsys)
        assert code == 1
        assert "rejected: the bot name 'js-starter' belongs to another author" in out

        # Content-addressed: the archive and the unpacked bot under its SHA-256.
        (version,) = Path(f"{ladder}.data/archives").iterdir()
        assert re.fullmatch(r"[0-9a-f]{64}", version.name)
        assert (version / "bot" / "bot.toml").is_file()
        assert (version / "bot" / "node_modules").is_dir()  # travelled in the archive

        assert main(["ladder", "run", str(ladder), "--quiet", "--no-leaderboard"]) == 0
        board = _board(ladder, capsys)
        assert board["js-starter.v1"]["matches"] == 1
        # ...and on the same server's leaderboard, as anyone sees it.
        with urllib.request.urlopen(f"{server.url}/api/leaderboard") as reply:
            served = {bot["name"]: bot for bot in json.load(reply)["bots"]}
        assert served["js-starter.v1"]["matches"] == 1
        assert served["js-starter.v1"]["faults"] == 0
        assert board["js-starter.v1"]["faults"] == 0
        assert board["js-starter.v1"]["status"] == "active"

        # Its author sees its matches and stderr logs; nobody else does.
        web = WebSession(server.url)
        assert web.sign_in(alice)[0] == 200
        status, page = web.get("/my/bots/js-starter.v1")
        assert status == 200
        link = re.search(r'href="(/my/bots/js-starter.v1/matches/\d+/stderr)"', page)
        assert link, page
        status, log = web.get(link.group(1))
        assert status == 200 and "[js-starter]" in log
        other = WebSession(server.url)
        other.sign_in(bob)
        assert other.get("/my/bots/js-starter.v1")[0] == 404
        assert other.get(link.group(1))[0] == 404

        # A new version replaces the last one; the old one's results stay, and the new
        # one starts from its mu with sigma reset.
        changed = tmp_path / "js"
        shutil.copytree(JS_KIT, changed, symlinks=False)
        with open(changed / "strategy.js", "a") as file:
            file.write("\n// version 2\n")
        old_mu = board["js-starter.v1"]["mu"]
        code, out = submit(server.url, changed, alice, capsys)
        assert code == 0, out
    board = _board(ladder, capsys)
    assert board["js-starter.v1"]["status"] == "disabled"
    assert board["js-starter.v1"]["matches"] == 1
    assert board["js-starter.v2"]["status"] == "active"
    assert board["js-starter.v2"]["mu"] == old_mu
    assert board["js-starter.v2"]["sigma"] == round(DEFAULT_ENV.initial().sigma, 3)
    store = LadderStore.open(ladder)
    try:
        versions = store.db.execute(
            "SELECT version, archive_sha256 FROM bot_versions ORDER BY version"
        ).fetchall()
    finally:
        store.close()
    assert [row[0] for row in versions] == [1, 2]
    assert versions[0][1] != versions[1][1]


def test_submit_bad_input_exits_2(
    ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = add_author(ladder, "alice", capsys)
    (tmp_path / "empty").mkdir()
    assert main(["submit", "http://127.0.0.1:9", str(tmp_path / "nope"), "--token", alice]) == 2
    assert "no such folder or archive" in capsys.readouterr().err
    assert main(["submit", "http://127.0.0.1:9", str(tmp_path / "empty"), "--token", alice]) == 2
    assert "no bot.toml in it" in capsys.readouterr().err
    (tmp_path / "empty" / "bot.toml").write_text('name = "x"\ncommand = "true"\n')
    assert main(["submit", "http://127.0.0.1:9", str(tmp_path / "empty"), "--token", alice]) == 2
    assert "the server cannot be reached" in capsys.readouterr().err
    with serve(ladder) as server:
        assert main(["submit", server.url, str(tmp_path / "empty"), "--token", "wrong"]) == 2
        assert "the server refused the token" in capsys.readouterr().err
