"""kill() leaves nothing behind, however the bot arranges its processes."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.hosting import BotProcess, SandboxLevel
from arena.hosting._proctree import ProcessTree
from arena.hosting.sandbox import bwrap_problem, parent_bound_command
from arena.testing.processes import parent_pid, zombie_children

from .conftest import (
    BOT_PYTHON,
    BOTS,
    bot_command,
    marker_pids,
    python_command,
    wait_for,
    wait_stdout,
)

pytestmark = pytest.mark.slow  # every test here starts processes or servers

LEVELS = [SandboxLevel.NONE, SandboxLevel.LIMITS]
BWRAP_PROBLEM = bwrap_problem()
# Outside the default seat range (arena.hosting.identity), a few for each level (for
# runs at once: the mutation tool's jobs).
ORPHAN_UIDS = {SandboxLevel.NONE: (64100, 64103), SandboxLevel.LIMITS: (64104, 64107)}
ORPHAN_UIDS[SandboxLevel.BWRAP] = (64108, 64111)

# mode -> processes carrying the marker once the bot says "ready"
TREES = {"ignore-term": 1, "fork3": 4, "setsid-child": 2, "daemon": 2}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("mode", TREES)
def test_kill_leaves_nothing(level: SandboxLevel, mode: str, marker: str, run_dir: Path) -> None:
    zombies_before = set(zombie_children())  # other tests' leftovers are not ours
    bot = BotProcess.start(bot_command("tree.py", mode, marker), level, run_dir)
    try:
        wait_stdout(bot, "ready")
        pids = marker_pids(marker)
        assert len(pids) == TREES[mode]
        if mode == "daemon":
            # The orphaned grandchild was re-parented to us, the subreaper.
            assert any(parent_pid(pid) == os.getpid() for pid in pids)
    finally:
        bot.kill(grace=0.2)
    assert marker_pids(marker) == []
    assert set(zombie_children()) <= zombies_before
    assert bot.returncode() is not None


def test_kill_is_idempotent_and_a_polite_bot_gets_sigterm(marker: str, run_dir: Path) -> None:
    code = "import time; print('ready', flush=True); time.sleep(60)"
    polite = BotProcess.start(python_command(code, marker), SandboxLevel.LIMITS, run_dir)
    wait_stdout(polite, "ready")
    polite.kill(grace=5)
    assert polite.returncode() == -signal.SIGTERM
    polite.kill()
    assert polite.returncode() == -signal.SIGTERM
    assert marker_pids(marker) == []


@pytest.mark.parametrize("same_tick", [False, True], ids=["apart", "same-tick"])
def test_kill_spares_other_bots(marker: str, run_dir: Path, same_tick: bool) -> None:
    """Another bot's double-forked daemon survives.  Start times count clock ticks of
    10 ms, so another bot's orphan can look as young as this bot (``same_tick`` makes
    every orphan look so): its address in its environment still says whose it is."""
    other_marker = marker.replace("arena-test-", "arena-other-")
    with BotProcess.start(
        bot_command("tree.py", "daemon", other_marker), SandboxLevel.NONE, run_dir
    ) as other:
        wait_stdout(other, "ready")
        with BotProcess.start(
            bot_command("tree.py", "daemon", marker), SandboxLevel.NONE, run_dir
        ) as bot:
            wait_stdout(bot, "ready")
            if same_tick:
                tree = bot._cleanup._tree
                assert isinstance(tree, ProcessTree)  # a cold start (level none)
                tree.started = 0
            bot.kill(grace=0.1)
        assert marker_pids(marker) == []
        assert len(marker_pids(other_marker)) == 2
        assert other.returncode() is None
        other.kill(grace=0.1)
    assert marker_pids(other_marker) == []


def test_context_manager_kills_on_exception(marker: str, run_dir: Path) -> None:
    with (
        pytest.raises(RuntimeError),
        BotProcess.start(
            bot_command("tree.py", "fork3", marker), SandboxLevel.LIMITS, run_dir
        ) as bot,
    ):
        wait_stdout(bot, "ready")
        raise RuntimeError("referee bug")
    assert marker_pids(marker) == []


def test_garbage_collected_bot_is_killed(marker: str, run_dir: Path) -> None:
    bot = BotProcess.start(
        bot_command("tree.py", "setsid-child", marker), SandboxLevel.NONE, run_dir
    )
    wait_stdout(bot, "ready")
    del bot
    gc.collect()
    assert marker_pids(marker) == []


def test_bots_are_killed_when_the_referee_dies_of_an_exception(marker: str, tmp_path: Path) -> None:
    referee = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from arena.hosting import BotCommand, BotProcess, SandboxLevel
        bots = [
            BotProcess.start(
                BotCommand("b", ({BOT_PYTHON!r}, {str(BOTS / "tree.py")!r}, mode, {marker!r}), read_only_paths=(Path({str(BOTS)!r}),)),
                SandboxLevel.LIMITS,
                Path({str(tmp_path)!r}),
            )
            for mode in ("fork3", "daemon")
        ]
        while not all("ready" in Path(bot.stdout_path).read_text() for bot in bots):
            time.sleep(0.01)
        print("started", flush=True)
        raise SystemExit("referee crashed")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", referee], capture_output=True, text=True, timeout=30, check=False
    )
    assert "started" in result.stdout, result.stderr
    assert "referee crashed" in result.stderr
    wait_for(lambda: marker_pids(marker) == [], timeout=2, what="the bots to be gone")


@pytest.mark.parametrize(
    "level",
    [
        *LEVELS,
        pytest.param(
            SandboxLevel.BWRAP,
            marks=pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=f"[bwrap] {BWRAP_PROBLEM}"),
        ),
    ],
)
def test_bot_dies_when_the_referee_is_sigkilled(
    level: SandboxLevel, marker: str, tmp_path: Path
) -> None:
    # No cleanup can run; the parent-death signal still takes the bot down.  Killed
    # once the bot itself runs: a root referee's bot changed its uid by then, which
    # clears a parent-death signal set before it.  Its uid is one no other test leases
    # (leasing a uid kills what still runs as it, which would hide an orphan).
    bot_code = "import time; print('ready', flush=True); time.sleep(60)"
    referee = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from arena.hosting import BotCommand, BotProcess, SandboxLevel
        command = BotCommand("b", ({BOT_PYTHON!r}, "-c", {bot_code!r}, {marker!r}))
        level, run = SandboxLevel.{level.name}, Path({str(tmp_path)!r})
        bot = BotProcess.start(command, level, run, seat_uids={ORPHAN_UIDS[level]!r})
        while "ready" not in bot.stdout_path.read_text():
            if bot.returncode() is not None:
                sys.exit("the bot ended: " + bot.stderr_tail())
            time.sleep(0.01)
        print(bot.uid, flush=True)
        time.sleep(60)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", referee], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        uid = process.stdout.readline()
        assert uid, f"the referee ended: {process.wait()}"
        assert marker_pids(marker) != []
        if os.geteuid() == 0 and level is not SandboxLevel.BWRAP:
            assert int(uid) != 0  # the case that cleared the signal: a uid of its own
    finally:
        process.kill()
        process.wait()
    # Under a loaded CI machine the kill and the reaping can take seconds.
    wait_for(lambda: marker_pids(marker) == [], timeout=20, what="the bot to die with its parent")


@pytest.mark.parametrize("level", LEVELS)
def test_children_of_a_bot_that_already_exited_are_killed(
    level: SandboxLevel, marker: str, run_dir: Path
) -> None:
    code = "import os, time\nif os.fork() == 0:\n    time.sleep(60)\nprint('ready', flush=True)"
    with BotProcess.start(python_command(code, marker), level, run_dir) as bot:
        wait_for(lambda: bot.returncode() == 0, what="the bot's main process to exit")
        assert len(marker_pids(marker)) == 1
    assert marker_pids(marker) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG")
def test_a_parent_bound_command_never_outlives_a_parent_already_gone(tmp_path: Path) -> None:
    """bwrap's own --die-with-parent asks for the signal only once bwrap runs; a
    referee killed before then would leave it behind.  The wrapper asks first, then
    checks that the referee it was made for is still its parent."""
    made = tmp_path / "ran"
    command = parent_bound_command(["touch", str(made)])
    assert subprocess.run(command, check=False).returncode == 0  # our child: it runs
    assert made.exists()
    made.unlink()
    # Started by another process, as if the referee had died and left it to a
    # stranger: it stops before the program runs.
    stranger = subprocess.run(["sh", "-c", '"$@"; exit $?', "sh", *command], check=False)
    assert stranger.returncode == 137
    assert not made.exists()
