"""The cost of a match between strangers' bots, each started for its match (issue 30).

    python benchmarks/bench_cold_ladder.py [--rounds N] [--matches N] [--bots N]
                                           [--base-commit REV] [--quick]

Two tables.

**A ladder of different submitted-style bots**: ``--bots`` (16) small Python SDK bots,
each in its own folder with its own ``bot.toml`` (``command = ["{python}", "bot.py"]``)
and its own code (a name, a salt and a choice rule of its own, so nothing can be
shared between them), round-robin, one-hand matches (``games = 1``, ``hands_only``),
``[run] untrusted = true`` (the level fit for strangers: ``sandbox = "auto"`` picks
bwrap where it runs), ``concurrency = 2``, bots started fresh for every match.  Each
round runs ``arena ladder run DB --matches N`` once with this checkout and once with
the earlier commit's ``arena/`` (taken out with ``git archive``; the order flips every
round).  Shown per round: matches per minute (wall time of the command) and CPU per
match (user + system of the runner and every process under it: the command runs
under a child subreaper that reaps them all, sandboxed bots' orphans included, and
reads ``getrusage(RUSAGE_CHILDREN)``), and the median of the per-round
ratios.  Targets: at least 1.8x the matches per minute, at most 0.5x the CPU a match.

**Start to ready**: one bot process started directly (no sandbox, no launcher) with
``ARENA_BOT_ADDRESS`` on a Unix socket, until its health service says SERVING and it
has answered the protocol's handshake; then SIGKILL and ``wait4``: its CPU (user +
system, all threads) and the wall time.  Each kit beside a bare gRPC server in the
same language that answers the same two calls (``bare_bot.py``, ``bare_server.js``,
``bare_server.go``): a Python SDK bot (``trivial_bot.py``), the Node.js kit
(``sample_bots/js``, where node and its packages are installed) and the Go kit
(``sample_bots/go/bot``, ``make go-bot``; the bare Go server is built into a
temporary folder with the kit's generated code, where Go is installed).  Kinds take
turns within a round, in a shuffled order; medians and every round's kit / bare.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkouts import checkout, compiled, run_ladder
from tables import print_table

HERE = Path(__file__).resolve().parent
TOP = HERE.parent
DEFAULT_BASE = "745738a"  # main before issue 30's lazy imports (65b6a61's parent)

# ---------------------------------------------------------------- the ladder --

_BOT = '''"""Submitted-style bench bot {index}: its own name, salt and choice rule."""

from arena.sdk import Bot, Decision, serve

SALT = "{salt}"


class Bench{index:02d}(Bot):
    name = "cold-{index:02d}"
    games = ("gin-rummy/standard",)

    def decide(self, decision: Decision) -> int:
        count = len(decision.message.legal_actions)
        return ({index} * decision.message.request_id + len(SALT)) % count


if __name__ == "__main__":
    serve(Bench{index:02d}())
'''


def make_bots(folder: Path, count: int) -> list[Path]:
    """``count`` bot folders, each with a ``bot.toml`` and a ``bot.py`` of its own."""
    manifests = []
    for index in range(count):
        bot = folder / f"cold-{index + 1:02d}"
        bot.mkdir(parents=True)
        salt = os.urandom(8).hex()
        (bot / "bot.py").write_text(_BOT.format(index=index + 1, salt=salt))
        (bot / "bot.toml").write_text(
            f'name = "cold-{index + 1:02d}"\ncommand = ["{{python}}", "bot.py"]\n'
        )
        manifests.append(bot / "bot.toml")
    return manifests


def ladder_text(manifests: list[Path], replays: Path, run: str = "") -> str:
    text = (
        'name = "cold"\ngame = "gin-rummy/standard"\n'
        '[schedule]\nkind = "round-robin"\nrepeat = 1\nduplicate = false\n'
        "[match]\ngames = 1\nhands_only = true\n"
        "[time_control]\nstartup_ms = 30000\ndecision_ms = 1000\nbank_ms = 10000\n"
        f'[run]\nsandbox = "auto"\nuntrusted = true\nconcurrency = 2\nreplays = "{replays}"\n{run}'
    )
    for manifest in manifests:
        text += f'[[bots]]\nname = "{manifest.parent.name}"\nmanifest = "{manifest}"\n'
    return text


# Runs the command and prints the CPU seconds of everything under it as its last line:
# from a cgroup of its own where cgroup v1's cpuacct lets root make one (every process
# the command starts is in it, whoever reaps it), else from RUSAGE_CHILDREN as a child
# subreaper that reaps every process left to it (a sandbox's orphans come back here
# rather than to the host's init).
_REAPER = r"""
import ctypes, os, resource, subprocess, sys
from pathlib import Path
ROOT = Path("/sys/fs/cgroup/cpuacct")
group = ROOT / f"bench-cold-{os.getpid()}"
try:
    group.mkdir()
    (group / "cgroup.procs").write_text(str(os.getpid()))
except OSError:
    group = None
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
process = subprocess.Popen(sys.argv[1:])
code = None
while True:
    try:
        pid, status = os.wait()
    except ChildProcessError:
        break
    if pid == process.pid:
        code = os.waitstatus_to_exitcode(status)
        process.returncode = code
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime
if group is not None:
    (ROOT / "cgroup.procs").write_text(str(os.getpid()))
    mine = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int((group / "cpuacct.usage").read_text()) / 1e9 - mine.ru_utime - mine.ru_stime
    group.rmdir()
print(cpu)
sys.exit(code)
"""


def play(
    code: Path, manifests: list[Path], scratch: Path, matches: int, run: str = ""
) -> tuple[int, float, float]:
    """Create and run the ladder with ``code``'s arena: (matches played, wall seconds,
    CPU seconds of the runner and every process under it)."""
    ran = run_ladder(
        code,
        lambda folder: ladder_text(manifests, folder / "replays", run),
        scratch,
        options=["--matches", str(matches)],
        wrapper=[sys.executable, "-c", _REAPER],
    )
    cpu = float(ran.stdout.split()[-1])  # the reaper's last line
    faults = [line for line in ran.stderr.splitlines() if "fault" in line and "0 fault" not in line]
    if faults:
        print(f"  note ({code.name}): {faults[0][:200]}")
    return ran.played, ran.seconds, cpu


# The sides of a round: (label, arena to run, extra [run] settings).
_PERSISTENT = "reuse_bots = true\npersistent_strangers = true\n"


def ladder(args: argparse.Namespace, base: Path, scratch: Path) -> None:
    manifests = make_bots(scratch / "bots", args.bots)
    sides = [("before", base, ""), ("now", TOP, "")]
    if not args.no_persistent:
        sides.append(("persistent", TOP, _PERSISTENT))
    rows = []
    ratios: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in sides[1:]}
    for number in range(args.rounds):
        order = sides if number % 2 == 0 else sides[::-1]
        got: dict[str, tuple[float, float]] = {}
        for label, code, run in order:
            played, seconds, cpu = play(code, manifests, scratch, args.matches, run)
            got[label] = (played / seconds * 60, cpu / played)
        rate, cpu = got["before"]
        for label in ratios:
            ratios[label].append((got[label][0] / rate, got[label][1] / cpu))
        row = [str(number + 1), f"{rate:.1f}", f"{cpu:.3f}"]
        for label in ratios:
            row += [
                f"{got[label][0]:.1f} ({ratios[label][-1][0]:.2f}x)",
                f"{got[label][1]:.3f} ({ratios[label][-1][1]:.2f}x)",
            ]
        rows.append(row)
        print(f"  round {number + 1}: {' | '.join(row[1:])}", flush=True)
    median = ["median of the per-round ratios", "", ""]
    for label in ratios:
        median += [
            f"**{statistics.median(r[0] for r in ratios[label]):.2f}x**",
            f"**{statistics.median(r[1] for r in ratios[label]):.2f}x**",
        ]
    rows.append(median)
    print(
        f"\nA ladder of {args.bots} different submitted-style bots, one-hand matches, "
        f"untrusted = true (sandbox auto), concurrency 2, {args.matches} matches a run: "
        f"{args.base_commit} with bots started for each match (before), this checkout the "
        "same way (now), and this checkout with persistent_strangers = true and reuse_bots "
        f"= true (persistent); {os.cpu_count()} CPUs.  Targets for now: at least 1.8x the "
        "matches/min, at most 0.5x the CPU a match"
    )
    header = ["round", "matches/min before", "CPU s/match before"]
    for label in ratios:
        header += [f"{label}: matches/min (x before)", f"{label}: CPU s/match (x before)"]
    print_table(header, rows)


# ------------------------------------------------------------- start to ready --

_GO_BARE_IMPORT = "rummyarena/botpb"


def ready(argv: list[str], cwd: Path, socket: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms until SERVING and handshake answered, CPU ms of the process by then)."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from arena.proto import bot_pb2 as pb
    from arena.proto import bot_pb2_grpc as pb_grpc

    address = f"unix:{socket}"
    started = time.perf_counter()
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env={**env, "ARENA_BOT_ADDRESS": address},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        while not socket.exists():
            if process.poll() is not None:
                error = process.stderr.read() if process.stderr else b""
                raise SystemExit(f"{argv}: exited {process.returncode}: {error!r}")
            time.sleep(0.0005)
        options = [  # retry quickly while the bot starts, as the arena does, not after 1 s
            ("grpc.initial_reconnect_backoff_ms", 5),
            ("grpc.min_reconnect_backoff_ms", 5),
            ("grpc.max_reconnect_backoff_ms", 20),
        ]
        with grpc.insecure_channel(address, options=options) as channel:
            check = health_pb2_grpc.HealthStub(channel).Check
            while True:
                try:
                    status = check(health_pb2.HealthCheckRequest(), timeout=5, wait_for_ready=True)
                except grpc.RpcError:
                    status = None
                if status is not None and status.status == health_pb2.HealthCheckResponse.SERVING:
                    break
                time.sleep(0.0005)
            pb_grpc.BotStub(channel).Handshake(
                pb.HandshakeRequest(protocol_version=1, referee="bench"), timeout=5
            )
        wall = time.perf_counter() - started
    finally:
        process.send_signal(signal.SIGKILL)
        _, _, usage = os.wait4(process.pid, 0)
        process.returncode = -9
        if process.stderr:
            process.stderr.close()
        socket.unlink(missing_ok=True)
    return wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000


def go_bare(scratch: Path) -> Path | None:
    """``bare_server.go`` built with the Go kit's generated code, or None without Go."""
    gopath = TOP / "sample_bots" / "go" / ".gopath"
    if not shutil.which("go") or not (gopath / "src" / _GO_BARE_IMPORT).is_dir():
        return None
    folder = scratch / "gobare"
    folder.mkdir()
    shutil.copy(HERE / "bare_server.go", folder / "main.go")
    env = {
        **os.environ,
        "GO111MODULE": "off",
        "GOPATH": f"{gopath}:/usr/share/gocode",
        "GOCACHE": str(gopath / "cache"),
        "GOFLAGS": "",
        "GOPROXY": "off",
        "CGO_ENABLED": "0",
    }
    built = subprocess.run(
        ["go", "build", "-o", str(folder / "bare"), "."],
        cwd=folder, env=env, capture_output=True, text=True,
    )  # fmt: skip
    if built.returncode != 0:
        print(f"  the bare Go server did not build: {built.stderr.strip()[-300:]}")
        return None
    return folder / "bare"


def kinds(scratch: Path) -> dict[str, tuple[list[str], Path]]:
    """label -> (argv, working folder), kits beside their bare servers, where they run."""
    python = sys.executable
    found = {
        "Python SDK bot": ([python, str(HERE / "trivial_bot.py")], TOP),
        "Python bare server": ([python, str(HERE / "bare_bot.py")], TOP),
    }
    js = TOP / "sample_bots" / "js"
    if shutil.which("node") and (js / "node_modules").is_dir():
        found["Node kit"] = (["node", "bot.js"], js)
        found["Node bare server"] = (["node", str(HERE / "bare_server.js")], js)
    go_bot = TOP / "sample_bots" / "go" / "bot"
    bare = go_bare(scratch)
    if go_bot.is_file() and bare is not None:
        found["Go kit"] = ([str(go_bot)], go_bot.parent)
        found["Go bare server"] = ([str(bare)], bare.parent)
    return found


def starts(args: argparse.Namespace, scratch: Path) -> None:
    found = kinds(scratch)
    env = {**os.environ, "PYTHONPATH": str(TOP)}
    walls: dict[str, list[float]] = {label: [] for label in found}
    cpus: dict[str, list[float]] = {label: [] for label in found}
    for _ in range(args.start_rounds):
        labels = list(found)
        random.shuffle(labels)
        for label in labels:
            argv, cwd = found[label]
            wall, cpu = ready(argv, cwd, scratch / "ready.sock", env)
            walls[label].append(wall)
            cpus[label].append(cpu)
    rows = []
    for label in found:
        row = [
            label,
            f"{statistics.median(cpus[label]):.0f} ({min(cpus[label]):.0f}-{max(cpus[label]):.0f})",
            f"{statistics.median(walls[label]):.0f} ({min(walls[label]):.0f}-{max(walls[label]):.0f})",
            "",
        ]
        language = label.split()[0]
        bare = f"{language} bare server"
        if label != bare and bare in found:
            ratios = [kit / floor for kit, floor in zip(cpus[label], cpus[bare], strict=True)]
            row[3] = f"{statistics.median(ratios):.2f} ({' '.join(f'{r:.2f}' for r in ratios)})"
        rows.append(row)
    print(
        f"\nStart to ready (SERVING and the handshake answered), no sandbox, "
        f"{args.start_rounds} rounds, median (min-max) of CPU ms and wall ms"
    )
    print_table(["process", "CPU ms", "wall ms", "CPU kit / bare, every round"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-commit", default=DEFAULT_BASE)
    parser.add_argument("--rounds", type=int, default=3, help="ladder rounds")
    parser.add_argument("--matches", type=int, default=40, help="matches a ladder run")
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--start-rounds", type=int, default=9)
    parser.add_argument("--no-ladder", action="store_true", help="only start to ready")
    parser.add_argument(
        "--no-persistent", action="store_true", help="leave out the persistent_strangers side"
    )
    parser.add_argument("--quick", action="store_true", help="4 bots, 2 matches, 1 round")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.matches, args.bots, args.start_rounds = 1, 2, 4, 1
    sys.path.insert(0, str(TOP))
    compiled(TOP)
    with tempfile.TemporaryDirectory() as scratch:
        if not args.no_ladder:
            from arena.hosting.errors import HostingError
            from arena.hosting.host import strangers_level

            try:
                strangers_level("auto")
            except HostingError as error:
                print(f"no ladder table: no sandbox level here is fit for strangers: {error}")
            else:
                base = checkout(args.base_commit, Path(scratch))
                ladder(args, base, Path(scratch))
        starts(args, Path(scratch))


if __name__ == "__main__":
    main()
