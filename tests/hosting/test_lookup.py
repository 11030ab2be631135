"""Manifests found by name: the folders looked in, what wins, what is reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.hosting.errors import ManifestError
from arena.hosting.lookup import MANIFESTS_ENV, ManifestCatalog, looks_like_path, manifest_folders

MANIFEST = 'name = "{name}"\ncommand = ["true"]\n'


def manifest(path: Path, name: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MANIFEST.format(name=name))
    return path


def test_the_first_manifest_of_a_name_wins_and_the_rest_are_problems(tmp_path: Path) -> None:
    first = manifest(tmp_path / "a" / "one.toml", "one")
    kit = manifest(tmp_path / "a" / "kit" / "bot.toml", "kit")
    manifest(tmp_path / "a" / "kit" / "other.toml", "ignored")  # only a kit's bot.toml
    again = manifest(tmp_path / "b" / "one-again.toml", "one")
    (tmp_path / "b" / "broken.toml").write_text('name = "broken"\n')
    catalog = ManifestCatalog([tmp_path / "a", tmp_path / "b"])
    assert {name: entry.path for name, entry in catalog.entries.items()} == {
        "one": first,
        "kit": kit,
    }
    assert catalog.path("one") == first and catalog.path("nobody") is None
    assert len(catalog.problems) == 2
    assert f"{again}: bot 'one' is also in {first}, which is used" in catalog.problems
    assert any("broken.toml" in problem and "'command'" in problem for problem in catalog.problems)


def test_folders_come_from_the_options_then_the_environment(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    environ = {MANIFESTS_ENV: f"{tmp_path / 'y'}::"}
    assert manifest_folders([tmp_path / "x"], environ) == [
        (tmp_path / "x", "--manifests"),
        (tmp_path / "y", MANIFESTS_ENV),
    ]
    with pytest.raises(ManifestError, match=f"nowhere \\(from {MANIFESTS_ENV}\\): not a folder"):
        manifest_folders([], {MANIFESTS_ENV: "nowhere"})


def test_what_looks_like_a_path() -> None:
    assert looks_like_path("bots/x") and looks_like_path("x.toml") and looks_like_path("./x")
    assert not looks_like_path("js-starter") and not looks_like_path("greedy.v2")
