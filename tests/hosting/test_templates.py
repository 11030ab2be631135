"""Python bots forked from their template under bwrap (arena.hosting.templates): pristine
every match, isolated like a cold start, gone with the referee, and a cold start
whenever a template fails.  Real processes and sandboxes; the hostile suites
(test_jail.py, test_hostile.py) attack seats from templates too, as root and as
uid 65534."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from arena.hosting import BotCommand, BotProcess, BotStartError, Limits, SandboxLevel, templates
from arena.hosting.sandbox import bwrap_problem
from arena.testing.processes import parent_pid, processes_with_environ
from tests.polling import wait_until

from .conftest import BOT_PYTHON, BOTS, bot_command, wait_stdout

BWRAP_PROBLEM = bwrap_problem()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=f"[bwrap] {BWRAP_PROBLEM}"),
]
BWRAP = SandboxLevel.BWRAP


def _template_pids(token: str) -> list[int]:
    """The template python: its seats' keepers and bots share its command line and
    environment, but their parent is a python too; the template's is bwrap."""
    return [
        pid
        for pid in processes_with_environ(f"ARENA_TEST_TOKEN={token}")
        if "python" in _exe(pid) and _exe(pid, parent=True).endswith("bwrap")
    ]


def _exe(pid: int, *, parent: bool = False) -> str:
    """The program's name of ``pid`` (or of its parent); empty once it has ended."""
    try:
        return os.path.basename(os.readlink(f"/proc/{parent_pid(pid) if parent else pid}/exe"))
    except (OSError, IndexError, ValueError):
        return ""


def test_nothing_of_one_match_reaches_the_next(run_dir: Path) -> None:
    """A bot that marks memory, environment, $HOME and /tmp in one match finds none of
    it in the next, both seats forked from the same template."""
    command = bot_command("marker.py", name="marker")
    reports = []
    for _ in range(2):
        with BotProcess.start(command, BWRAP, run_dir) as bot:
            assert bot.from_template
            reports.append(json.loads(wait_stdout(bot, "}").strip().splitlines()[-1]))
            bot.wait_ready(timeout=10)
    assert reports[0] == {"found": [], "left": ["memory", "environment", "home", "tmp"]}
    assert reports[1]["found"] == []


def test_a_seat_is_the_cold_seat_it_replaces(run_dir: Path) -> None:
    """Same uid, same files and mounts, same environment, its own pid 1, no capability."""
    probe = textwrap.dedent(
        """
        import json, os, sys
        status = dict(line.split(":\\t", 1) for line in open("/proc/self/status"))
        print(json.dumps({
            "uid": os.getuid(), "pid": os.getpid(), "procs": sorted(
                int(p) for p in os.listdir("/proc") if p.isdigit()),
            "tmp": sorted(os.listdir("/tmp")), "env": sorted(os.environ),
            "caps": [status[k].strip() for k in ("CapEff", "CapPrm", "CapInh", "CapAmb")],
            "nnp": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip(),
            "argv": sys.argv, "path0": sys.path[0], "cwd": os.getcwd(),
            "root": sorted(os.listdir("/")),
            "mounts": sorted(  # where, ro or rw; its home's name is its own: shown as HOME
                line.split()[4].replace(os.path.dirname(os.environ["HOME"]), "HOME")
                + " " + line.split()[5].split(",")[0]
                for line in open("/proc/self/mountinfo")),
        }), flush=True)
        import time; time.sleep(60)
        """
    )
    folder = run_dir.parent / "probe"
    folder.mkdir()
    (folder / "probe.py").write_text(probe)
    command = BotCommand(
        "probe", (BOT_PYTHON, "probe.py", "an-arg"), cwd=folder, read_only_paths=(BOTS,)
    )
    seen = {}
    for templated in (True, False):
        os.environ[templates.TEMPLATES_ENV] = "1" if templated else "0"
        try:
            with BotProcess.start(command, BWRAP, run_dir) as bot:
                assert bot.from_template is templated
                seen[templated] = json.loads(wait_stdout(bot, "}").strip().splitlines()[-1])
        finally:
            del os.environ[templates.TEMPLATES_ENV]
    warm, cold = seen[True], seen[False]
    assert warm["caps"] == ["0000000000000000"] * 4
    assert warm["nnp"] == "1" and warm["seccomp"] == "2"
    assert warm["pid"] == 1 and warm["procs"] == [1]
    for key in ("uid", "env", "argv", "path0", "cwd", "nnp", "seccomp", "root", "mounts"):
        assert warm[key] == cold[key], (key, warm[key], cold[key])
    assert warm["tmp"] == cold["tmp"]


def test_templates_die_with_the_referee(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    referee = textwrap.dedent(
        f"""
        import sys, time
        sys.path[:0] = [{str(Path(__file__).parents[2])!r}]
        from pathlib import Path
        from arena.hosting import BotProcess, SandboxLevel
        from tests.hosting.conftest import bot_command
        command = bot_command("healthy.py", env={{"ARENA_TEST_TOKEN": {token!r}}})
        bot = BotProcess.start(command, SandboxLevel.BWRAP, Path({str(tmp_path / "run")!r}))
        bot.wait_ready(timeout=20)
        print("ready", bot.from_template, flush=True)
        time.sleep(120)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", referee], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().split() == ["ready", "True"]
        # The template, the seat's keeper and its bot.
        assert len(processes_with_environ(f"ARENA_TEST_TOKEN={token}")) >= 3
    finally:
        process.kill()
        process.wait()
    wait_until("every process of the template gone", lambda: not processes_with_environ(token), 10)


def test_a_template_that_died_gives_a_cold_start(run_dir: Path) -> None:
    token = uuid.uuid4().hex
    command = bot_command("healthy.py", env={"ARENA_TEST_TOKEN": token})
    with BotProcess.start(command, BWRAP, run_dir) as first:
        first.wait_ready(timeout=10)
        assert first.from_template
    (template,) = _template_pids(token)
    os.kill(template, signal.SIGKILL)
    with BotProcess.start(command, BWRAP, run_dir) as second:
        second.wait_ready(timeout=10)
        assert not second.from_template
    # Not tried again in this process: the next start is cold too.
    with BotProcess.start(command, BWRAP, run_dir) as third:
        third.wait_ready(timeout=10)
        assert not third.from_template


def test_a_template_that_hangs_gives_a_cold_start(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(templates, "_ANNOUNCE_TIMEOUT", 1.0)
    token = uuid.uuid4().hex
    command = bot_command("healthy.py", env={"ARENA_TEST_TOKEN": token})
    with BotProcess.start(command, BWRAP, run_dir) as first:
        first.wait_ready(timeout=10)
    (template,) = _template_pids(token)
    os.kill(template, signal.SIGSTOP)
    try:
        with BotProcess.start(command, BWRAP, run_dir) as second:
            second.wait_ready(timeout=10)
            assert not second.from_template
        # The hung template was killed, not left behind.
        wait_until("the hung template gone", lambda: not _template_pids(token), 10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(template, signal.SIGCONT)


def test_a_bot_that_fails_in_its_seat_is_a_start_failure_with_its_stderr(
    tmp_path: Path, run_dir: Path
) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "bot.py").write_text("raise RuntimeError('no cards today')\n")
    command = BotCommand("broken", (BOT_PYTHON, "bot.py"), cwd=folder, limits=Limits())
    with BotProcess.start(command, BWRAP, run_dir) as bot:
        assert bot.from_template
        with pytest.raises(BotStartError, match="exited with status 1") as failure:
            bot.wait_ready(timeout=10)
    assert "RuntimeError: no cards today" in str(failure.value)


def test_a_folder_that_shadows_a_preloaded_module_starts_cold(
    tmp_path: Path, run_dir: Path
) -> None:
    """A bot whose folder holds runpy.py would import its own runpy when started cold;
    from a template it would get the template's: it starts cold."""
    folder = tmp_path / "shadow"
    folder.mkdir()
    (folder / "bot.py").write_text((BOTS / "healthy.py").read_text())
    (folder / "runpy.py").write_text("# the bot's own module\n")
    command = BotCommand("shadow", (BOT_PYTHON, "bot.py"), cwd=folder)
    with BotProcess.start(command, BWRAP, run_dir) as bot:
        bot.wait_ready(timeout=10)
        assert not bot.from_template


def test_templates_can_be_turned_off(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(templates.TEMPLATES_ENV, "0")
    with BotProcess.start(bot_command("healthy.py"), BWRAP, run_dir) as bot:
        bot.wait_ready(timeout=10)
        assert not bot.from_template
