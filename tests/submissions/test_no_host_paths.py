"""No answer to a submitter names a host path: rejected submissions (a bad manifest, a
failing build that prints where it runs, a bot that fails its check after printing
where it is, one whose program is missing) are sent over HTTP, and their reason and
report (``GET /api/submissions/ID``), their page (``/my/submissions/ID``) and what
``arena submit --wait`` prints hold no absolute path of the host: not the ladder's
folder, its data folder, the staging folder, the arena's install or /tmp. Paths
inside the submission are shown relative to its root."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from tests.journeys.helpers import ARENA, host_paths
from tests.submissions.conftest import Server, add_author, needs_bwrap, serve, tar_gz

pytestmark = pytest.mark.slow  # a server, sandboxed builds and checks

# Each prints the folder it runs in, and the path of its own files, where it can.
REJECTED = {
    "bad-manifest": {"bot.toml": 'name = "bad"\ncommand = 42\n'},
    "read-only-out": {
        "bot.toml": 'name = "ro"\ncommand = ["./bot.sh"]\n[sandbox]\nread_only = ["../../.."]\n',
        "bot.sh": "#!/bin/sh\nexit 1\n",
    },
    "missing-program": {"bot.toml": 'name = "gone"\ncommand = ["./not-there"]\n'},
    "failing-build": {
        "bot.toml": 'name = "nobuild"\ncommand = ["./bot.sh"]\nbuild = "pwd; ls -d \\"$PWD\\"/*; echo $HOME; cat missing.c"\n',
        "bot.sh": "#!/bin/sh\nexit 1\n",
    },
    "failing-check": {
        "bot.toml": 'name = "crashes"\ncommand = ["{python}", "bot.py"]\n',
        "bot.py": (
            "import os, sys\n"
            "print('I am', os.path.abspath(__file__), 'in', os.getcwd(), file=sys.stderr)\n"
            "raise SystemExit(f'cannot start in {os.getcwd()}')\n"
        ),
    },
}


def _page(server: Server, token: str, path: str) -> str:
    """``path`` fetched as the author, signed in through /signin with the token."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{server.url}/signin", timeout=30) as response:
        form = response.read().decode()
    csrf = re.search(r'name="csrf" value="([^"]+)"', form)
    fields = {"token": token, **({"csrf": csrf.group(1)} if csrf else {})}
    data = urllib.parse.urlencode(fields).encode()
    with opener.open(f"{server.url}/signin", data=data, timeout=30) as response:
        response.read()
    with opener.open(f"{server.url}{path}", timeout=30) as response:
        return str(response.read().decode())


def test_rejections_name_no_host_path(
    ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    needs_bwrap()
    token = add_author(ladder, "mallory", capsys)
    seen: dict[str, str] = {}
    with serve(ladder, "--per-hour", "20") as server:
        for label, files in REJECTED.items():
            status, reply = server.upload(token, tar_gz(files))
            assert status == 202, reply
            verdict = server.wait(token, reply["id"])
            assert verdict["status"] == "rejected", (label, verdict)
            seen[f"{label}: API"] = json.dumps(verdict)
            seen[f"{label}: page"] = _page(server, token, f"/my/submissions/{reply['id']}")
        folder = tmp_path / "failing-build"
        folder.mkdir()
        for name, text in REJECTED["failing-build"].items():
            (folder / name).write_text(text)
            (folder / name).chmod(0o755)
        run = subprocess.run(
            [str(ARENA), "submit", server.url, str(folder), "--token", token, "--wait",
             "--poll", "0.5"],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
        )  # fmt: skip
        assert run.returncode == 1, run.stdout + run.stderr
        seen["arena submit --wait"] = (run.stdout + run.stderr).replace(str(folder), "FOLDER")
    # The reasons say what is wrong in the submission's own terms.
    assert "sandbox.read_only" in seen["read-only-out: API"]
    assert "the build exited with status" in seen["failing-build: API"]
    assert "missing.c" in seen["failing-build: API"]
    assert "conformance check failed" in seen["failing-check: API"]
    leaks = {label: host_paths(text) for label, text in seen.items()}
    found = "\n".join(f"{label}: {path}" for label, paths in leaks.items() for path in paths)
    assert not found, found
