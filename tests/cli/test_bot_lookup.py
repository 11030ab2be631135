"""Bots named by the user: found by name in manifest folders, refused before the first
deal when they cannot take the seat (a game they do not play, a manifest whose name is
not the one the bot gives), and unknown names answered with the closest known ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.testing.broken_bots import NAME_VARIABLE, write_manifest


def arena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main([*args, "--no-plugin-autoload"])
    out, err = capsys.readouterr()
    return status, out, err


def legal_bot(folder: Path, name: str) -> Path:
    """A manifest bot that plays Gin Rummy legally, at once, named ``name`` throughout."""
    folder.mkdir(parents=True, exist_ok=True)
    return write_manifest(folder, "slow", "--delay-ms", "0", name=name)


def one_line_error(status: int, out: str, err: str) -> str:
    assert status == 2
    assert "Finished game" not in out and "Playing" not in out  # nothing was dealt
    assert err.startswith("arena: error: ") and err.count("\n") == 1
    return err


def test_a_registered_bot_of_another_game_is_refused_before_anything_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = one_line_error(*arena(capsys, "match", "greedy-rummy", "random"))
    assert "'greedy-rummy' does not play gin-rummy/standard" in err
    assert "it plays rummy/deuces, rummy/jokers, rummy/standard, rummy/winner-takes-all" in err
    err = one_line_error(*arena(capsys, "match", "random", "greedy", "random", "--game", "rummy"))
    assert (
        "'greedy' does not play rummy/standard; it plays gin-rummy/classic, gin-rummy/oklahoma, gin-rummy/standard"
        in err
    )


@pytest.mark.slow
def test_a_manifest_bot_of_another_game_is_refused_at_its_handshake(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    manifest = legal_bot(tmp_path, "gin-only")
    err = one_line_error(
        *arena(capsys, "match", str(manifest), "random", "--game", "rummy", "--games", "1")
    )
    assert "'gin-only'" in err and "does not play rummy/standard" in err
    assert "its handshake lists gin-rummy/classic, gin-rummy/oklahoma, gin-rummy/standard" in err


@pytest.mark.slow
def test_a_manifest_naming_another_bot_than_its_handshake_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    manifest = legal_bot(tmp_path, "honest")
    manifest.write_text(
        manifest.read_text().replace(f'{NAME_VARIABLE} = "honest"', f'{NAME_VARIABLE} = "impostor"')
    )
    err = one_line_error(*arena(capsys, "match", str(manifest), "random", "--games", "1"))
    assert (
        "the manifest's name 'honest' differs from the name the bot gives in its handshake, 'impostor'"
        in err
    )
    status, out, _ = arena(
        capsys, "check", str(manifest), "--games", "0", "--game", "gin-rummy/standard"
    )
    assert status == 1
    line = next(line for line in out.splitlines() if "manifest-name" in line)
    assert "FAIL" in line and "'honest'" in line and "'impostor'" in line


@pytest.mark.slow
def test_manifests_are_found_by_name_in_the_folders_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "bots"
    legal_bot(folder, "sloth")
    legal_bot(folder / "kit", "kit-bot").rename(folder / "kit" / "bot.toml")  # a kit's layout
    status, out, _ = arena(capsys, "bots", "--manifests", str(folder), "--json")
    assert status == 0
    found = {row["name"]: row["source"] for row in json.loads(out)["bots"]}
    assert found["sloth"] == f"manifest {folder / 'sloth.toml'}"
    assert found["kit-bot"] == f"manifest {folder / 'kit' / 'bot.toml'}"
    assert found["greedy"] == "builtin"
    args = ["--games", "1", "--hands", "--seed", "1", "--json", "--startup-ms", "60000"]
    status, out, _ = arena(capsys, "match", "sloth", "random", "--manifests", str(folder), *args)
    assert status == 0
    assert [bot["name"] for bot in json.loads(out)["bots"]] == ["sloth", "random"]
    monkeypatch.setenv("ARENA_MANIFESTS", str(folder))
    status, out, _ = arena(capsys, "match", "kit-bot", "random", *args)
    assert status == 0
    assert json.loads(out)["bots"][0]["name"] == "kit-bot"
    status, out, _ = arena(capsys, "match", str(folder / "kit"), "random", *args)  # its folder
    assert status == 0


def test_unknown_names_and_missing_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    legal_bot(tmp_path, "sloth")
    err = one_line_error(*arena(capsys, "match", "gredy", "random"))
    assert "unknown bot 'gredy' (did you mean 'greedy'?)" in err
    err = one_line_error(*arena(capsys, "match", "slot", "random", "--manifests", str(tmp_path)))
    assert "(did you mean 'sloth'?)" in err
    err = one_line_error(*arena(capsys, "match", "bots/nobody.toml", "random"))
    assert err == "arena: error: no such file: bots/nobody.toml\n"
    err = one_line_error(*arena(capsys, "match", "nobody.toml", "random"))
    assert err == "arena: error: no such file: nobody.toml\n"
    err = one_line_error(*arena(capsys, "match", str(tmp_path), "random"))
    assert "a folder without a bot.toml" in err
    err = one_line_error(*arena(capsys, "match", "greedy", "random", "--manifests", "nowhere"))
    assert "nowhere (from --manifests): not a folder of manifests" in err
