"""Bot manifests: valid ones load, every bad field is named with file and line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.hosting import Limits, ManifestError, load_manifest


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bot.toml"
    path.write_text(text)
    return path


def test_full_manifest(tmp_path: Path) -> None:
    (tmp_path / "code").mkdir()
    path = write(
        tmp_path,
        """
name = "greedy-gin_2.0"
command = "python3 bot.py --depth '2 3'"
working_directory = "code"

[limits]
memory_mb = 512
processes = 8

[env]
GREEDY_DEPTH = "3"
""",
    )
    command = load_manifest(path)
    assert command.name == "greedy-gin_2.0"
    assert command.argv == ("python3", "bot.py", "--depth", "2 3")
    assert command.cwd == (tmp_path / "code").resolve()
    assert command.limits == Limits(memory_mb=512, processes=8)
    assert command.env == {"GREEDY_DEPTH": "3"}
    assert command.source == str(path)


def test_minimal_manifest_with_list_command(tmp_path: Path) -> None:
    command = load_manifest(write(tmp_path, 'name = "b"\ncommand = ["./run bot", "-v"]\n'))
    assert command.argv == ("./run bot", "-v")
    assert command.cwd == tmp_path.resolve()  # its own folder by default
    assert command.env == {}
    assert command.limits == Limits()


@pytest.mark.parametrize(
    ("text", "field", "line", "problem"),
    [
        ('command = "x"', "name", None, "missing required field 'name'"),
        ('name = "a b"\ncommand = "x"', "name", 1, "must be 1-64 characters"),
        ("name = 7\ncommand = 'x'", "name", 1, "got 7"),
        ('name = "b"', "command", None, "missing required field 'command'"),
        ('name = "b"\ncommand = 3', "command", 2, "must be a string or a list of strings"),
        ('name = "b"\ncommand = ["x", 1]', "command", 2, "must be a string or a list of strings"),
        ('name = "b"\ncommand = "x \'unclosed"', "command", 2, "cannot be split into words"),
        ('name = "b"\ncommand = ""', "command", 2, "must name a program"),
        (
            'name = "b"\ncommand = "x"\nworking_directory = "nope"',
            "working_directory",
            3,
            "existing directory",
        ),
        (
            'name = "b"\ncommand = "x"\n[limits]\nmemory_mb = "lots"',
            "limits.memory_mb",
            4,
            "must be a positive integer, got 'lots'",
        ),
        (
            'name = "b"\ncommand = "x"\n[limits]\ncpu_seconds = 0',
            "limits.cpu_seconds",
            4,
            "positive integer, got 0",
        ),
        (
            'name = "b"\ncommand = "x"\n[limits]\nopen_files = true',
            "limits.open_files",
            4,
            "positive integer, got True",
        ),
        (
            'name = "b"\ncommand = "x"\n[limits]\nmemory = 5',
            "limits.memory",
            4,
            "is not a known limit",
        ),
        (
            'name = "b"\ncommand = "x"\nlimits = { processes = -1 }',
            "limits.processes",
            3,
            "positive integer, got -1",
        ),
        ('name = "b"\ncommand = "x"\nlimits = 5', "limits", 3, "must be a table"),
        ('name = "b"\ncommand = "x"\n[env]\nDEPTH = 3', "env.DEPTH", 4, "must be a string, got 3"),
        (
            'name = "b"\ncommand = "x"\n[env]\nARENA_BOT_ADDRESS = "x"',
            "env.ARENA_BOT_ADDRESS",
            4,
            "is reserved",
        ),
        (
            'name = "b"\ncommand = "x"\n[env]\n"A-B" = "x"',
            "env.A-B",
            4,
            "not a valid environment variable name",
        ),
        ('name = "b"\ncomand = "x"\ncommand = "x"', "comand", 2, "is not a manifest field"),
    ],
)
def test_bad_field_names_file_field_and_line(
    tmp_path: Path, text: str, field: str, line: int | None, problem: str
) -> None:
    path = write(tmp_path, text + "\n")
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    message = str(caught.value)
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert message.startswith(where), message
    assert f"'{field}'" in message
    assert problem in message
    assert isinstance(caught.value, ValueError)


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, 'name = "b"\ncommand = "x"\n\n[limits\nmemory_mb = 1\n')
    with pytest.raises(ManifestError, match=rf"^{path}:4: invalid TOML: "):
        load_manifest(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match=r"nope\.toml: cannot read manifest"):
        load_manifest(tmp_path / "nope.toml")


def test_limits_reject_bad_values_directly() -> None:
    with pytest.raises(ValueError, match=r"Limits\.memory_mb must be a positive integer"):
        Limits(memory_mb=0)


def test_sandbox_read_only_paths(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    manifest = tmp_path / "bot.toml"
    manifest.write_text(
        'name = "b"\ncommand = "x"\n[sandbox]\nread_only = ["models", "/usr/share"]\n'
    )
    assert load_manifest(manifest).read_only_paths == (tmp_path / "models", Path("/usr/share"))


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('[sandbox]\nread_only = "models"', "sandbox.read_only"),
        ('[sandbox]\nread_only = ["no-such-folder"]', "sandbox.read_only"),
        ("[sandbox]\nwritable = []", "sandbox.writable"),
    ],
)
def test_bad_sandbox_tables_are_named(tmp_path: Path, text: str, field: str) -> None:
    manifest = tmp_path / "bot.toml"
    manifest.write_text(f'name = "b"\ncommand = "x"\n{text}\n')
    with pytest.raises(ManifestError, match=rf"bot\.toml:\d+: field '{field}'"):
        load_manifest(manifest)


def test_python_placeholder_is_the_bots_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_BOT_PYTHON", "/opt/py/bin/python")
    command = load_manifest(write(tmp_path, 'name = "b"\ncommand = "{python} bot.py"\n'))
    assert command.argv == ("/opt/py/bin/python", "bot.py")
    import arena

    assert Path(arena.__file__).resolve().parent in command.read_only_paths  # its SDK
    monkeypatch.delenv("ARENA_BOT_PYTHON")
    command = load_manifest(write(tmp_path, 'name = "b"\ncommand = ["{python}", "bot.py"]\n'))
    assert command.argv == (sys.executable, "bot.py")


def test_root_folder_is_no_working_directory(tmp_path: Path) -> None:
    manifest = write(tmp_path, 'name = "b"\ncommand = "x"\nworking_directory = "/"\n')
    with pytest.raises(ManifestError, match="must not be the root folder"):
        load_manifest(manifest)
