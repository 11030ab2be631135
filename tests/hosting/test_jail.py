"""The jail strangers' bots get, attacked at each level fit for them (Landlock ``limits``
and ``bwrap``), with real processes and real files, by whoever runs this file: as root,
and (``test_the_jail_holds_for_an_ordinary_user``) again as uid 65534.

What the attacker (bots/hostile.py) is told is the worst case: every path, pid, port
and socket name.  Each attack must be refused, and nothing it aimed at may change.
Escapes (setsid, a double fork) and fork bombs are test_hostile.py's, at every level;
the run as uid 65534 takes that file too.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.hosting import BotCommand, BotProcess, BotStartError, Limits, SandboxLevel
from arena.hosting.host import probe_host
from arena.hosting.process import arena_folder
from arena.hosting.sandbox import _wrapped, bwrap_problem
from arena.hosting.shared_python import unprivileged_python

from .conftest import COLD_BWRAP, bot_command, expect_template, stopped, wait_stdout

pytestmark = pytest.mark.slow  # every test here starts processes or servers

ROOT = os.geteuid() == 0
HOST = probe_host()
BWRAP_PROBLEM = bwrap_problem()
STRANGER_LEVELS = [
    pytest.param(
        SandboxLevel.LIMITS,
        id="limits",
        marks=pytest.mark.skipif(
            HOST.landlock_abi == 0, reason="[landlock] this kernel offers no Landlock"
        ),
    ),
    *(
        pytest.param(
            SandboxLevel.BWRAP,
            id=kind,  # Python bots forked from their template, and started cold
            marks=pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=f"[bwrap] {BWRAP_PROBLEM}"),
        )
        for kind in ("bwrap", COLD_BWRAP)
    ),
]
AS_USER_ENV = "ARENA_TEST_JAIL_AS_USER"  # set in the run as uid 65534, so it does not recurse


def attacker(*attacks: str, limits: Limits | None = None) -> Any:
    return bot_command("hostile.py", *attacks, name="attacker", limits=limits)


def report_of(bot: BotProcess) -> dict[str, Any]:
    expect_template(bot)
    text = wait_stdout(bot, "}")
    result: dict[str, Any] = json.loads(text.strip().splitlines()[-1])
    return result


def refused(outcome: object) -> bool:
    return isinstance(outcome, str) and outcome.startswith(
        (
            "PermissionError",
            "FileNotFoundError",
            "OSError",
            "ProcessLookupError",
            "ConnectionRefused",
        )
    )


@pytest.fixture
def canaries(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """World-readable files planted where a bot has no business, and the owner-only
    files a referee keeps: a ladder's database and a replay being written."""
    token = uuid.uuid4().hex
    ladder = Path(tempfile.mkdtemp(prefix="arena-test-ladder-"))
    ladder.chmod(0o755)
    planted = {
        "tmp": Path("/tmp") / f"arena-canary-{token}",
        "var_tmp": Path("/var/tmp") / f"arena-canary-{token}",
        "ladder": ladder / "ladder.toml",
        "home": Path.home() / f".arena-canary-{token}",
    }
    for path in planted.values():
        path.write_text(f"canary {token}")
        path.chmod(0o644)
    database = ladder / "ladder.sqlite"
    database.write_text(f"database {token}")
    database.chmod(0o600)
    replay = ladder / "replays" / "m1-a1.jsonl"
    replay.parent.mkdir(mode=0o700)
    replay.write_text(f'{{"deal": "{token}"}}\n')
    replay.chmod(0o600)
    yield {**planted, "database": database, "replay": replay, "folder": ladder}
    for path in planted.values():
        path.unlink(missing_ok=True)
    shutil.rmtree(ladder, ignore_errors=True)


@pytest.mark.parametrize("level", STRANGER_LEVELS)
def test_reads_nothing_planted_outside_its_folder(
    level: SandboxLevel, run_dir: Path, canaries: dict[str, Path]
) -> None:
    targets = [path for name, path in canaries.items() if name != "folder"]
    folders = [canaries["folder"], Path("/tmp"), Path("/var/tmp"), Path.home(), run_dir.parent]
    attacks = [f"read={path}" for path in targets] + [f"listdir={path}" for path in folders]
    with BotProcess.start(attacker(*attacks), level, run_dir) as bot:
        report = report_of(bot)
    for attack in attacks:
        outcome = report[attack]
        if attack.startswith("listdir=") and level is SandboxLevel.BWRAP:
            # bwrap's /tmp is private and empty but for the way to the bot's own folder.
            assert refused(outcome) or "arena-canary" not in outcome, (attack, outcome)
            continue
        assert refused(outcome), (attack, outcome)
    secret = canaries["tmp"].read_text().split()[1]
    assert not any(secret in str(outcome) for outcome in report.values())


@pytest.mark.parametrize("level", STRANGER_LEVELS)
def test_writes_nothing_outside_its_own_folders(
    level: SandboxLevel, run_dir: Path, canaries: dict[str, Path]
) -> None:
    targets = [
        canaries["folder"] / "planted",
        canaries["database"],
        canaries["replay"],
        Path("/tmp") / f"arena-planted-{uuid.uuid4().hex}",
        Path("/var/tmp") / f"arena-planted-{uuid.uuid4().hex}",
    ]
    before = {path: path.read_bytes() for path in targets if path.exists()}
    attacks = [f"write={path}" for path in targets]
    with BotProcess.start(attacker(*attacks), level, run_dir) as bot:
        report = report_of(bot)
    for attack, path in zip(attacks, targets, strict=True):
        if level is SandboxLevel.BWRAP and path.parent == Path("/tmp"):
            continue  # bwrap's /tmp is a private tmpfs: written there, gone with the bot
        assert refused(report[attack]), (attack, report[attack])
    for path in targets:
        assert (path.read_bytes() if path.exists() else None) == before.get(path), path


@pytest.mark.parametrize("level", STRANGER_LEVELS)
def test_reaches_no_listener(level: SandboxLevel, run_dir: Path) -> None:
    with (
        socket.create_server(("127.0.0.1", 0)) as tcp,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp,
    ):
        tcp.settimeout(0.3)
        udp.bind(("127.0.0.1", 0))
        udp.settimeout(0.3)
        attacks = [f"tcp={tcp.getsockname()[1]}", f"udp={udp.getsockname()[1]}"]
        with BotProcess.start(attacker(*attacks), level, run_dir) as bot:
            report = report_of(bot)
        assert refused(report[attacks[0]]), report
        # At limits no socket but unix ones; under bwrap a datagram may leave into the
        # sandbox's own empty network, and never arrives.
        assert refused(report[attacks[1]]) or level is SandboxLevel.BWRAP, report
        with pytest.raises(TimeoutError):
            tcp.accept()
        with pytest.raises(TimeoutError):
            udp.recv(16)


@pytest.mark.parametrize("level", STRANGER_LEVELS)
def test_cannot_touch_the_other_seat_or_the_referee(level: SandboxLevel, run_dir: Path) -> None:
    name = f"arena-test-{uuid.uuid4().hex}"
    with BotProcess.start(bot_command("healthy.py", name="victim"), level, run_dir) as victim:
        victim.wait_ready(timeout=10)
        holder = BotProcess.start(
            bot_command("hostile.py", f"hold={name}", name="holder"), level, run_dir
        )
        with holder:
            assert report_of(holder)[f"hold={name}"] == "holding"
            referee = os.getpid()
            attacks = [
                f"abstract={name}",
                f"connect={victim.address.removeprefix('unix:')}",
                f"signal={victim.pid}",
                f"signal={holder.pid}",
                f"signal={referee}",
                f"ptrace={victim.pid}",
                f"ptrace={referee}",
                f"read=/proc/{referee}/environ",
                f"read=/proc/{victim.pid}/environ",
                f"read={victim.stderr_path}",
                f"listdir={victim.workdir}",
            ]
            with BotProcess.start(attacker(*attacks), level, run_dir) as bot:
                report = report_of(bot)
            for attack in attacks:
                assert refused(report[attack]), (attack, report[attack])
            for pid in (victim.pid, holder.pid):
                assert not stopped(pid), f"{pid} was stopped"
            victim.wait_ready(timeout=5)  # still serving
            assert holder.returncode() is None


@pytest.mark.parametrize("level", STRANGER_LEVELS)
def test_a_signal_to_everyone_reaches_no_one_else(level: SandboxLevel, run_dir: Path) -> None:
    """kill(-1): every process the bot may signal.  Not the other seat, not the referee."""
    caught: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda number, frame: caught.append(number))
    try:
        with BotProcess.start(
            bot_command("hostile.py", "trap", name="other"), level, run_dir
        ) as other:
            assert report_of(other)["trap"] == "trapping"
            with BotProcess.start(attacker("killall"), level, run_dir) as bot:
                report_of(bot)
                time.sleep(0.3)  # a signal sent is delivered by now
            assert "trapped" not in other.stdout_path.read_text()
            assert other.returncode() is None
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert caught == []


@pytest.mark.parametrize("level", STRANGER_LEVELS)
def test_calls_no_bot_needs_are_refused(level: SandboxLevel, run_dir: Path) -> None:
    attacks = ["syscall=unshare", "syscall=keyctl", "syscall=bpf", "syscall=mount"]
    with BotProcess.start(attacker(*attacks), level, run_dir) as bot:
        report = report_of(bot)
    for attack in attacks:
        assert report[attack] == "OSError: Operation not permitted", (attack, report[attack])


def test_the_jail_holds_for_an_ordinary_user() -> None:
    """This file, the hostile suite and the templates' again, the referee running as
    uid 65534."""
    if os.environ.get(AS_USER_ENV):
        pytest.skip("this is the run as an ordinary user")
    if not ROOT:
        pytest.skip("the suite already runs as an ordinary user")
    python = unprivileged_python(arena_folder())
    home = Path(tempfile.mkdtemp(prefix="arena-test-home-"))  # pytest's folders are root's
    os.chown(home, 65534, 65534)
    tests = Path(__file__).parent
    try:
        run = _as_nobody(python, home, tests)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    summary = run.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, summary
    assert "[landlock]" not in run.stdout and "[bwrap]" not in run.stdout, run.stdout


def _as_nobody(python: str, home: Path, tests: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
            python, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
            str(tests / "test_jail.py"), str(tests / "test_hostile.py"),
            str(tests / "test_templates.py"),
        ],
        env={
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            AS_USER_ENV: "1",
            "ARENA_REQUIRE_SANDBOX": "landlock,bwrap",
        },
        cwd=tests.parent.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("specs", "reason"),
    [
        (["landlock=7", "ro=/etc/hostname/x"], "landlock: /etc/hostname/x: Not a directory"),
        (["seccomp=00"], "seccomp filter: Invalid argument"),
    ],
    ids=["landlock", "seccomp"],
)
def test_a_jail_that_cannot_be_built_never_runs_the_bot(
    specs: list[str], reason: str, tmp_path: Path
) -> None:
    """The launcher fails closed: a jail it cannot build ends the bot's process before
    its program runs, with the reason on its stderr."""
    if HOST.landlock_abi == 0:
        pytest.skip("[landlock] this kernel offers no Landlock")
    witness = tmp_path / "ran"
    argv = _wrapped(["nnp", *specs], ["/bin/touch", str(witness)])
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stderr) == (126, f"arena: cannot confine the bot: {reason}\n")
    assert not witness.exists()


def test_a_runtime_outside_the_jail_is_a_start_failure_naming_the_path(
    run_dir: Path, open_dir: Path
) -> None:
    """A bot whose program needs a file the jail does not allow fails to start, and the
    failure quotes the denial with the path, never a silent hang."""
    if HOST.landlock_abi == 0:
        pytest.skip("[landlock] this kernel offers no Landlock")
    outside = open_dir / "elsewhere.py"  # readable by anyone, but not in the allow-list
    outside.write_text("print('never')\n")
    outside.chmod(0o644)
    command = bot_command("healthy.py", name="needy")
    command = BotCommand(
        command.name,
        (command.argv[0], "-c", f"exec(open({str(outside)!r}).read())"),
        read_only_paths=command.read_only_paths,
    )
    with (
        BotProcess.start(command, SandboxLevel.LIMITS, run_dir) as bot,
        pytest.raises(BotStartError) as failed,
    ):
        bot.wait_ready(timeout=10)
    message = str(failed.value)
    assert "exited with status 1 before it was ready" in message
    assert f"PermissionError: [Errno 13] Permission denied: '{outside}'" in message
