"""From an uploaded archive to an accepted version of a bot, or a rejection with its reason.

Unpack (safely) into the submission's staging folder, read and vet ``bot.toml``, run
its ``build`` in the sandbox and check what it left, pack the tree into the one archive
that is stored and run (:mod:`arena.submissions.stored`), unpack that and vet its
manifest again (a field the build changed is refused, naming it), run ``arena check``
on it under bwrap, refuse a handshake name other than the manifest's, then move it to
its place, named by the packed archive's SHA-256, and record the version, which
replaces the author's last one in the ladder.  The staging folder is removed whatever
happens (:func:`~arena.submissions.cleanup.remove_tree` cannot fail on what a stranger
wrote); the check's logs are kept for the author.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import arena
from arena.archives import ArchiveError, UnpackLimits, check_tree, unpack
from arena.conformance.check import CheckSettings, run_check
from arena.errors import ArenaError
from arena.hosting.allowlist import SYSTEM_DIRS
from arena.hosting.errors import HostingError
from arena.hosting.host import strangers_level
from arena.hosting.manifest import (
    PYTHON_PLACEHOLDER,
    BotCommand,
    manifest_command,
    read_manifest_document,
)
from arena.ladder.config import LadderConfig
from arena.plugins import load_plugins
from arena.ratings import DEFAULT_ENV
from arena.referee.settings import TimeControl
from arena.storage import LadderStore, StorageError
from arena.storage.submissions_store import SubmissionStatus, SubmissionStore
from arena.submissions.build import BuildSettings, run_build
from arena.submissions.cleanup import remove_tree
from arena.submissions.layout import DataLayout
from arena.submissions.report import ArchiveFacts, HostPaths, SubmissionReport
from arena.submissions.stored import PACKED, pack_tree, unpack_packed

__all__ = ["CheckOptions", "Rejected", "check_submission"]

MANIFEST = "bot.toml"

_log = logging.getLogger(__name__)


class Rejected(ArenaError, ValueError):
    """A submission that is refused; the message is the one-line reason."""


@dataclass(frozen=True)
class CheckOptions:
    unpack: UnpackLimits = field(default_factory=UnpackLimits)
    build: BuildSettings = field(default_factory=BuildSettings)
    games: int = 2  # hands against random in the conformance check
    time_control: TimeControl | None = None  # default: the ladder's


def check_submission(
    db_path: Path, submission_id: int, options: CheckOptions | None = None
) -> None:
    """Check one submission whose archive waits in its staging folder; record the verdict."""
    options = options or CheckOptions()
    layout = DataLayout.of(db_path)
    staging = layout.staging(submission_id)
    paths = host_paths(layout, submission_id)
    report = SubmissionReport(host_paths=paths)
    store = LadderStore.open(db_path)
    try:
        submissions = SubmissionStore(store)
        submission = submissions.submission(submission_id)
        if submission is None or submission.status is not SubmissionStatus.CHECKING:
            return
        try:
            _check(store, submissions, layout, submission_id, submission.author_id,
                   submission.archive_sha256, options, report)  # fmt: skip
        except (Rejected, ArchiveError, StorageError) as error:
            submissions.reject(submission_id, paths(str(error)), report)
        except HostingError as error:
            submissions.reject(submission_id, paths(f"the sandbox failed: {error}"), report)
        except Exception as error:  # the arena's own failure: say so, keep the server up
            submissions.reject(
                submission_id, f"internal error while checking: {type(error).__name__}", report
            )
            raise
    finally:
        try:
            _scrub_logs(layout.logs(submission_id), paths)  # whatever the verdict
        except OSError as error:
            _log.error("cannot rewrite the check logs of submission %d: %s", submission_id, error)
        try:
            remove_tree(staging)
        except OSError as error:  # not what unpack or a build wrote: the server's own trouble
            _log.error(
                "cannot remove the staging folder of submission %d: %s", submission_id, error
            )
        store.close()


def host_paths(layout: DataLayout, submission_id: int) -> HostPaths:
    """What a submission's author reads for the server's paths: the submission's folder
    (unpacked, built or checked) as relative paths, the build's HOME as ``~``, its check
    logs by their names, the arena's interpreter as ``{python}``, and the server's
    other folders (staging, data, the ladder's, the arena's install) by a name."""
    staging = layout.staging(submission_id)
    return HostPaths.of(
        [
            (staging / "bot", "."),
            (staging / "final", "."),
            (staging / "build" / "home", "~"),
            (staging, "(the staging folder)"),
            (layout.logs(submission_id), "."),
            (layout.root, "(the ladder's data folder)"),
            (layout.root.parent, "(the ladder's folder)"),
            (sys.executable, PYTHON_PLACEHOLDER),
            (os.path.realpath(sys.executable), PYTHON_PLACEHOLDER),
            (Path(arena.__file__).resolve().parent.parent, "(the arena's install)"),
            (sys.prefix, "(the arena's environment)"),
        ]
    )


def _scrub_logs(folder: Path, paths: HostPaths) -> None:
    """The check's logs, which its author reads, with the server's paths replaced
    (what the bot printed of where it runs, what the arena wrote of where it started
    it)."""
    for log in folder.glob("*.log") if folder.is_dir() else ():
        if log.is_file() and not log.is_symlink():
            text = log.read_text(errors="replace")
            scrubbed = paths(text)
            if scrubbed != text:
                log.write_text(scrubbed)


def _check(
    store: LadderStore,
    submissions: SubmissionStore,
    layout: DataLayout,
    submission_id: int,
    author_id: int,
    sha256: str,
    options: CheckOptions,
    report: SubmissionReport,
) -> None:
    staging = layout.staging(submission_id)
    tree = staging / "bot"
    tree.mkdir(mode=0o755)
    summary = unpack(staging / "archive", tree, options.unpack)
    report.archive = ArchiveFacts(sha256, summary.files, summary.bytes)
    vetted = _vet(tree)
    name = vetted.command.name
    submissions.set_bot_name(submission_id, name)
    report.manifest_name, report.command = name, tuple(vetted.command.argv)
    problem = submissions.name_problem(author_id, name)
    if problem is not None:
        raise Rejected(problem)
    build = vetted.data.get("build")
    if build is not None:
        if not isinstance(build, str) or not build.strip():
            raise Rejected(f"{MANIFEST}: build must be a command line (a string)")
        scratch = staging / "build"
        scratch.mkdir(mode=0o700)
        result = run_build(build, tree, scratch, options.build)
        report.build = result
        if not result.ok:
            how = "timed out" if result.status is None else f"exited with status {result.status}"
            last = result.output.strip().splitlines()[-1:] or ["(no output)"]
            raise Rejected(f"the build {how}: {last[0][:300]}")
        check_tree(tree, options.unpack)
    # What is stored, checked and run is one archive of the tree as it is now; the
    # check runs it unpacked from that archive, vetted again there.
    packed = staging / PACKED
    stored_sha = pack_tree(tree, packed)
    final = staging / "final"
    final.mkdir(mode=0o755)
    unpack_packed(packed, final, options.unpack)
    remove_tree(tree)
    _vet(final, before=vetted)
    report.stored_sha256 = stored_sha
    config = LadderConfig.from_json(store.config_json())
    logs = layout.logs(submission_id)
    plugins = load_plugins(config.plugins, autoload=config.autoload_plugins)
    checked = run_check(
        str(final / MANIFEST),
        plugins,
        CheckSettings(
            time_control=options.time_control or config.time_control,
            sandbox=strangers_level().value,  # the build's, chosen in one place
            games=options.games,
            only=(config.game,),
            log_dir=logs,
            modules=config.plugins,
            autoload=config.autoload_plugins,
        ),
    )
    report.check, report.check_file = checked, MANIFEST
    if checked.name and checked.name != name:  # also the check's manifest-name failure
        raise Rejected(
            f"the manifest's name {name!r} differs from the name the bot gives in its "
            f"handshake, {checked.name!r}"
        )
    if not checked.passed:
        failed = [result.name for result in checked.results if result.status.value == "fail"]
        raise Rejected(f"the conformance check failed: {', '.join(failed)}")
    _accept(store, submissions, layout, submission_id, author_id, stored_sha, name, final, report)


@dataclass(frozen=True)
class _Vetted:
    command: BotCommand
    data: dict[str, Any]


def _nested_hint(root: Path) -> str:
    """When the archive holds one folder with the manifest inside (a folder packed
    instead of its contents), say so."""
    entries = list(root.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        inner = entries[0] / MANIFEST
        if inner.is_file() and not inner.is_symlink():
            return (
                f": it is in the folder {entries[0].name}/; pack that folder's contents, not "
                f"the folder (arena submit {entries[0].name} does)"
            )
    return ""


def _vet(root: Path, before: _Vetted | None = None) -> _Vetted:
    """Read and vet the manifest at ``root``'s top (Rejected with the reason); with
    ``before``, the same manifest after the build: refused if any field changed."""
    manifest = root / MANIFEST
    if not manifest.is_file() or manifest.is_symlink():
        if before is not None:
            raise Rejected(f"the build removed {MANIFEST} or made it a link")
        raise Rejected(f"no {MANIFEST} at the archive's root{_nested_hint(root)}")
    resolved = root.resolve()
    try:
        document = read_manifest_document(manifest)
    except HostingError as error:
        raise Rejected(_own_words(error, resolved)) from None
    data = document.data
    if before is not None:
        changed = _changed_field(before.data, data)
        if changed is not None:
            raise Rejected(
                f"{MANIFEST}: the build changed {changed!r}; a manifest is vetted before "
                "the build and may not change in it"
            )
    _vet_paths(data, resolved)
    try:
        command = manifest_command(document)
    except HostingError as error:
        raise Rejected(_own_words(error, resolved)) from None
    if "PATH" in command.env:
        raise Rejected(f"{MANIFEST}: env.PATH may not be set by a submitted bot")
    # {python} is the arena's own interpreter (a Python SDK bot's): the arena chose it and
    # binds it, its environment and its own package read-only, as for its own bots.
    if _words(data.get("command"))[:1] != [PYTHON_PLACEHOLDER]:
        _vet_program(command.argv[0], command.cwd or resolved, resolved)
    return _Vetted(command, data)


def _own_words(error: Exception, root: Path) -> str:
    """A manifest error as its author sees it: paths in their folder, not the server's."""
    return str(error).replace(f"{root}/", "")


def _changed_field(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    """The first field (``limits.memory_mb``, ``command``...) that differs, or None."""
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            inner = _changed_field(old, new)
            if inner is not None:
                return f"{key}.{inner}"
        elif old != new:
            return key
    return None


def _vet_paths(data: dict[str, Any], root: Path) -> None:
    """Paths a manifest names stay in the submission's folder (judged before the manifest
    is read further, so that whether a host path exists is never told)."""
    directory = data.get("working_directory")
    if isinstance(directory, str) and not _inside(root, directory):
        raise Rejected(f"{MANIFEST}: working_directory must be inside the submission's folder")
    sandbox = data.get("sandbox")
    paths = sandbox.get("read_only") if isinstance(sandbox, dict) else None
    for path in paths if isinstance(paths, list) else ():
        if isinstance(path, str) and not _inside(root, path):
            raise Rejected(
                f"{MANIFEST}: sandbox.read_only may name only paths inside the submission's "
                f"folder, not {path!r}"
            )


def _inside(root: Path, text: str) -> bool:
    return (root / text).resolve().is_relative_to(root)


def _words(command: object) -> list[str]:
    """The words of a manifest's command as the manifest reader splits them ([] if it
    cannot: the reader says why)."""
    if isinstance(command, list):
        return [str(word) for word in command]
    if isinstance(command, str):
        try:
            return shlex.split(command)
        except ValueError:
            return []
    return []


def _vet_program(program: str, cwd: Path, root: Path) -> None:
    """The sandbox binds the folder of the program a command names, so a stranger's
    command may name only a program of its own folder or of the system's (/usr, /bin...)
    (and may not change PATH to find another: see ``_vet``)."""
    if os.sep in program:
        found: str | None = os.path.realpath(cwd / program)
    else:
        found = shutil.which(program, path=os.environ.get("PATH", os.defpath))
        found = os.path.realpath(found) if found else None
    if found is None:
        raise Rejected(f"{MANIFEST}: command: the program {program!r} is not on this server")
    path = Path(found)
    if path.is_relative_to(root) or any(path.is_relative_to(top) for top in SYSTEM_DIRS):
        return
    raise Rejected(
        f"{MANIFEST}: command: the program {program!r} is neither in the "
        f"submission's folder nor in the system's ({', '.join(SYSTEM_DIRS[:3])}...)"
    )


def _accept(
    store: LadderStore,
    submissions: SubmissionStore,
    layout: DataLayout,
    submission_id: int,
    author_id: int,
    sha256: str,
    name: str,
    tree: Path,
    report: SubmissionReport,
) -> None:
    place = layout.archive(sha256)
    if place.exists():
        raise Rejected("these files are already an accepted version (the same SHA-256 once built)")
    partial = place.with_name(place.name + ".partial")
    remove_tree(partial)
    partial.mkdir(mode=0o755)
    os.replace(tree.parent / "archive", partial / "archive")
    os.replace(tree.parent / PACKED, partial / PACKED)
    os.replace(tree, partial / "bot")
    os.replace(partial, place)  # one rename: the version's folder is there whole or not at all
    try:
        submissions.accept(
            submission_id,
            author_id,
            name,
            sha256,
            str(place / "bot"),
            str(place / "bot" / MANIFEST),
            report,
            DEFAULT_ENV.initial(),
        )
    except BaseException:
        remove_tree(place)
        raise
