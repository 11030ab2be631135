"""No command changes a file it did not create, whatever it is given: each command that
takes a file, given a file of the wrong kind (a ladder config, a ladder database, a
replay, a folder, an empty file, random bytes), answers in one line, exits 2, and
leaves every file's bytes and mode as they were and makes none."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.cli.main import main

pytestmark = pytest.mark.slow  # making a replay probes the host's sandbox (runs bwrap)

CONFIG = """\
name = "wrong"
game = "gin-rummy/standard"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""

KINDS = ("config", "database", "replay", "folder", "empty", "binary")

#: Each command, with ``{}`` where the file goes, and the kind of file it wants.
COMMANDS: list[tuple[str, str]] = [
    ("ladder run {}", "database"),
    ("ladder leaderboard {}", "database"),
    ("ladder history {}", "database"),
    ("ladder export {}", "database"),
    ("ladder add {} random", "database"),
    ("ladder disable {} greedy", "database"),
    ("ladder enable {} greedy", "database"),
    ("ladder remove {} greedy", "database"),
    ("serve {}", "database"),
    ("replay {}", "replay"),
    ("replay --verify {}", "replay"),
    ("replay {} --seat 1", "replay"),
    ("ladder create {} --db {out}", "config"),
    ("check {}", "manifest"),
    ("match {} random --in-process --games 1", "manifest"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One file of each kind, made by the arena itself where it makes such files."""
    root = tmp_path_factory.mktemp("kinds")
    config = root / "ladder.toml"
    config.write_text(CONFIG)
    database = root / "ladder.sqlite"
    assert main(["ladder", "create", str(config), "--db", str(database)]) == 0
    replays = root / "replays"
    code = main(["match", "greedy", "random", "--in-process", "--games", "1", "--seed", "3",
                 "--replays", str(replays)])  # fmt: skip
    assert code == 0
    (replay,) = replays.glob("*.jsonl")
    folder = root / "folder"
    folder.mkdir()
    (folder / "inside.txt").write_text("x")
    empty = root / "empty"
    empty.write_bytes(b"")
    binary = root / "binary"
    binary.write_bytes(bytes(range(256)) * 4)
    return {"config": config, "database": database, "replay": replay, "folder": folder,
            "empty": empty, "binary": binary}  # fmt: skip


def _snapshot(root: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every path under ``root``: its mode and (for a file) its bytes."""
    found = {}
    for path in [root, *root.rglob("*")]:
        info = path.lstat()
        found[str(path)] = (info.st_mode, path.read_bytes() if stat.S_ISREG(info.st_mode) else None)
    return found


CASES = [
    (command, kind)
    for command, wanted in COMMANDS
    for kind in KINDS
    if kind != wanted and not (wanted == "manifest" and kind == "folder")
]


@pytest.mark.parametrize(
    ("command", "kind"), CASES, ids=[f"{c.split(' {')[0]}-{k}" for c, k in CASES]
)
def test_a_wrong_file_is_refused_in_one_line_and_left_alone(
    command: str,
    kind: str,
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refuse_to_serve: Callable[..., None] = lambda *a, **k: pytest.fail("it served the file")  # noqa: E731
    monkeypatch.setattr("uvicorn.run", refuse_to_serve)
    monkeypatch.chdir(tmp_path)
    target = files[kind]
    before = _snapshot(target.parent)
    out = tmp_path / "made.sqlite"
    argv = command.format(str(target), out=str(out)).split()
    capsys.readouterr()
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, f"arena {' '.join(argv)}: exit {code}, {err!r}"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), err
    assert "Traceback" not in err
    assert _snapshot(target.parent) == before, "a file was changed, made or removed"
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == []
