"""Authors, bot names and versions in the database; the ladder refuses to play
submitted bots below bwrap; packing a folder for `arena submit`."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.ladder import run_ladder
from arena.ladder.runner import LadderError
from arena.ratings import DEFAULT_ENV
from arena.storage import LadderStore, StorageError
from arena.storage.submissions_store import SubmissionStore
from arena.submissions.client import ClientError, pack_folder
from arena.submissions.layout import DataLayout
from arena.submissions.report import SubmissionReport
from arena.submissions.worker import CheckQueue
from tests.submissions.conftest import add_author


def test_author_commands(ladder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    token = add_author(ladder, "alice", capsys)
    assert len(token) >= 40
    assert main(["ladder", "author", "add", str(ladder), "alice"]) == 2
    assert "already an author 'alice'" in capsys.readouterr().err
    assert main(["ladder", "author", "add", str(ladder), "../evil"]) == 2
    capsys.readouterr()
    assert main(["ladder", "author", "list", str(ladder)]) == 0
    listing = capsys.readouterr().out
    assert "alice" in listing and "active" in listing and token not in listing
    assert main(["ladder", "author", "revoke", str(ladder), "alice"]) == 0
    assert main(["ladder", "author", "revoke", str(ladder), "alice"]) == 2
    assert main(["ladder", "author", "revoke", str(ladder), "nobody"]) == 2
    assert "no author 'nobody'" in capsys.readouterr().err
    store = LadderStore.open(ladder)
    try:
        assert SubmissionStore(store).authenticate(token) is None
    finally:
        store.close()


def _accept(submissions: SubmissionStore, author: int, name: str, manifest: str) -> str:
    sid = submissions.add_submission(author, "0" * 64, 1)
    return submissions.accept(
        sid,
        author,
        name,
        os.urandom(8).hex(),
        "/nowhere",
        manifest,
        SubmissionReport(),
        DEFAULT_ENV.initial(),
    ).ladder_name


def test_names_belong_to_their_first_author(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_author(ladder, "alice", capsys)
    add_author(ladder, "bob", capsys)
    store = LadderStore.open(ladder)
    try:
        submissions = SubmissionStore(store)
        alice, bob = (a.id for a in submissions.authors())
        assert _accept(submissions, alice, "mine", "/nowhere/bot.toml") == "mine.v1"
        assert submissions.name_problem(alice, "mine") is None
        assert "belongs to another author" in str(submissions.name_problem(bob, "mine"))
        assert "ladder's own bot 'greedy'" in str(submissions.name_problem(bob, "greedy"))
        with pytest.raises(StorageError, match="belongs to another author"):
            _accept(submissions, bob, "mine", "/nowhere/bot.toml")
        assert _accept(submissions, alice, "mine", "/nowhere/bot.toml") == "mine.v2"
        statuses = {bot.name: bot.status for bot in store.bots()}
        assert statuses["mine.v1"] == "disabled" and statuses["mine.v2"] == "active"
    finally:
        store.close()


def test_the_ladder_plays_submitted_bots_only_at_a_level_fit_for_strangers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "l.toml"
    config.write_text(
        'name = "l"\ngame = "gin-rummy/standard"\n[run]\nsandbox = "none"\n'
        '[[bots]]\nname = "random"\n[[bots]]\nname = "greedy"\n'
    )
    db = tmp_path / "l.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(db)]) == 0
    add_author(db, "alice", capsys)
    store = LadderStore.open(db)
    try:
        submissions = SubmissionStore(store)
        _accept(submissions, submissions.authors()[0].id, "stranger", str(tmp_path / "bot.toml"))
        with pytest.raises(
            LadderError,
            match=r"has submitted bots \(stranger.v1\): sandbox level 'none' is not fit for "
            r"strangers' bots here: filesystem: the host's files",
        ):
            run_ladder(store, progress=False)
        assert store.counts() == {}  # refused before anything was queued or played
    finally:
        store.close()


def _names(archive: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        return {member.name: member for member in tar.getmembers()}


def test_packing_honours_arenaignore_and_copies_links_out(tmp_path: Path) -> None:
    shared = tmp_path / "common"
    shared.mkdir()
    (shared / "proto.txt").write_text("common")
    bot = tmp_path / "bot"
    (bot / "build").mkdir(parents=True)
    (bot / "src").mkdir()
    (bot / "bot.toml").write_text('name = "x"\ncommand = "./run"\n')
    (bot / "build" / "junk.o").write_text("x")
    (bot / "src" / "a.py").write_text("x")
    (bot / "src" / "a.pyc").write_text("x")
    (bot / ".git").mkdir()
    (bot / ".git" / "config").write_text("x")
    (bot / ".arenaignore").write_text("# comments\nbuild/\n*.pyc\n")
    os.symlink("../common", bot / "protos")  # outside: travels as a copy
    os.symlink("src/a.py", bot / "main.py")  # inside: travels as a link
    names = _names(pack_folder(bot))
    assert "build" not in names and "build/junk.o" not in names
    assert "src/a.pyc" not in names and ".git/config" not in names
    assert names["protos"].isdir() and names["protos/proto.txt"].isfile()
    assert names["main.py"].issym() and names["main.py"].linkname == "src/a.py"
    assert {"bot.toml", "src/a.py", ".arenaignore"} <= set(names)
    with pytest.raises(ClientError, match=r"no bot\.toml"):
        pack_folder(shared)
    with pytest.raises(ClientError, match="no such folder"):
        pack_folder(tmp_path / "nope")


def test_the_js_kit_carries_the_current_protocol() -> None:
    """The kit holds its own copy of bot.proto (make proto refreshes it), so it runs under
    bwrap, which shows it only its own folder, and submits as it is."""
    root = Path(__file__).resolve().parents[2]
    kit = root / "sample_bots" / "js" / "protos" / "arena" / "proto" / "bot.proto"
    assert kit.read_bytes() == (root / "protos" / "arena" / "proto" / "bot.proto").read_bytes()


def test_a_check_cut_short_by_a_stopped_server_is_rejected_at_start(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_author(ladder, "alice", capsys)
    store = LadderStore.open(ladder)
    try:
        submissions = SubmissionStore(store)
        sid = submissions.add_submission(submissions.authors()[0].id, "0" * 64, 1)
    finally:
        store.close()
    staging = DataLayout.of(ladder).staging(sid)
    (staging / "bot").mkdir(parents=True)
    queue = CheckQueue(ladder)
    try:
        assert queue.recover() == 1
    finally:
        queue.close()
    assert not staging.exists()
    store = LadderStore.open(ladder)
    try:
        submission = SubmissionStore(store).submission(sid)
    finally:
        store.close()
    assert submission is not None and submission.status == "rejected"
    assert submission.reason == "the server stopped during the check: submit it again"


def test_a_token_never_starts_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """``arena submit URL BOT --token -x...`` would read the token as an option."""
    from arena.storage import submissions_store

    drawn = iter(["-starts-with-a-dash", "--two", "fine-token"])
    monkeypatch.setattr(submissions_store.secrets, "token_urlsafe", lambda _: next(drawn))
    assert submissions_store.new_token() == "fine-token"
