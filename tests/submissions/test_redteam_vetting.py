"""A hostile author against the vetting (issue 36): a build that rewrites ``bot.toml``,
links and modes a build adds, host paths named in a manifest, a TOML nesting bomb, and
the stored archive a match starts from.

The sandboxed build and the check need bwrap; here the build runs as a plain shell in
the submission's folder and the check is a stand-in that records what it was given, so
what is tested is the vetting around them (tests/submissions/test_security.py runs the
real ones where bwrap is)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.conformance.report import CheckReport
from arena.hosting.errors import ManifestError
from arena.hosting.manifest import (
    MAX_MANIFEST_BYTES,
    MAX_MANIFEST_NESTING,
    load_manifest,
    toml_nesting,
)
from arena.hosting.sandbox import SandboxLevel
from arena.ladder.runner import LadderRefused, run_ladder
from arena.storage import LadderStore
from arena.storage.submissions_store import Submission, SubmissionStore
from arena.submissions import pipeline
from arena.submissions.build import BuildResult
from arena.submissions.layout import DataLayout
from arena.submissions.stored import PACKED, StoredVersionError, open_version, sha256_of
from tests.submissions.conftest import add_author, tar_gz

GOOD = 'name = "mybot"\ncommand = ["sh", "run.sh"]\n'


@dataclass
class FakeCheck:
    """Stands in for run_check: passes, and keeps the manifest it was given (and its text
    then), so a test can see what would have run."""

    given: list[tuple[str, str]] = field(default_factory=list)

    def __call__(self, reference: str, *_: object, **__: object) -> CheckReport:
        self.given.append((reference, Path(reference).read_text()))
        return CheckReport(reference, name="mybot")  # no check failed


def _plain_build(command: str, tree: Path, scratch: Path, settings: object) -> BuildResult:
    done = subprocess.run(
        ["sh", "-c", command], cwd=tree, capture_output=True, text=True, timeout=60, check=False
    )
    return BuildResult(command, done.returncode, 0.0, done.stdout + done.stderr)


@pytest.fixture
def check(monkeypatch: pytest.MonkeyPatch) -> FakeCheck:
    fake = FakeCheck()
    monkeypatch.setattr(pipeline, "run_build", _plain_build)
    monkeypatch.setattr(pipeline, "run_check", fake)
    monkeypatch.setattr(pipeline, "strangers_level", lambda: SandboxLevel.BWRAP)
    return fake


def _submit(db: Path, archive: bytes) -> Submission:
    """One upload by the first author, checked: its record afterwards."""
    store = LadderStore.open(db)
    try:
        submissions = SubmissionStore(store)
        author = submissions.authors()[0].id
        sid = submissions.add_submission(author, hashlib.sha256(archive).hexdigest(), len(archive))
    finally:
        store.close()
    staging = DataLayout.of(db).staging(sid)
    staging.mkdir(mode=0o700)
    (staging / "archive").write_bytes(archive)
    pipeline.check_submission(db, sid)
    assert not staging.exists()
    store = LadderStore.open(db)
    try:
        submission = SubmissionStore(store).submission(sid)
    finally:
        store.close()
    assert submission is not None
    return submission


def _rejected(db: Path, archive: bytes, reason: str) -> str:
    submission = _submit(db, archive)
    assert submission.status == "rejected", submission
    assert submission.reason is not None and reason in submission.reason, submission.reason
    assert "\n" not in submission.reason
    assert str(db.parent) not in submission.reason  # nothing about the host's paths
    assert str(Path(__file__).parents[2]) not in submission.reason
    return submission.reason


def _bot(manifest: str, **files: str) -> bytes:
    return tar_gz({"bot.toml": manifest, "run.sh": "exec true\n", **files})


@pytest.fixture
def author(ladder: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    add_author(ladder, "mallory", capsys)
    return ladder


# -- a build that rewrites the manifest it was vetted by -------------------------------

REWRITES = {
    "name": ("""sed -i 's/^name = .*/name = "other"/' bot.toml""", "name"),
    "command": (
        """sed -i 's|^command = .*|command = ["cat", "/etc/hostname"]|' bot.toml""",
        "command",
    ),
    "working_directory": ("""echo "working_directory = '..'" >> bot.toml""", "working_directory"),
    "env": ("""printf '[env]\\nLD_PRELOAD = "/tmp/x.so"\\n' >> bot.toml""", "env"),
    "limits": ("""printf '[limits]\\nmemory_mb = 99999\\n' >> bot.toml""", "limits"),
    "sandbox.read_only": (
        """printf '[sandbox]\\nread_only = ["/etc"]\\n' >> bot.toml""",
        "sandbox",
    ),
    "build": ("""sed -i 's/^build = .*/build = "true"/' bot.toml""", "build"),
}


@pytest.mark.slow
@pytest.mark.parametrize("field_name", sorted(REWRITES))
def test_a_build_that_rewrites_a_manifest_field_is_refused_naming_it(
    field_name: str, author: Path, check: FakeCheck
) -> None:
    """The manifest is vetted again after the build, and a field that changed is refused,
    naming it: what runs is only ever what was vetted."""
    build, named = REWRITES[field_name]
    reason = _rejected(author, _bot(f"{GOOD}build = '''{build}'''\n"), "the build changed")
    assert reason == (
        f"bot.toml: the build changed {named!r}; a manifest is vetted before the build "
        "and may not change in it"
    )
    assert check.given == []  # the check never saw it


@pytest.mark.slow
def test_a_build_that_rewrites_a_nested_field_names_it(author: Path, check: FakeCheck) -> None:
    manifest = (
        f"{GOOD}build = '''sed -i 's/^memory_mb = 256/memory_mb = 8192/' bot.toml'''\n"
        "[limits]\nmemory_mb = 256\n"
    )
    _rejected(author, _bot(manifest), "the build changed 'limits.memory_mb'")


@pytest.mark.slow
def test_a_build_may_touch_the_manifest_without_changing_a_field(
    author: Path, check: FakeCheck
) -> None:
    manifest = f"{GOOD}build = '''echo '# built' >> bot.toml'''\n"
    submission = _submit(author, _bot(manifest))
    assert submission.status == "accepted", submission.reason
    (_reference, text) = check.given[0]
    assert text.endswith("# built\n")  # what was checked is the tree after the build


@pytest.mark.slow
def test_a_build_that_removes_the_manifest_or_makes_it_a_link(
    author: Path, check: FakeCheck
) -> None:
    manifest = f"{GOOD}build = 'cp bot.toml real.toml && ln -sf real.toml bot.toml'\n"
    _rejected(author, _bot(manifest), "the build removed bot.toml or made it a link")
    manifest = f"{GOOD}build = 'rm bot.toml'\n"
    _rejected(author, _bot(manifest), "the build removed bot.toml or made it a link")


@pytest.mark.slow
def test_a_build_that_writes_a_nesting_bomb_into_the_manifest(
    author: Path, check: FakeCheck
) -> None:
    manifest = f"{GOOD}build = '''python3 -c \"print('x = ' + '[' * 20000)\" >> bot.toml'''\n"
    _rejected(author, _bot(manifest), "nested 20000 deep, more than 32")


# -- links, modes and the program a build may leave ------------------------------------


@pytest.mark.slow
def test_a_build_that_links_out_is_refused(author: Path, check: FakeCheck) -> None:
    manifest = f"{GOOD}build = 'ln -s /etc/passwd passwd'\n"
    _rejected(author, _bot(manifest), "the build made a link 'passwd' pointing outside the folder")


@pytest.mark.slow
def test_a_build_that_points_the_program_out_is_refused(author: Path, check: FakeCheck) -> None:
    """The program is vetted again after the build: ./bot made a link out of the folder."""
    manifest = 'name = "mybot"\ncommand = ["./bot"]\nbuild = "ln -s /usr/bin/env bot"\n'
    _rejected(author, tar_gz({"bot.toml": manifest}), "pointing outside the folder")


@pytest.mark.slow
def test_a_build_that_makes_a_set_uid_program_is_stored_without_the_bit(
    author: Path, check: FakeCheck
) -> None:
    manifest = (
        'name = "mybot"\ncommand = ["./bot"]\n'
        "build = 'cp run.sh bot && chmod 6755 bot && mkdir -m 777 data && chmod 700 .'\n"
    )
    submission = _submit(author, tar_gz({"bot.toml": manifest, "run.sh": "exec true\n"}))
    assert submission.status == "accepted", submission.reason
    place = _stored(author)
    bot = place / "bot"
    assert stat.S_IMODE((bot / "bot").stat().st_mode) == 0o755
    assert stat.S_IMODE((bot / "data").stat().st_mode) == 0o755
    assert stat.S_IMODE(bot.stat().st_mode) == 0o755
    with tarfile.open(place / PACKED) as tar:
        modes = {m.name: stat.S_IMODE(m.mode) for m in tar.getmembers()}
    assert modes["bot"] == 0o755 and modes["data"] == 0o755


@pytest.mark.slow
def test_a_build_that_leaves_a_fifo_or_a_hard_link_is_refused(
    author: Path, check: FakeCheck
) -> None:
    _rejected(
        author, _bot(f"{GOOD}build = 'mkfifo pipe'\n"), "the build made a special file 'pipe'"
    )
    _rejected(author, _bot(f"{GOOD}build = 'ln run.sh hard'\n"), "the build made a hard link")


@pytest.mark.slow
def test_a_build_too_deep_is_refused_and_removed(author: Path, check: FakeCheck) -> None:
    deep = "python3 -c \"import os\nfor _ in range(3000): os.mkdir('d'); os.chdir('d')\""
    _rejected(author, _bot(f"{GOOD}build = '''{deep}'''\n"), "more than 64 names deep")
    assert list(Path(f"{author}.data/staging").iterdir()) == []


# -- host paths named in an uploaded manifest ------------------------------------------


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ("[sandbox]\nread_only = ['/etc']", "sandbox.read_only may name only paths inside"),
        ("[sandbox]\nread_only = ['/no/such/host/folder']", "sandbox.read_only may name only"),
        ("[sandbox]\nread_only = ['../../..']", "sandbox.read_only may name only paths inside"),
        ("working_directory = '/etc'", "working_directory must be inside"),
        ("working_directory = '/no/such/folder'", "working_directory must be inside"),
        ("[env]\nPATH = '/root/bin'", "env.PATH may not be set"),
    ],
)
def test_host_paths_in_a_manifest_are_refused_alike_whether_they_exist(
    extra: str, reason: str, author: Path, check: FakeCheck
) -> None:
    """Whether a host path exists is never told: the same refusal either way."""
    _rejected(author, _bot(f"{GOOD}{extra}\n"), reason)


def test_a_program_outside_is_refused_without_saying_where_it_is(
    author: Path, check: FakeCheck
) -> None:
    manifest = 'name = "mybot"\ncommand = ["../../../usr/local/bin/x"]\n'
    reason = _rejected(author, tar_gz({"bot.toml": manifest}), "neither in the submission's")
    assert "/usr/local/bin/x'" in reason and " is /" not in reason


# -- bounded parsing -------------------------------------------------------------------


def test_a_toml_nesting_bomb_is_refused_with_a_reason(author: Path, check: FakeCheck) -> None:
    pad = os.urandom(1024)  # (so that the archive is not refused as a zip bomb first)
    for bomb in ("x = " + "[" * 20_000, "x = " + "{a = " * 10_000, "x = " + "[" * 33):
        reason = _rejected(author, tar_gz({"bot.toml": bomb, "pad": pad}), "deep, more than 32")
        assert reason.startswith("bot.toml: arrays or inline tables nested")
    big = "#" + os.urandom(40 * 1024).hex()
    _rejected(author, tar_gz({"bot.toml": big}), "a manifest of more than 64 KiB")


def test_the_manifest_bound_is_everyone_s(tmp_path: Path) -> None:
    """Every caller of load_manifest gets the bound (the ladder's, arena match...)."""
    path = tmp_path / "bot.toml"
    path.write_text("x = " + "[" * 5000)
    with pytest.raises(ManifestError, match="nested 5000 deep, more than 32"):
        load_manifest(path)
    path.write_text(GOOD + "#" * MAX_MANIFEST_BYTES)
    with pytest.raises(ManifestError, match="more than 64 KiB"):
        load_manifest(path)
    path.write_bytes(b'name = "\xff"\n')
    with pytest.raises(ManifestError, match="not valid UTF-8"):
        load_manifest(path)
    nested = "x = " + "[" * MAX_MANIFEST_NESTING + "]" * MAX_MANIFEST_NESTING + "\n"
    path.write_text(GOOD + nested)
    with pytest.raises(ManifestError, match="field 'x' is not a manifest field"):
        load_manifest(path)  # at the bound: parsed, then judged as usual


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("a = [[1], [2]]\n[t]\nb = {c = [[1]]}", 3),
        ('a = "[[[["', 0),
        ("a = '[[[['", 0),
        ('a = """\n[[[\n"""', 0),
        ("a = '''\n[[[\n'''", 0),
        ("a = '''x]]''''" + "[" * 5, 5),  # a fourth quote belongs to the string
        ('a = """x]]"""""' + "[" * 5, 5),
        ('a = """\\"""[[["""', 0),  # an escaped quote does not end it
        ('a = "\\"[" # [[[[', 0),
        ('a = ["]]]", ["]]]", [1]]]', 3),  # closing brackets in strings do not count
        ("# [[[[\na = 1", 0),
        ('a = "unterminated\n[[', 2),
        ("a = [\n]]]]\n[[", 2),
    ],
)
def test_nesting_is_counted_outside_strings_and_comments(text: str, depth: int) -> None:
    assert toml_nesting(text) == depth


# -- the stored archive a match starts from --------------------------------------------


def _stored(db: Path) -> Path:
    (place,) = Path(f"{db}.data/archives").iterdir()
    return place


@pytest.mark.slow
def test_the_stored_archive_is_the_vetted_tree_addressed_by_its_hash(
    author: Path, check: FakeCheck
) -> None:
    manifest = f"{GOOD}build = 'echo built > out.txt'\n"
    upload = _bot(manifest)
    submission = _submit(author, upload)
    assert submission.status == "accepted", submission.reason
    place = _stored(author)
    assert sha256_of(place / PACKED) == place.name
    assert submission.report is not None and submission.report["stored"]["sha256"] == place.name
    assert (place / "archive").read_bytes() == upload  # as uploaded, beside it
    with tarfile.open(place / PACKED) as tar:
        packed: dict[str, bytes] = {}
        for member in tar.getmembers():
            if member.isfile():
                data = tar.extractfile(member)
                assert data is not None  # a regular file's data can always be read
                packed[member.name] = data.read()
    on_disk = {
        str(p.relative_to(place / "bot")): p.read_bytes()
        for p in (place / "bot").rglob("*")
        if p.is_file()
    }
    assert packed == on_disk
    assert packed["out.txt"] == b"built\n"
    store = LadderStore.open(author)
    try:
        (version,) = SubmissionStore(store).versions(submission.author_id)
        reference = store.db.execute(
            "SELECT reference FROM bots WHERE name = ?", (version.ladder_name,)
        ).fetchone()[0]
    finally:
        store.close()
    assert version.archive_sha256 == place.name
    assert reference == str(place / "bot" / "bot.toml")
    # The check ran the tree unpacked from that archive (its manifest, after the build).
    (checked, text) = check.given[0]
    assert Path(checked).name == "bot.toml" and text == (place / "bot" / "bot.toml").read_text()
    # The same upload again packs to the same bytes: the same version, refused as such.
    _rejected(author, upload, "already an accepted version")


def test_a_match_starts_only_from_an_archive_with_the_vetted_hash(
    author: Path, check: FakeCheck
) -> None:
    assert _submit(author, _bot(GOOD)).status == "accepted"
    place = _stored(author)
    layout = DataLayout.of(author)
    assert open_version(layout, place.name) == place / "bot" / "bot.toml"
    # bot/ gone: unpacked again from the archive, whose hash is checked first.
    (place / "bot" / "bot.toml").unlink()
    import shutil

    shutil.rmtree(place / "bot")
    manifest = open_version(layout, place.name)
    assert manifest.read_text() == GOOD
    # An archive changed after it was vetted is refused, and nothing is unpacked.
    shutil.rmtree(place / "bot")
    packed = (place / PACKED).read_bytes()
    (place / PACKED).write_bytes(packed + b"\0")
    with pytest.raises(StoredVersionError, match="not the one vetted"):
        open_version(layout, place.name)
    assert not (place / "bot").exists()
    # ...and a ladder run with that bot is refused before anything is played.
    store = LadderStore.open(author)
    try:
        with pytest.raises(LadderRefused, match=r"bot \S+: version \w+: its archive has digest"):
            run_ladder(store, progress=False)
        assert store.counts() == {}
    finally:
        store.close()
    (place / PACKED).unlink()
    with pytest.raises(StoredVersionError, match="its archive is missing"):
        open_version(layout, place.name)


@pytest.mark.slow
def test_the_report_names_no_server_path(author: Path, check: FakeCheck) -> None:
    submission = _submit(author, _bot(f"{GOOD}build = 'echo ok'\n"))
    assert submission.status == "accepted", submission.reason
    text = json.dumps(submission.report)
    assert str(author.parent) not in text


def test_a_link_inside_travels_into_the_stored_tree(author: Path, check: FakeCheck) -> None:
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for name, data in (("bot.toml", GOOD.encode()), ("lib/run.sh", b"exec true\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("run.sh")
        link.type = tarfile.SYMTYPE
        link.linkname = "lib/run.sh"
        tar.addfile(link)
    assert _submit(author, archive.getvalue()).status == "accepted"
    bot = _stored(author) / "bot"
    assert os.readlink(bot / "run.sh") == "lib/run.sh"


# -- each vetting rule on its own ------------------------------------------------------


def test_no_manifest_or_a_manifest_that_is_a_link(author: Path, check: FakeCheck) -> None:
    _rejected(author, tar_gz({"run.sh": "x"}), "no bot.toml at the archive's root")
    linked = tar_gz({"real.toml": GOOD, "run.sh": "x"}, {"bot.toml": "real.toml"})
    _rejected(author, linked, "no bot.toml at the archive's root")


def test_a_folder_packed_whole_gets_a_hint(author: Path, check: FakeCheck) -> None:
    nested = tar_gz({"mybot/bot.toml": GOOD, "mybot/run.sh": "x"})
    reason = _rejected(
        author, nested, "no bot.toml at the archive's root: it is in the folder mybot/"
    )
    assert "arena submit mybot" in reason


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("command = 'sh \"unclosed'", "field 'command' cannot be split into words"),
        ("command = 5", "field 'command' must be a string or a list of strings"),
    ],
)
def test_a_command_the_reader_refuses(
    command: str, reason: str, author: Path, check: FakeCheck
) -> None:
    reason_given = _rejected(author, tar_gz({"bot.toml": f'name = "mybot"\n{command}\n'}), reason)
    assert reason_given.startswith("bot.toml:2: ")  # its own folder's words


def test_a_program_found_on_the_server_s_path_but_not_the_system_s(
    author: Path, check: FakeCheck, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "mytool").write_text("#!/bin/sh\n")
    os.chmod(tools / "mytool", 0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    manifest = 'name = "mybot"\ncommand = ["mytool"]\n'
    _rejected(author, tar_gz({"bot.toml": manifest}), "neither in the submission's folder")
    manifest = 'name = "mybot"\ncommand = ["no-such-tool-here"]\n'
    _rejected(author, tar_gz({"bot.toml": manifest}), "'no-such-tool-here' is not on this server")


def test_a_program_is_found_from_the_working_directory(author: Path, check: FakeCheck) -> None:
    manifest = 'name = "mybot"\nworking_directory = "a/b"\ncommand = ["../../run.sh"]\n'
    files = {"bot.toml": manifest, "run.sh": "exec true\n", "a/b/keep": ""}
    submission = _submit(author, tar_gz(files))
    assert submission.status == "accepted", submission.reason


def test_a_manifest_of_exactly_64_kib_is_read(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    text = GOOD + "#" * (MAX_MANIFEST_BYTES - len(GOOD) - 1) + "\n"
    path.write_text(text)
    assert len(text) == MAX_MANIFEST_BYTES
    assert load_manifest(path).name == "mybot"


def test_invalid_toml_says_its_line_even_at_the_end(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text('name = "mybot"\n\ncommand =')
    with pytest.raises(ManifestError, match=r"bot\.toml:3: invalid TOML"):
        load_manifest(path)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("a = '''x'''''" + "[" * 5, 5),  # two more quotes belong to the string
        ('a = """x"""""' + "[" * 5, 5),
        ("a = '''\n" + "[" * 5, 0),  # unterminated: to the end
        ('a = "x\\\\"' + "[" * 2, 2),  # an escaped backslash, then the quote ends it
        ("[a]\n[[b]]\n", 2),
        ("a = {b = {c = [1]}}", 3),
        ("a = [[], [[]]]", 3),  # each closing bracket one level
        ('a = """x\\\\"""\nb = [[1]]', 2),  # an escaped backslash just before the end
        ('a = """x"""\nb = [[1]]', 2),
        ("a = '''x'''\nb = [[1]]", 2),
        ('a = ["""x"""]\nb = [[1]]', 2),  # the bracket right after the quotes closes
        ("a = ''\nb = [[1]]", 2),  # an empty string is not a multi-line one
        ("a = '''''x'''\nb = [[1]]", 2),  # quotes that begin a multi-line string's text
    ],
)
def test_more_strings_and_tables(text: str, depth: int) -> None:
    assert toml_nesting(text) == depth


def test_read_only_paths_inside_are_accepted(author: Path, check: FakeCheck) -> None:
    manifest = f"{GOOD}[sandbox]\nread_only = ['lib', './lib/data']\n"
    files = {"bot.toml": manifest, "run.sh": "exec true\n", "lib/data": "1"}
    submission = _submit(author, tar_gz(files))
    assert submission.status == "accepted", submission.reason


@pytest.mark.parametrize(
    "command", ['["{python}", "bot.py"]', '"{python} bot.py"'], ids=["list", "string"]
)
def test_a_python_sdk_bot_on_the_arena_s_python_is_accepted(
    command: str, author: Path, check: FakeCheck
) -> None:
    """``{python}`` is the arena's own interpreter, which the arena binds (read-only) with
    its package: not a program of the submitter's choosing (tests/submissions/
    test_python_bot.py submits one over HTTP and runs it under bwrap)."""
    manifest = f'name = "mybot"\ncommand = {command}\n'
    submission = _submit(author, tar_gz({"bot.toml": manifest, "bot.py": "pass\n"}))
    assert submission.status == "accepted", submission.reason
    assert len(check.given) == 1


def test_a_python_sdk_bot_may_not_set_path_either(author: Path, check: FakeCheck) -> None:
    manifest = 'name = "mybot"\ncommand = ["{python}", "bot.py"]\n[env]\nPATH = "/x"\n'
    _rejected(author, tar_gz({"bot.toml": manifest}), "env.PATH may not be set")


def test_a_program_on_the_path_is_judged_where_its_links_lead(
    author: Path, check: FakeCheck, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program found on PATH through a link is where the link leads: here the system's."""
    tools = tmp_path / "tools"
    tools.mkdir()
    os.symlink("/bin/sh", tools / "mysh")
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    manifest = 'name = "mybot"\ncommand = ["mysh", "run.sh"]\n'
    submission = _submit(author, tar_gz({"bot.toml": manifest, "run.sh": "exec true\n"}))
    assert submission.status == "accepted", submission.reason


def test_a_manifest_named_by_a_string(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text(GOOD)
    # Deliberately a str, though typed Path: checks the reader's own Path(path) conversion.
    assert load_manifest(str(path)).cwd == tmp_path.resolve()  # type: ignore[arg-type]
