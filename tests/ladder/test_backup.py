"""``arena ladder backup`` and ``restore``: a consistent copy with its archives and
replays, files stored once by content and shared by sibling backups, a restore that
checks every file and gives the new ladder its own folders; and each bad request a
one-line refusal that changes nothing."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.ladder.backup import MANIFEST, OBJECTS, BackupError, backup, read_manifest, restore
from arena.ladder.config import BotEntry, LadderConfig
from arena.ladder.deals import new_deal_secret
from arena.ladder.replay_folder import claim_replay_folder
from arena.ladder.runner_lock import RunnerLock
from arena.ratings import DEFAULT_ENV
from arena.storage import LadderStore
from arena.submissions.layout import DataLayout
from arena.submissions.stored import pack_tree
from tests.ladder.test_ratings import match_ids, result


def make_ladder(folder: Path, name: str = "season") -> LadderStore:
    """A ladder with a replay folder, two finished matches with replays, and a
    submitted version (its archive stored as the submission pipeline stores it)."""
    replays = claim_replay_folder(folder / "replays", folder / f"{name}.sqlite")
    config = LadderConfig(
        name, "gin-rummy/standard", (BotEntry("a", "greedy"), BotEntry("b", "random")),
        replays=str(replays),
    )  # fmt: skip
    db = folder / f"{name}.sqlite"
    store = LadderStore.create(db, name, config.to_json(), None, new_deal_secret(config))
    for bot in ("a", "b"):
        store.add_bot(bot, "greedy", DEFAULT_ENV.initial())
    unit = store.add_unit("u0", 1, [("a", "b"), ("b", "a")])
    for number, match in enumerate(match_ids(store, unit)):
        replay = replays / f"m{match}-a1.jsonl"
        replay.write_text(json.dumps({"match": match, "n": number}) + "\n")
        store.record(match, result((1, 20, 0), (0, 5, 0)), str(replay), 3)
    add_version(store, "sub", "print('hi')\n")
    return store


def add_version(store: LadderStore, bot: str, code: str) -> str:
    """A submitted version, as the pipeline leaves it: archive, bot.tar.gz, bot/."""
    layout = DataLayout.of(store.path)
    tree = layout.root / "staging" / bot
    tree.mkdir(parents=True)
    (tree / "bot.toml").write_text(f'name = "{bot}"\ncommand = ["python3", "bot.py"]\n')
    (tree / "bot.py").write_text(code)
    packed = layout.root / "staging" / "packed"
    sha256 = pack_tree(tree, packed)
    place = layout.archive(sha256)
    place.mkdir()
    os.replace(packed, place / "bot.tar.gz")
    (place / "archive").write_bytes(b"as uploaded " + code.encode())
    os.replace(tree, place / "bot")
    with store.transaction():
        db = store.db
        author = db.execute(
            "INSERT INTO authors (name, token_sha256, created) VALUES (?, ?, 'now')",
            (f"author-{bot}", f"t-{sha256}"),
        ).lastrowid
        submission = db.execute(
            "INSERT INTO submissions (author_id, status, archive_sha256, archive_bytes, created) "
            "VALUES (?, 'accepted', ?, 1, 'now')",
            (author, sha256),
        ).lastrowid
        manifest = place / "bot" / "bot.toml"
        db.execute(
            "INSERT INTO bots (name, reference, status, mu, sigma, added) "
            "VALUES (?, ?, 'active', 25, 8.3, 'now')",
            (f"{bot}.v1", str(manifest)),
        )
        db.execute(
            "INSERT INTO bot_versions (author_id, bot_name, version, ladder_name, archive_sha256, "
            "path, submission_id, created) VALUES (?, ?, 1, ?, ?, ?, ?, 'now')",
            (author, bot, f"{bot}.v1", sha256, str(place / "bot"), submission),
        )
    return sha256


@pytest.fixture
def ladder(tmp_path: Path) -> Iterator[LadderStore]:
    store = make_ladder(tmp_path)
    yield store
    store.close()


def rows(db: Path, query: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection:
        return connection.execute(query).fetchall()


def test_a_backup_restores_to_a_ladder_of_its_own(ladder: LadderStore, tmp_path: Path) -> None:
    done = backup(ladder.path, tmp_path / "backups" / "monday", replays=True)
    manifest = read_manifest(done.folder)
    assert {item.path.split("/")[0] for item in manifest.files} == {"data", "replays"}
    assert len(manifest.files) == 4 and manifest.missing == ()  # 2 archive files, 2 replays
    assert oct(os.stat(done.folder / "season.sqlite").st_mode & 0o777) == "0o600"

    target = tmp_path / "restored" / "season.sqlite"
    target.parent.mkdir()
    back = restore(done.folder, target)
    assert back.replays == tmp_path / "replays" / "season-2"  # not the original's folder
    assert back.versions == 1
    restored = LadderStore.open(target)
    try:
        assert [m.match for m in restored.finished_matches()] == [1, 2]
        assert [b.rating for b in restored.bots()] == [b.rating for b in ladder.bots()]
        assert restored.deal_secret() == ladder.deal_secret()
        for match in restored.finished_matches():  # its replays, in its own folder
            assert match.replay is not None
            assert Path(match.replay).parent == back.replays
            assert json.loads(Path(match.replay).read_text())["match"] == match.match
        config = LadderConfig.from_json(restored.config_json())
        assert config.replays == str(back.replays)
        # Its submitted version is its own copy, unpacked again, the digest checked.
        (reference,) = [b.reference for b in restored.bots() if b.name == "sub.v1"]
        assert reference.startswith(f"{target.resolve()}.data/archives/")
        assert Path(reference).read_text().startswith('name = "sub"')
    finally:
        restored.close()


def test_a_second_backup_beside_the_first_stores_only_what_changed(
    ladder: LadderStore, tmp_path: Path
) -> None:
    parent = tmp_path / "backups"
    first = backup(ladder.path, parent / "1", replays=True)
    assert first.linked == 0
    unit = ladder.add_unit("u1", 2, [("a", "b")])
    (match,) = match_ids(ladder, unit)
    replay = Path(json.loads(ladder.config_json())["replays"]) / f"m{match}-a1.jsonl"
    replay.write_text("new\n")
    ladder.record(match, result((0, 0, 0), (1, 9, 0)), str(replay), 3)
    second = backup(ladder.path, parent / "2", replays=True)
    assert second.linked == 4  # the archives and the two old replays: not even read again
    assert len(second.manifest.files) == 5
    database = (parent / "2" / "season.sqlite").stat().st_size
    assert second.copied_bytes == database + len("new\n")
    for item in first.manifest.files:  # one copy on disk, linked from both backups
        one, two = (parent / "1" / item.path).stat(), (parent / "2" / item.path).stat()
        assert one.st_ino == two.st_ino and one.st_nlink == 3  # and the store's
    assert len([p for p in (parent / OBJECTS).rglob("*") if p.is_file()]) == 5
    # A backup deleted: the other keeps every file; the store keeps what it links.
    for path in sorted((parent / "1").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    (parent / "1").rmdir()
    back = restore(parent / "2", tmp_path / "again.sqlite")
    assert back.files == 6


@pytest.mark.parametrize("which", ["replays/", "season.sqlite", "data/"])
def test_a_damaged_backup_is_refused_and_nothing_is_left(
    ladder: LadderStore, tmp_path: Path, which: str
) -> None:
    done = backup(ladder.path, tmp_path / "b", replays=True)
    files = [done.manifest.database, *done.manifest.files]
    damaged = done.folder / next(item.path for item in files if item.path.startswith(which))
    os.chmod(damaged, 0o600)
    damaged.write_bytes(damaged.read_bytes() + b"tampered")
    target = tmp_path / "new.sqlite"
    with pytest.raises(BackupError, match=r"damaged: its SHA-256 is .*, the backup recorded"):
        restore(done.folder, target)
    assert not target.exists() and not Path(f"{target}.data").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith((".new", "new"))] == []


def test_a_manifest_naming_files_outside_the_backup_is_refused(
    ladder: LadderStore, tmp_path: Path
) -> None:
    done = backup(ladder.path, tmp_path / "b", replays=True)
    manifest = json.loads((done.folder / MANIFEST).read_text())
    manifest["files"][0]["path"] = "replays/../../outside"
    (done.folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(BackupError, match=r"names a file outside the backup: 'replays/\.\./"):
        restore(done.folder, tmp_path / "new.sqlite")
    assert not (tmp_path / "new.sqlite").exists()


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run ``arena ARGV``: it must refuse with status 2 and one line; that line."""
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("arena: error: "), err
    return err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else b"<dir>"
        for path in sorted(folder.rglob("*"))
        if not path.name.endswith(("-wal", "-shm", ".lock"))  # the runner's, the lock's
    }


def test_a_backup_onto_the_database_or_into_a_used_folder_is_refused(
    ladder: LadderStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(ladder.path)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine\n")
    before = snapshot(tmp_path)
    assert "that is the database being backed up" in refused(capsys, "ladder", "backup", db, db)
    assert "the folder is not empty" in refused(capsys, "ladder", "backup", db, str(busy))
    assert "a file is there" in refused(capsys, "ladder", "backup", db, str(busy / "notes.txt"))
    assert snapshot(tmp_path) == before
    assert not (tmp_path / OBJECTS).exists()


def test_a_restore_over_a_running_or_existing_ladder_is_refused(
    ladder: LadderStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "backups" / "b"
    assert main(["ladder", "backup", str(ladder.path), str(folder)]) == 0
    assert f"into {folder}" in capsys.readouterr().out
    before = snapshot(tmp_path)
    for role in ("runner", "compete"):  # arena ladder run, or arena compete between runs
        with RunnerLock(ladder.path, role=role):
            line = refused(capsys, "ladder", "restore", str(folder), str(ladder.path))
            assert f"the ladder is running (process {os.getpid()}); stop it" in line
    line = refused(capsys, "ladder", "restore", str(folder), str(ladder.path))
    assert "already exists; restore into a new path" in line
    line = refused(capsys, "ladder", "restore", str(tmp_path / "replays"), "x.sqlite")
    assert "not a finished backup (it has no backup.json)" in line
    assert snapshot(tmp_path) == before
    assert not (tmp_path / "x.sqlite").exists()


def test_restore_through_the_command_line_says_how_to_resume(
    ladder: LadderStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "b"
    assert main(["ladder", "backup", str(ladder.path), str(folder), "--replays"]) == 0
    assert "2 replays" in capsys.readouterr().out
    target = tmp_path / "copy.sqlite"
    assert main(["ladder", "restore", str(folder), str(target)]) == 0
    out = capsys.readouterr().out
    assert f"resume it with: arena ladder run {target}" in out
    assert rows(target, "SELECT COUNT(*) FROM matches WHERE status = 'finished'") == [(2,)]
    assert (folder / MANIFEST).is_file()


def test_a_backup_that_fails_leaves_no_half_backup(
    ladder: LadderStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.ladder.backup as module

    def full_disk(self: object, source: Path, relative: str) -> object:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(module._Store, "put", full_disk)
    new, empty = tmp_path / "backups" / "new", tmp_path / "backups" / "empty"
    empty.mkdir(parents=True)
    for folder in (new, empty):
        with pytest.raises(OSError, match="No space left"):
            backup(ladder.path, folder, replays=True)
    assert not new.exists() and empty.is_dir() and not any(empty.iterdir())
    monkeypatch.undo()
    done = backup(ladder.path, empty, replays=True)  # the empty folder is still usable
    back = restore(done.folder, tmp_path / "made" / "on" / "restore.sqlite")
    assert back.database.is_file()  # its folders made
