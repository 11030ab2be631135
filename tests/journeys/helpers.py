"""A new user's journeys, typed at the installed ``arena`` command in a fresh folder.

Every command runs as a subprocess of ``.venv/bin/arena`` with the journey's folder as
its working directory, as a user would type it after reading the README and docs/.
A command fails the journey when it exits with a status other than the one the docs
give, prints a traceback, or prints an absolute path the user never gave it: the
arena's install, a temporary folder, the host's data folders (only paths inside the
journey's own folder may appear)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.sample_bots import test_cpp_bot, test_go_bot

ROOT = Path(__file__).resolve().parents[2]
ARENA = Path(sys.executable).parent / "arena"
DOCS = ROOT / "docs"
KITS = ROOT / "sample_bots"

# An absolute path: a "/" that starts a word (not a URL's "//" or a path's middle),
# followed by at least two names.
_ABSOLUTE = re.compile(r"(?<![\w.:/~-])/[\w.@+-]+(?:/[\w.@+-]*)+")


def foreign_paths(text: str, home: Path) -> list[str]:
    """The absolute paths in ``text`` that are not inside the user's own folder."""
    own = str(home.resolve())
    return [
        path
        for path in _ABSOLUTE.findall(text)
        if not (path == own or path.startswith(own + "/"))
        and not path.startswith(("/api/", "/static/"))  # a URL's path, shown after its host
    ]


# Where a host path starts: what a web page or an answer to a submitter must never
# show (the arena's install and environment, temporary and data folders, homes).
HOST_PREFIXES = (str(ROOT), sys.prefix, "/tmp/", "/var/", "/home/", "/root/", "/srv/", "/usr/")


def host_paths(text: str) -> list[str]:
    """The host paths in a page or an answer: every occurrence of a host prefix, with
    what follows it up to a quote, a space or a tag."""
    return sorted(
        {
            match.group(0)
            for prefix in HOST_PREFIXES
            for match in re.finditer(re.escape(prefix) + r"[^\s\"'<>]*", text)
        }
    )


def code_block(page: Path, after: str, language: str = "python") -> str:
    """The first ``language`` code block of ``page`` after the text ``after``: the
    example exactly as the page shows it, so that a doc edit that breaks it fails."""
    text = page.read_text()
    start = text.index(after)
    match = re.compile(rf"```{language}\n(.*?)```", re.S).search(text, start)
    assert match is not None, f"no ```{language} block after {after!r} in {page.name}"
    return match.group(1)


@dataclass
class User:
    """A user typing ``arena`` commands in their own folder."""

    home: Path

    def arena(self, *args: str, status: int = 0, timeout: float = 300) -> str:
        """``arena ARGS`` in the user's folder: its output, which must be clean."""
        run = subprocess.run(
            [str(ARENA), *args],
            cwd=self.home,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        shown = f"$ arena {' '.join(args)}\n{run.stdout}{run.stderr}"
        assert run.returncode == status, f"exit status {run.returncode}, not {status}:\n{shown}"
        self.assert_clean(run.stdout + run.stderr, shown)
        return run.stdout + run.stderr

    def assert_page_clean(self, text: str, shown: str) -> None:
        """A page or a JSON answer: no traceback, no host path."""
        assert "Traceback" not in text, shown
        found = host_paths(text)
        assert not found, f"host paths: {found}\n{shown}"

    def assert_clean(self, output: str, shown: str = "") -> None:
        assert "Traceback" not in output, shown or output
        strangers = foreign_paths(output, self.home)
        assert not strangers, f"paths the user never gave: {strangers}\n{shown or output}"


def get(url: str) -> tuple[int, str, str]:
    """GET ``url``: status, content type and body."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return (
                response.status,
                response.headers.get("Content-Type", ""),
                response.read().decode(),
            )
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode()


# --- the bots: the Python SDK example and the starter kits ---------------------------

PYTHON_MANIFEST = 'name = "take-nothing"\ncommand = ["{python}", "bot.py"]\n'


def write_python_bot(folder: Path) -> str:
    """The bot of docs/SDK.md's first example, with the manifest docs/BOTS.md gives a
    Python bot (``command = ["{python}", "bot.py"]``); its name."""
    assert 'command = ["{python}", "bot.py"]' in (DOCS / "BOTS.md").read_text()
    source = code_block(DOCS / "SDK.md", "# The Python SDK")
    assert "serve(" in source and "class " in source
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(PYTHON_MANIFEST)
    name = re.search(r'name = "([^"]+)"', source)
    assert name is not None and name.group(1) == "take-nothing"
    return name.group(1)


# What a copy of a kit leaves out: build caches and intermediate files, which a user
# starting from the kit would not carry along (the built program goes along).
_LEAVE_OUT = shutil.ignore_patterns(".gopath", "gen", "obj", "strategy_test")


def _node_problem() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (Node.js 20)"
    if not (KITS / "js" / "node_modules" / ".package-lock.json").is_file():
        return "the JS kit's packages are not installed (make sample_bots/js/node_modules/.package-lock.json)"
    return None


def copy_kit(kit: str, folder: Path) -> str:
    """The starter kit ``kit`` (js, go, cpp), built where the machine can build it,
    copied to ``folder`` as a user starting from it would; the bot's name. Skips,
    tagged with the kit's toolchain, where it cannot be built here."""
    source = KITS / kit
    if kit == "js":
        problem = _node_problem()
        if problem:
            pytest.skip(f"[node] {problem}")
    elif kit == "go":
        if test_go_bot.MISSING:
            pytest.skip(f"[go] Go bot not buildable: {test_go_bot.MISSING} (make go-bot)")
        test_go_bot.kit.make(source)
    elif kit == "cpp":
        if test_cpp_bot.MISSING:
            pytest.skip(f"[cpp] C++ bot not buildable: {test_cpp_bot.MISSING} (make cpp-bot)")
        test_cpp_bot.kit.make(source, "-j2")
    shutil.copytree(source, folder, symlinks=True, ignore=_LEAVE_OUT)
    name = re.search(r'^name = "([^"]+)"', (folder / "bot.toml").read_text(), re.M)
    assert name is not None
    return name.group(1)


def ladder_config(name: str) -> str:
    """docs/LADDERS.md's example config, made quick as a user trying it would: one
    hand a match, one match at a time, replays beside it."""
    config = code_block(DOCS / "LADDERS.md", "# Ladders", "toml")
    for old, new in (
        ('name = "samples"', f'name = "{name}"'),
        ("games = 3", "games = 1\nhands_only = true"),
        ("concurrency = 0 ", "concurrency = 1 "),
        ('replays = "../runs/samples/replays"', 'replays = "replays"'),
    ):
        assert old in config, f"docs/LADDERS.md's example lost {old!r}"
        config = config.replace(old, new, 1)
    return config
