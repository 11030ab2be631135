"""A season's end: ``arena ladder freeze`` closes the ladder to uploads and new versions
(one-line reasons, nothing half-written), ``unfreeze`` opens it again, and freezing a
frozen ladder (or opening an open one) is refused."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.storage import LadderStore, StorageError
from arena.storage.submissions_store import FROZEN, Quotas, Refusal, SubmissionStore
from tests.submissions.conftest import add_author, serve, tar_gz
from tests.submissions.test_store import _accept

QUOTAS = Quotas(per_hour=10, in_flight_per_author=2, in_flight=16, disk_bytes=1 << 30)


def test_freeze_and_unfreeze_say_what_they_did_and_refuse_a_second_time(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ladder", "freeze", str(ladder)]) == 0
    assert "frozen: it takes no submissions or new versions" in capsys.readouterr().out
    assert main(["ladder", "freeze", str(ladder)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "the ladder is already frozen (since " in error
    assert main(["ladder", "unfreeze", str(ladder)]) == 0
    assert main(["ladder", "unfreeze", str(ladder)]) == 2
    assert "the ladder is not frozen" in capsys.readouterr().err


def test_a_frozen_ladder_takes_no_upload_and_no_new_version(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_author(ladder, "alice", capsys)
    store = LadderStore.open(ladder)
    try:
        submissions = SubmissionStore(store)
        (alice,) = (author.id for author in submissions.authors())
        # Checked before the freeze, accepted after it: rejected, and nothing added.
        checking = submissions.add_submission(alice, "0" * 64, 1)
        store.set_frozen(True)
        refused = submissions.reserve_upload(alice, QUOTAS)
        assert refused == Refusal(FROZEN, None, closed=True)
        assert isinstance(refused, Refusal) and refused.http_status == 403
        assert submissions.uploads_in_flight(alice) == 0  # no slot taken
        bots_before = [bot.name for bot in store.bots()]
        with pytest.raises(StorageError, match="the ladder is frozen for its final"):
            _accept(submissions, alice, "late", "/nowhere/bot.toml")
        assert [bot.name for bot in store.bots()] == bots_before
        assert submissions.versions(alice) == []
        assert submissions.submission(checking) is not None

        store.set_frozen(False)
        assert isinstance(submissions.reserve_upload(alice, QUOTAS), int)
        assert _accept(submissions, alice, "late", "/nowhere/bot.toml") == "late.v1"
    finally:
        store.close()


@pytest.mark.slow
def test_an_upload_to_a_frozen_ladder_is_refused_and_the_pages_say_so(
    ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = add_author(ladder, "alice", capsys)
    assert main(["ladder", "freeze", str(ladder)]) == 0
    with serve(ladder) as server:
        status, reply = server.upload(token, tar_gz({"bot.toml": 'name = "x"\ncommand = "true"\n'}))
        assert status == 403 and reply == {"error": FROZEN}
        (tmp_path / "bot").mkdir()
        (tmp_path / "bot" / "bot.toml").write_text('name = "x"\ncommand = "true"\n')
        assert main(["submit", server.url, str(tmp_path / "bot"), "--token", token]) == 2
        assert capsys.readouterr().err == f"arena: error: {FROZEN}\n"  # not the token's fault
        with urllib.request.urlopen(server.url + "/", timeout=30) as response:
            page = response.read().decode()
        assert 'id="frozen"' in page and "takes no submissions or new versions" in page
        assert main(["ladder", "unfreeze", str(ladder)]) == 0
        with urllib.request.urlopen(server.url + "/", timeout=30) as response:
            assert 'id="frozen"' not in response.read().decode()
    store = LadderStore.open(ladder)
    try:
        assert SubmissionStore(store).submissions_of(1) == []  # nothing half-written
    finally:
        store.close()
