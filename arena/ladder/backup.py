"""Online backups of a ladder, and restoring one (``arena ladder backup`` / ``restore``).

A backup is a folder::

    DEST/backup.json          what is in it: each file's SHA-256, size and mode (written last:
                              a folder without it is not a finished backup)
    DEST/NAME.sqlite          the database, copied by SQLite's online backup API
    DEST/data/archives/SHA/   the submitted versions' archives (``archive``, ``bot.tar.gz``)
    DEST/replays/...          with ``--replays``: the replay of every finished match

The database is copied while the ladder runs: SQLite's backup API reads it in one read
transaction, which in WAL mode never blocks the runner, so the copy is the ladder as it
was at one commit.  The archives and replays copied are those that copy names (its
accepted versions, its finished matches), all written before their rows were committed,
so they are complete; files of matches still in flight are left out, and those matches
re-run after a restore, as after a crash.

Every file but the database goes through a content-addressed store shared by the backups
in the same parent folder, ``PARENT/.arena-backup-objects/SHA[:2]/SHA``: a file is copied
there once, and each backup holding it is a hard link to that one copy.  So a second
backup into a new folder beside the first costs the database and the files that are new
since; a file unchanged since the previous backup (same path, size and modification
time, as that backup's ``backup.json`` records) is not even read again.  Each backup
folder is whole by itself (hard links, not references): delete any of them, or the store,
and the others keep their files; objects no backup links any more are removed by the next
backup (an object with one link left is the store's alone).  Where hard links cannot be
made (another file system), the file is copied.

A restore checks every file against its SHA-256 as it copies it, writes the database
last (so a database at the path means the restore finished), points the restored ladder
at a replay folder of its own (``ladder create``'s rule: two ladders never write the same
``m1-a1.jsonl``) and at its own data folder, and unpacks every stored version again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from arena.errors import ArenaError
from arena.ladder.replay_folder import claim_replay_folder
from arena.ladder.runner_lock import held_by
from arena.privatefiles import FILE_MODE, private_folder
from arena.storage.db import StorageError, check_ladder_file, write_transaction
from arena.submissions.layout import DataLayout
from arena.submissions.stored import PACKED, StoredVersionError, open_version

__all__ = [
    "MANIFEST",
    "OBJECTS",
    "BackupError",
    "BackupManifest",
    "BackupSummary",
    "RestoreSummary",
    "StoredFile",
    "backup",
    "read_manifest",
    "restore",
    "runner_pid",
]

#: The file that lists a backup's contents (and marks it finished).
MANIFEST = "backup.json"
#: The content-addressed store beside the backups, shared by those in one folder.
OBJECTS = ".arena-backup-objects"
FORMAT = 1
_CHUNK = 1024 * 1024
_SIBLINGS = 3  # the newest backups beside a new one whose manifests it reads
_PRUNE_AGE = 3600.0  # seconds: an object younger than this may be a concurrent backup's


class BackupError(ArenaError, ValueError):
    """A backup or restore refused: names the path and the problem; nothing was changed."""


@dataclass(frozen=True)
class StoredFile:
    """One file of a backup, at ``path`` (relative to the backup folder)."""

    path: str
    sha256: str
    size: int
    mode: int
    source: str  # where it was copied from
    mtime_ns: int  # the source's, so the next backup can skip reading an unchanged file


@dataclass(frozen=True)
class BackupManifest:
    """``backup.json``: what a backup holds, read back by ``restore``."""

    format: int
    ladder: str
    database: StoredFile  # the database file
    source: str  # the database backed up (absolute)
    created: str
    replays_from: str | None  # the ladder's replay folder, when its replays are in
    files: tuple[StoredFile, ...] = ()
    missing: tuple[str, ...] = ()  # files the database names that were not there

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> BackupManifest:
        data = json.loads(text)
        data["database"] = StoredFile(**data["database"])
        data["files"] = tuple(StoredFile(**item) for item in data["files"])
        data["missing"] = tuple(data.get("missing", ()))
        return cls(**data)


@dataclass(frozen=True)
class BackupSummary:
    folder: Path
    manifest: BackupManifest
    copied_bytes: int  # bytes written into the store (new files) and the database copy
    linked: int  # files already in the store: linked, not copied
    pruned: int  # objects no backup held any more, removed from the store


@dataclass(frozen=True)
class RestoreSummary:
    database: Path
    ladder: str
    replays: Path | None  # the restored ladder's replay folder
    files: int
    versions: int = 0
    notes: tuple[str, ...] = field(default=())


def runner_pid(db: Path) -> int | None:
    """The pid of the process that runs this ladder now (``arena ladder run`` holds
    ``DB.runner.lock``, ``arena compete`` also ``DB.compete.lock``: see
    :mod:`arena.ladder.runner_lock`), -1 if it cannot be read, or None."""
    for role in ("runner", "compete"):
        pid = held_by(db, role)
        if pid is not None:
            return pid
    return None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _data_root(db: Path) -> Path:
    """The ladder's data folder (:class:`DataLayout`), found without making it."""
    return Path(f"{db.resolve()}.data")


# -- backup --------------------------------------------------------------------------


def _check_destination(db: Path, dest: Path) -> None:
    try:
        check_ladder_file(db)
    except StorageError as error:
        raise BackupError(str(error)) from None
    target = dest.resolve()
    if target == db.resolve():
        raise BackupError(f"{dest}: that is the database being backed up; give a new folder")
    if target.exists() and not target.is_dir():
        raise BackupError(f"{dest}: a file is there; give a new or empty folder")
    if target.is_dir() and any(target.iterdir()):
        raise BackupError(f"{dest}: the folder is not empty; give a new or empty folder")


def _known_objects(objects: Path, parent: Path) -> dict[tuple[str, int, int], str]:
    """What the newest sibling backups' manifests say each source file's content is,
    keyed by (source, size, mtime_ns): a file unchanged since is linked without being
    read.  The newest few suffice (each holds what the ladder had then), and reading
    every old manifest of a long series would cost more than it saves."""
    known: dict[tuple[str, int, int], str] = {}
    manifests = []
    with contextlib.suppress(OSError):
        for sibling in parent.iterdir():
            manifest = sibling / MANIFEST
            with contextlib.suppress(OSError):
                manifests.append((manifest.stat().st_mtime_ns, manifest))
    for _, manifest in sorted(manifests, reverse=True)[:_SIBLINGS]:
        try:
            files = BackupManifest.from_json(manifest.read_text(encoding="utf-8")).files
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not one of ours, or damaged: it only costs a re-read
        for item in files:
            if _object(objects, item.sha256).exists():
                known.setdefault((item.source, item.size, item.mtime_ns), item.sha256)
    return known


def _object(objects: Path, sha256: str) -> Path:
    return objects / sha256[:2] / sha256


class _Store:
    """The content-addressed store, and the files a backup takes from it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.objects = folder.parent / OBJECTS
        private_folder(self.objects)
        self.known = _known_objects(self.objects, folder.parent)
        self.copied = 0
        self.linked = 0

    def put(self, source: Path, relative: str) -> StoredFile:
        """``source`` into the store (unless its content is there) and linked at
        ``relative`` in the backup folder."""
        info = source.stat()
        sha256 = self.known.get((str(source), info.st_size, info.st_mtime_ns))
        if sha256 is None:
            sha256 = self._copy_in(source)
        else:
            self.linked += 1
        target = self.folder / relative
        private_folder(target.parent)
        try:
            os.link(_object(self.objects, sha256), target)
        except OSError:  # no hard links here (another file system): a copy of its own
            shutil.copyfile(_object(self.objects, sha256), target)
            os.chmod(target, 0o400)
        return StoredFile(
            relative, sha256, info.st_size, info.st_mode & 0o777, str(source), info.st_mtime_ns
        )

    def _copy_in(self, source: Path) -> str:
        """Copy ``source`` into the store, hashing as it goes (read once); if that content
        is already there, the copy is dropped and the object linked."""
        digest = hashlib.sha256()
        partial = self.objects / f".partial-{os.getpid()}-{time.monotonic_ns()}"
        try:
            with open(source, "rb") as read, open(partial, "xb") as write:
                while chunk := read.read(_CHUNK):
                    digest.update(chunk)
                    write.write(chunk)
                write.flush()
                os.fsync(write.fileno())
            sha256 = digest.hexdigest()
            final = _object(self.objects, sha256)
            if final.exists():
                self.linked += 1
                return sha256
            private_folder(final.parent)
            os.chmod(partial, 0o400)  # objects are never written again
            os.replace(partial, final)
            self.copied += final.stat().st_size
            return sha256
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(partial)

    def prune(self) -> int:
        """Remove objects that no backup links any more (one link left: the store's own),
        unless they are new enough to be a concurrent backup's."""
        pruned = 0
        now = time.time()
        for shard in self.objects.iterdir():
            if not shard.is_dir():
                continue
            for item in shard.iterdir():
                info = item.lstat()
                if info.st_nlink == 1 and now - info.st_ctime > _PRUNE_AGE:
                    item.unlink()
                    pruned += 1
        return pruned


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _copy_database(db: Path, target: Path) -> None:
    """A consistent copy of the live database (SQLite's online backup API, all pages in
    one step: one read transaction, which in WAL mode does not block the runner),
    made a single file (rollback journal) and checked."""
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    with (
        contextlib.closing(sqlite3.connect(db, timeout=30)) as source,
        contextlib.closing(sqlite3.connect(target, isolation_level=None)) as copy,
    ):
        source.backup(copy, pages=-1)
        copy.execute("PRAGMA journal_mode = DELETE")
        check = copy.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise BackupError(f"{db}: the copy failed SQLite's check: {check}")


def backup(db: Path, dest: Path, *, replays: bool = False) -> BackupSummary:
    """Back the ladder in ``db`` up into the new (or empty) folder ``dest``, with its
    submitted versions' archives and, with ``replays``, its finished matches' replays."""
    _check_destination(db, dest)
    made = not dest.exists()
    private_folder(dest)
    try:
        return _backup_into(db, dest, replays)
    except BaseException:  # a half-made backup is no backup: leave the folder as it was
        if made:
            shutil.rmtree(dest, ignore_errors=True)
        else:
            for entry in list(dest.iterdir()):
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        raise


def _backup_into(db: Path, dest: Path, replays: bool) -> BackupSummary:
    database = dest / db.name
    _copy_database(db, database)
    store = _Store(dest)
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as snapshot:
        name, config = snapshot.execute("SELECT name, config FROM ladder").fetchone()
        versions = [row[0] for row in snapshot.execute("SELECT archive_sha256 FROM bot_versions")]
        played = [
            row[0]
            for row in snapshot.execute(
                "SELECT replay FROM matches WHERE status = 'finished' AND replay IS NOT NULL "
                "ORDER BY id"
            )
        ] + [
            row[0]
            for row in snapshot.execute(
                "SELECT replay FROM finals_matches WHERE status = 'finished' "
                "AND replay IS NOT NULL ORDER BY id"
            )
        ]
    files: list[StoredFile] = []
    missing: list[str] = []
    layout = DataLayout(_data_root(db))
    for sha256 in sorted(set(versions)):
        for part in ("archive", PACKED):
            source = layout.archive(sha256) / part
            if source.is_file():
                files.append(store.put(source, f"data/archives/{sha256}/{part}"))
            else:
                missing.append(str(source))
    folder = json.loads(config).get("replays") if replays else None
    if folder:
        for replay in played:
            source = Path(replay)
            try:
                relative = source.relative_to(folder)
            except ValueError:
                relative = Path(source.name)  # kept elsewhere: by its name
            if source.is_file():
                files.append(store.put(source, f"replays/{relative.as_posix()}"))
            else:
                missing.append(str(source))
    info = database.stat()
    manifest = BackupManifest(
        format=FORMAT,
        ladder=str(name),
        database=StoredFile(
            database.name, _sha256_file(database), info.st_size, FILE_MODE, str(db.resolve()), 0
        ),
        source=str(db.resolve()),
        created=_now(),
        replays_from=str(folder) if folder else None,
        files=tuple(files),
        missing=tuple(missing),
    )
    partial = dest / f".{MANIFEST}.partial"
    with open(partial, "x", encoding="utf-8") as out:
        out.write(manifest.to_json())
        out.flush()
        os.fsync(out.fileno())
    os.chmod(partial, FILE_MODE)
    os.replace(partial, dest / MANIFEST)
    pruned = store.prune()
    return BackupSummary(dest, manifest, store.copied + info.st_size, store.linked, pruned)


# -- restore -------------------------------------------------------------------------


def read_manifest(folder: Path) -> BackupManifest:
    path = folder / MANIFEST
    if not folder.is_dir():
        raise BackupError(f"{folder}: no such backup folder")
    if not path.is_file():
        raise BackupError(f"{folder}: not a finished backup (it has no {MANIFEST})")
    try:
        manifest = BackupManifest.from_json(path.read_text(encoding="utf-8"))
    except (ValueError, KeyError, TypeError) as error:
        raise BackupError(f"{path}: not a backup's manifest: {error}") from None
    if manifest.format != FORMAT:
        raise BackupError(f"{path}: backup format {manifest.format}, this arena reads {FORMAT}")
    for item in (manifest.database, *manifest.files):
        parts = PurePosixPath(item.path).parts
        inside = parts and parts[0] in ("data", "replays") and len(parts) > 1
        if item is manifest.database:
            inside = len(parts) == 1 and parts[0] not in (".", "..", MANIFEST)
        if not inside or ".." in parts or PurePosixPath(item.path).is_absolute():
            raise BackupError(f"{path}: names a file outside the backup: {item.path!r}")
    return manifest


def _check_target(db: Path) -> None:
    pid = runner_pid(db)
    if pid is not None:
        who = f"process {pid}" if pid > 0 else "another process"
        raise BackupError(f"{db}: the ladder is running ({who}); stop it before restoring over it")
    for path in (db, Path(f"{db}-wal"), Path(f"{db}-journal")):
        if path.exists():
            raise BackupError(f"{path}: already exists; restore into a new path, or move it away")
    root = _data_root(db)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise BackupError(f"{root}: the data folder of {db.name} already exists and is not empty")


def _copy_verified(source: Path, target: Path, item: StoredFile) -> None:
    """Copy a backed-up file, checking its SHA-256 as it goes; the mode it had."""
    digest = hashlib.sha256()
    private_folder(target.parent)
    partial = target.with_name(f".{target.name}.partial")
    try:
        with open(source, "rb") as read, open(partial, "wb") as write:
            while chunk := read.read(_CHUNK):
                digest.update(chunk)
                write.write(chunk)
            write.flush()
            os.fsync(write.fileno())
        if digest.hexdigest() != item.sha256:
            raise BackupError(
                f"{source}: damaged: its SHA-256 is {digest.hexdigest()[:12]}, "
                f"the backup recorded {item.sha256[:12]}"
            )
        os.chmod(partial, item.mode & 0o700 or FILE_MODE)  # owner's bits: they stay private
        os.replace(partial, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)


@contextlib.contextmanager
def _partial_folder(final: Path) -> Iterator[Path]:
    """A folder filled under another name and renamed into place when done (removed if not)."""
    partial = final.with_name(final.name + ".restoring")
    shutil.rmtree(partial, ignore_errors=True)
    private_folder(partial)
    try:
        yield partial
        if final.exists():
            final.rmdir()  # empty (checked before)
        os.replace(partial, final)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


#: The columns holding a replay's path, or a folder of them.
_REPLAY_COLUMNS = (("matches", "replay"), ("finals_matches", "replay"), ("finals", "replays"))


def _repoint(db: sqlite3.Connection, table: str, column: str, old: str, new: str) -> None:
    """Every path in ``table.column`` under ``old`` moved under ``new``."""
    rows = db.execute(f"SELECT rowid, {column} FROM {table} WHERE {column} IS NOT NULL")
    db.executemany(
        f"UPDATE {table} SET {column} = ? WHERE rowid = ?",
        [(_prefix(value, old, new), rowid) for rowid, value in rows.fetchall()],
    )


def _prefix(value: str, old: str, new: str) -> str:
    return new + value[len(old) :] if value == old or value.startswith(old + os.sep) else value


def restore(folder: Path, db: Path) -> RestoreSummary:
    """Restore the backup in ``folder`` as a new ladder database ``db`` (with its data
    folder and, if the backup has them, its replays in a replay folder of its own)."""
    manifest = read_manifest(folder)
    _check_target(db)
    private_folder(db.resolve().parent)
    config = json.loads(_read_config(folder / manifest.database.path))
    replay_folder: Path | None = None
    old_replays = manifest.replays_from or config.get("replays")
    if old_replays:
        try:
            replay_folder = claim_replay_folder(Path(old_replays).parent, db)
        except OSError as error:
            raise BackupError(
                f"{db}: cannot make a replay folder under {Path(old_replays).parent}: "
                f"{error.strerror or error}"
            ) from None
    try:
        return _restore_files(folder, db, manifest, config, replay_folder, old_replays)
    except BaseException:  # no ladder at db: nor its data folder, so the same command can rerun
        shutil.rmtree(_data_root(db), ignore_errors=True)
        raise


def _restore_files(
    folder: Path,
    db: Path,
    manifest: BackupManifest,
    config: dict[str, Any],
    replay_folder: Path | None,
    old_replays: str | None,
) -> RestoreSummary:
    root = _data_root(db)
    old_root = f"{manifest.source}.data"
    data = [item for item in manifest.files if item.path.startswith("data/")]
    replays = [item for item in manifest.files if item.path.startswith("replays/")]
    for item in replays:
        assert replay_folder is not None
        _copy_verified(folder / item.path, replay_folder / item.path.removeprefix("replays/"), item)
    versions = 0
    with _partial_folder(root) as partial:
        for item in data:
            _copy_verified(folder / item.path, partial / item.path.removeprefix("data/"), item)
    layout = DataLayout.of(db)  # the rest of its folders, owner-only
    shas = sorted({item.path.split("/")[2] for item in data if item.path.endswith(PACKED)})
    notes = [f"missing when backed up: {path}" for path in manifest.missing]
    for sha256 in shas:
        try:
            open_version(layout, sha256)  # unpacked again, after checking its digest
            versions += 1
        except StoredVersionError as error:
            notes.append(str(error))
    partial_db = db.with_name(f".{db.name}.restoring")
    with contextlib.suppress(FileNotFoundError):
        partial_db.unlink()
    try:
        _copy_verified(folder / manifest.database.path, partial_db, manifest.database)
        with (
            contextlib.closing(sqlite3.connect(partial_db, isolation_level=None)) as copy,
            write_transaction(copy),
        ):
            if replay_folder is not None and old_replays:
                config["replays"] = str(replay_folder)
                copy.execute("UPDATE ladder SET config = ?", (json.dumps(config, sort_keys=True),))
                if replays:  # the replays (the finals' too: finals-ID/...) moved
                    for table, column in _REPLAY_COLUMNS:
                        _repoint(copy, table, column, old_replays, str(replay_folder))
            for table, column in (("bots", "reference"), ("bot_versions", "path")):
                _repoint(copy, table, column, old_root, str(root))
        os.replace(partial_db, db)  # last: a database here means the restore is whole
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial_db.unlink()
    return RestoreSummary(
        db, manifest.ladder, replay_folder, len(manifest.files) + 1, versions, tuple(notes)
    )


def _read_config(database: Path) -> str:
    try:
        uri = f"file:{database.resolve()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as copy:
            return str(copy.execute("SELECT config FROM ladder").fetchone()[0])
    except (sqlite3.DatabaseError, TypeError) as error:
        raise BackupError(f"{database}: not a ladder database: {error}") from None
