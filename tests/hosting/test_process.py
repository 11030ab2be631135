"""Starting bots at the none and limits levels: environment, cwd, rlimits, readiness."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from arena.hosting import (
    BotCommand,
    BotProcess,
    BotStartError,
    HostingError,
    Limits,
    SandboxLevel,
    resolve_level,
)
from arena.hosting import identity as identity_module
from arena.hosting import sandbox as sandbox_module
from arena.hosting.identity import DEFAULT_SEAT_UIDS, SeatIdentity, kill_uid
from arena.hosting.process import arena_folder, reachable_copy

from .conftest import BOTS, bot_command, python_command, wait_for

LEVELS = [SandboxLevel.NONE, SandboxLevel.LIMITS]


def run_report(command: BotCommand, level: SandboxLevel, run_dir: Path) -> dict[str, Any]:
    with BotProcess.start(command, level, run_dir) as bot:
        wait_for(lambda: bot.returncode() is not None, what="the report bot to exit")
        assert bot.returncode() == 0, bot.stderr_tail()
        assert bot.wait_output(5), "the bot's output pipes stayed open after it exited"
        report: dict[str, Any] = json.loads(bot.stdout_path.read_text())
        report["workdir"] = str(bot.workdir)
        report["address"] = bot.address
    return report


def parse_limits(text: str) -> dict[str, tuple[str, str]]:
    """/proc/<pid>/limits as {name: (soft, hard)}."""
    limits = {}
    for line in text.splitlines()[1:]:
        name, soft, hard = line[:26].strip(), *line[26:].split()[:2]
        limits[name] = (soft, hard)
    return limits


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_environment_is_scrubbed(
    level: SandboxLevel, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "hunter2")
    monkeypatch.setenv("PYTHONPATH", "/nowhere")
    monkeypatch.setenv("VIRTUAL_ENV", "/nowhere")
    report = run_report(bot_command("report.py", env={"BOT_DEPTH": "3"}), level, run_dir)
    env = report["env"]
    assert env["ARENA_BOT_ADDRESS"] == report["address"]
    assert report["address"].startswith("unix:/") and report["address"].endswith("/sock/bot.sock")
    assert env["HOME"] == report["workdir"]
    assert env["LANG"] == "C.UTF-8"
    assert env["PYTHONUNBUFFERED"] == "1"
    assert env["BOT_DEPTH"] == "3"
    assert env["PATH"] == os.environ["PATH"]
    for name in ("ARENA_TEST_SECRET", "PYTHONPATH", "VIRTUAL_ENV"):
        assert name not in env


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_cwd_is_a_fresh_work_dir(level: SandboxLevel, run_dir: Path) -> None:
    report = run_report(bot_command("report.py"), level, run_dir)
    workdir = Path(report["workdir"])
    assert report["cwd"] == str(workdir)
    assert not workdir.is_relative_to(run_dir.resolve()), "homes live apart from the logs"
    assert workdir.name == "work"
    if os.geteuid() == 0:  # a home per leased uid
        assert workdir.parent.name == f"seat-{report['uid']}"
        assert report["uid"] != 0
        assert report["gid"] == report["uid"] and report["groups"] == []
    else:
        assert workdir.parent.name.startswith("testbot-")
    assert not workdir.exists(), "the per-bot directory is removed by kill()"


@pytest.mark.slow
def test_cwd_from_command(open_dir: Path, run_dir: Path) -> None:
    report = run_report(bot_command("report.py", cwd=open_dir), SandboxLevel.NONE, run_dir)
    assert report["cwd"] == str(open_dir.resolve())
    assert report["env"]["HOME"] == report["workdir"]


@pytest.mark.slow
def test_rlimits_applied(run_dir: Path) -> None:
    limits = Limits(cpu_seconds=30, memory_mb=1024, file_size_mb=8, open_files=100, processes=50)
    report = run_report(bot_command("report.py", limits=limits), SandboxLevel.LIMITS, run_dir)
    seen = parse_limits(report["limits"])
    assert seen["Max cpu time"] == ("30", "31")
    assert seen["Max address space"] == (str(1024 * 2**20),) * 2
    assert seen["Max file size"] == (str(8 * 2**20),) * 2
    assert seen["Max open files"] == ("100", "100")
    assert seen["Max core file size"] == ("0", "0")
    # RLIMIT_NPROC counts every task of the uid, so the bot gets 50 more than run now.
    assert int(seen["Max processes"][0]) >= 50
    assert report["no_new_privs"] == "1"
    assert report["seccomp"] == "2"  # a filter installed


@pytest.mark.slow
def test_no_limits_at_level_none(run_dir: Path) -> None:
    limits = Limits(cpu_seconds=30)
    report = run_report(bot_command("report.py", limits=limits), SandboxLevel.NONE, run_dir)
    assert parse_limits(report["limits"])["Max cpu time"] != ("30", "31")


@pytest.mark.slow
def test_file_size_limit_is_enforced(run_dir: Path) -> None:
    code = "open('big', 'wb').write(b'x' * 3 * 2**20)"
    command = python_command(code, limits=Limits(file_size_mb=1))
    with BotProcess.start(command, SandboxLevel.LIMITS, run_dir) as bot:
        wait_for(lambda: bot.returncode() is not None)
        assert bot.returncode() != 0


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_wait_ready_healthy_bot(level: SandboxLevel, run_dir: Path) -> None:
    with BotProcess.start(bot_command("healthy.py"), level, run_dir) as bot:
        bot.wait_ready(timeout=10)
        assert bot.level is level
        assert bot.returncode() is None
        assert bot.pid > 0
    assert bot.returncode() is not None


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_wait_ready_reports_crash_with_stderr(level: SandboxLevel, run_dir: Path) -> None:
    code = "import sys; print('starting', file=sys.stderr); print('boom', file=sys.stderr); sys.exit(3)"
    with (
        BotProcess.start(python_command(code, name="crasher"), level, run_dir) as bot,
        pytest.raises(BotStartError) as caught,
    ):
        bot.wait_ready(timeout=10)
    message = str(caught.value)
    assert "'crasher'" in message
    assert "exited with status 3" in message
    assert "boom" in message and "starting" in message
    assert str(bot.stderr_path) in message
    assert bot.stderr_path == run_dir.resolve() / "crasher.stderr.log"
    assert bot.stderr_path.exists(), "the stderr log is kept after kill()"
    assert bot.stderr_tail(1) == "boom"


@pytest.mark.slow
def test_wait_ready_times_out_on_hang(run_dir: Path) -> None:
    code = "import sys, time; print('thinking', file=sys.stderr); time.sleep(60)"
    with BotProcess.start(python_command(code), SandboxLevel.LIMITS, run_dir) as bot:
        with pytest.raises(BotStartError, match=r"not ready after 0.5 s(.|\n)*thinking"):
            bot.wait_ready(timeout=0.5)
        assert bot.returncode() is None, "wait_ready does not kill"


@pytest.mark.slow
def test_wait_ready_without_health_service(run_dir: Path) -> None:
    command = bot_command("healthy.py", "--no-health")
    with (
        BotProcess.start(command, SandboxLevel.NONE, run_dir) as bot,
        pytest.raises(BotStartError, match=r"does not serve the grpc\.health\.v1\.Health service"),
    ):
        bot.wait_ready(timeout=10)


def test_missing_program(run_dir: Path) -> None:
    command = BotCommand("ghost", ("no-such-program-anywhere",))
    with pytest.raises(BotStartError, match="'no-such-program-anywhere' not found"):
        BotProcess.start(command, SandboxLevel.LIMITS, run_dir)
    assert list(run_dir.iterdir()) == []


@pytest.mark.slow
def test_two_copies_get_separate_logs(run_dir: Path) -> None:
    command = python_command("print('hi')", name="twin")
    with (
        BotProcess.start(command, SandboxLevel.NONE, run_dir) as one,
        BotProcess.start(command, SandboxLevel.NONE, run_dir) as two,
    ):
        assert one.stderr_path != two.stderr_path
        assert one.address != two.address


@pytest.mark.slow
def test_long_run_dir_still_gets_a_usable_socket(tmp_path: Path) -> None:
    run_dir = tmp_path / ("d" * 60) / ("e" * 60)
    with BotProcess.start(bot_command("healthy.py"), SandboxLevel.NONE, run_dir) as bot:
        assert len(bot.address) <= 5 + 107
        bot.wait_ready(timeout=10)


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_deep_tmpdir_and_long_name_still_get_a_usable_socket(
    level: SandboxLevel, tmp_path: Path, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ("t" * 60) / ("u" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    command = bot_command("healthy.py", name="a-bot-with-a-name-" + "x" * 80)
    with BotProcess.start(command, level, run_dir) as bot:
        assert len(bot.address.removeprefix("unix:")) <= 107
        bot.wait_ready(timeout=10)


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="seat uids are leased by a root referee only")
def test_a_bots_home_is_gone_before_its_uid_is_free(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The moment a seat uid's lease ends, another referee may take it and make its bot's
    home at the same path (seat-UID): deleting the old home after that would delete the
    new bot's socket from under it.  (Seen under load: bots "not ready after 10 s (its
    socket was never created)" while their logs said they were listening.)"""
    home: list[Path] = []  # the bot's home, once known
    home_at_release: list[bool] = []
    release = SeatIdentity.release

    def watched(identity: SeatIdentity) -> None:
        if identity._lock is not None:  # the lease ends now
            home_at_release.append(home[0].exists())
        release(identity)

    monkeypatch.setattr(SeatIdentity, "release", watched)
    with BotProcess.start(bot_command("healthy.py"), SandboxLevel.LIMITS, run_dir) as bot:
        bot.wait_ready(timeout=10)
        home.append(Path(bot.address.removeprefix("unix:")).parents[1])  # .../seat-UID
        assert home[0].name.startswith("seat-") and home[0].exists()
    assert home_at_release == [False]


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="seat uids are leased by a root referee only")
def test_a_teardown_scans_for_the_uids_processes_once(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each kill reads all of /proc: once when the lease starts (a dead referee's
    leftovers), once at teardown -- not again when the lease ends, since only the
    leaseholder starts processes as its uid."""
    scans: list[int] = []
    real_kill_uid = identity_module.kill_uid

    def counted(uid: int, timeout: float = 5.0) -> list[int]:
        scans.append(uid)
        return real_kill_uid(uid, timeout)

    monkeypatch.setattr(identity_module, "kill_uid", counted)
    with BotProcess.start(bot_command("healthy.py"), SandboxLevel.LIMITS, run_dir) as bot:
        bot.wait_ready(timeout=10)
    assert len(scans) == 2 and scans[0] == scans[1]


def test_a_lease_whose_kill_left_survivors_looks_again_when_it_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    left: list[list[int]] = [[4242], []]  # the first kill times out with a survivor
    monkeypatch.setattr(identity_module, "kill_uid", lambda uid, timeout=5.0: left.pop(0))
    identity = SeatIdentity(DEFAULT_SEAT_UIDS[1], os.open(os.devnull, os.O_RDONLY))
    identity.kill_processes()
    identity.release()
    assert left == []  # release killed again
    identity.release()  # idempotent: no third kill (pop would fail)


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="seat uids are leased by a root referee only")
def test_a_zombie_of_a_seat_uid_does_not_stall_its_next_lease() -> None:
    """A bot orphaned to a subreaper that never reaps it stays a zombie of its uid: no
    signal removes it, so waiting for it made every later lease of the uid take the
    whole kill timeout (seats then missed the start-up limit, "socket never created")."""
    uid = DEFAULT_SEAT_UIDS[1]  # the range's last: the one least likely in use
    child = os.fork()
    if child == 0:  # becomes the zombie: the seat's uid, then exits unreaped
        try:
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        finally:
            os._exit(0)
    try:
        wait_for(lambda: Path(f"/proc/{child}/stat").read_text().split(")")[1].split()[0] == "Z")
        assert kill_uid(uid, timeout=0.5) == []  # the old wait returned [child] after 0.5 s
    finally:
        os.waitpid(child, 0)


def test_resolve_level(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_level("none") is SandboxLevel.NONE
    assert resolve_level("limits") is SandboxLevel.LIMITS
    assert resolve_level(SandboxLevel.NONE) is SandboxLevel.NONE
    with pytest.raises(HostingError, match="unknown sandbox level 'jail'"):
        resolve_level("jail")
    monkeypatch.setattr(sandbox_module, "bwrap_problem", lambda: "no user namespaces")
    assert resolve_level("auto") is SandboxLevel.LIMITS
    with pytest.raises(HostingError, match="'bwrap' is not usable here: no user namespaces"):
        resolve_level("bwrap")
    monkeypatch.setattr(sandbox_module, "bwrap_problem", lambda: None)
    assert resolve_level("auto") is SandboxLevel.BWRAP


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="seat uids are leased by a root referee only")
def test_a_folder_closed_to_the_seats_runs_from_a_reachable_copy(
    tmp_path: Path, open_dir: Path, run_dir: Path
) -> None:
    closed = tmp_path / "closed" / "bot"  # pytest's folders are root's, mode 700
    closed.mkdir(parents=True)
    (closed / "hostile.py").write_text((BOTS / "hostile.py").read_text())
    (closed / "data").mkdir()
    command = BotCommand(
        "closed",
        (sys.executable, str(closed / "hostile.py"), "read=data/x"),
        cwd=closed,
        read_only_paths=(closed / "data", Path(sys.prefix)),
    )
    moved, copy = reachable_copy(command, SandboxLevel.LIMITS)
    assert copy is not None and copy.parent == arena_folder()
    try:
        target = copy / "bot"
        assert moved.cwd == target
        assert moved.argv == (sys.executable, str(target / "hostile.py"), "read=data/x")
        assert moved.read_only_paths == (target / "data", Path(sys.prefix))
        assert (target / "hostile.py").read_text() == (closed / "hostile.py").read_text()
        assert identity_module.path_problem(target / "hostile.py", 60000, 60000) is None
        with BotProcess.start(moved, SandboxLevel.LIMITS, run_dir) as bot:
            wait_for(lambda: "}" in bot.stdout_path.read_text(), what="its report")
    finally:
        shutil.rmtree(copy)
    for level in (SandboxLevel.NONE, SandboxLevel.BWRAP):  # bwrap binds it as root
        assert reachable_copy(command, level) == (command, None)
    reachable = BotCommand("open", (sys.executable, "x.py"), cwd=open_dir)
    assert reachable_copy(reachable, SandboxLevel.LIMITS) == (reachable, None)
