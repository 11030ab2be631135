"""From an uploaded archive to an accepted version of a bot, or a rejection with its reason.

Unpack (safely) into the submission's staging folder, read and vet ``bot.toml``, run
its ``build`` in the sandbox, run ``arena check`` on the result under bwrap, refuse a
handshake name other than the manifest's, then move the tree to its content-addressed
place and record the version, which replaces the author's last one in the ladder.
The staging folder is removed whatever happens; the check's logs are kept for the author.
"""

from __future__ import annotations

import os
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.hosting.allowlist import SYSTEM_DIRS
from arena.hosting.errors import HostingError
from arena.hosting.manifest import load_manifest
from arena.ladder.config import LadderConfig
from arena.plugins import load_plugins
from arena.ratings import DEFAULT_ENV
from arena.referee.settings import TimeControl
from arena.storage import LadderStore, StorageError
from arena.storage.submissions_store import SubmissionStore
from arena.submissions.build import BuildSettings, run_build
from arena.submissions.layout import DataLayout
from arena.submissions.unpack import ArchiveError, UnpackLimits, check_tree, unpack
from arena.toolkit.check import CheckSettings, run_check

__all__ = ["CheckOptions", "Rejected", "check_submission"]

MANIFEST = "bot.toml"


class Rejected(ValueError):
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
    report: dict[str, Any] = {}
    store = LadderStore.open(db_path)
    try:
        submissions = SubmissionStore(store)
        submission = submissions.submission(submission_id)
        if submission is None or submission.status != "checking":
            return
        try:
            _check(store, submissions, layout, submission_id, submission.author_id,
                   submission.archive_sha256, options, report)  # fmt: skip
        except (Rejected, ArchiveError, StorageError) as error:
            submissions.reject(submission_id, str(error), report)
        except HostingError as error:
            submissions.reject(submission_id, f"the sandbox failed: {error}", report)
        except Exception as error:  # the arena's own failure: say so, keep the server up
            submissions.reject(
                submission_id, f"internal error while checking: {type(error).__name__}", report
            )
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        store.close()


def _check(
    store: LadderStore,
    submissions: SubmissionStore,
    layout: DataLayout,
    submission_id: int,
    author_id: int,
    sha256: str,
    options: CheckOptions,
    report: dict[str, Any],
) -> None:
    staging = layout.staging(submission_id)
    tree = staging / "bot"
    tree.mkdir(mode=0o755)
    summary = unpack(staging / "archive", tree, options.unpack)
    report["archive"] = {"sha256": sha256, "files": summary.files, "bytes": summary.bytes}
    manifest_path = tree / MANIFEST
    if not manifest_path.is_file() or manifest_path.is_symlink():
        raise Rejected(f"no {MANIFEST} at the archive's root")
    manifest_text = manifest_path.read_text(errors="replace")
    try:
        raw = tomllib.loads(manifest_text)
    except tomllib.TOMLDecodeError as error:
        raise Rejected(f"{MANIFEST}: not valid TOML: {error}") from None
    try:
        command = load_manifest(manifest_path)
    except HostingError as error:
        raise Rejected(str(error).replace(str(tree) + "/", "")) from None
    name = command.name
    submissions.set_bot_name(submission_id, name)
    report["manifest"] = {"name": name, "command": list(command.argv)}
    root = tree.resolve()
    if command.cwd is not None and not command.cwd.is_relative_to(root):
        raise Rejected(f"{MANIFEST}: working_directory must be inside the submission's folder")
    for path in command.read_only_paths:
        if not path.is_relative_to(root):
            raise Rejected(
                f"{MANIFEST}: sandbox.read_only may name only paths inside the submission's "
                f"folder, not {path}"
            )
    _vet_program(command.argv[0], command.cwd or root, root, command.env)
    problem = submissions.name_problem(author_id, name)
    if problem is not None:
        raise Rejected(problem)
    build = raw.get("build")
    if build is not None:
        if not isinstance(build, str) or not build.strip():
            raise Rejected(f"{MANIFEST}: build must be a command line (a string)")
        scratch = staging / "build"
        scratch.mkdir(mode=0o700)
        result = run_build(build, tree, scratch, options.build)
        report["build"] = result.to_json()
        if not result.ok:
            how = "timed out" if result.status is None else f"exited with status {result.status}"
            last = result.output.strip().splitlines()[-1:] or ["(no output)"]
            raise Rejected(f"the build {how}: {last[0][:300]}")
        check_tree(tree, options.unpack)
    config = LadderConfig.from_json(store.config_json())
    logs = layout.logs(submission_id)
    plugins = load_plugins(config.plugins, autoload=config.autoload_plugins)
    checked = run_check(
        str(manifest_path),
        plugins,
        CheckSettings(
            time_control=options.time_control or config.time_control,
            sandbox="bwrap",  # strangers' code: never below
            games=options.games,
            only=(config.game,),
            log_dir=logs,
            modules=config.plugins,
            autoload=config.autoload_plugins,
        ),
    )
    check = checked.to_json()
    check["bot"] = MANIFEST
    check["logs"] = None  # a server path: the author reads the logs through the web page
    report["check"] = check
    if checked.name and checked.name != name:  # also the check's manifest-name failure
        raise Rejected(
            f"the manifest's name {name!r} differs from the name the bot gives in its "
            f"handshake, {checked.name!r}"
        )
    if not checked.passed:
        failed = [result.name for result in checked.results if result.status.value == "fail"]
        raise Rejected(f"the conformance check failed: {', '.join(failed)}")
    _accept(store, submissions, layout, submission_id, author_id, sha256, name, tree, report)


def _vet_program(program: str, cwd: Path, root: Path, env: dict[str, str]) -> None:
    """The sandbox binds the folder of the program a command names, so a stranger's
    command may name only a program of its own folder or of the system's (/usr, /bin...),
    and may not change PATH to find another."""
    if "PATH" in env:
        raise Rejected(f"{MANIFEST}: env.PATH may not be set by a submitted bot")
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
        f"{MANIFEST}: command: the program {program!r} is {found}, neither in the "
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
    report: dict[str, Any],
) -> None:
    place = layout.archive(sha256)
    if place.exists():
        raise Rejected("this archive is already an accepted version (same SHA-256)")
    partial = place.with_name(place.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(mode=0o755)
    os.replace(tree.parent / "archive", partial / "archive")
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
        shutil.rmtree(place, ignore_errors=True)
        raise
