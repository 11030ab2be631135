"""Test bot: an attacker that knows everything about the host (paths, pids), written
from docs/PROTOCOL.md alone.  It tries each attack named in its arguments, prints one
JSON object {attack: outcome} on stdout, then sleeps until killed.

Attacks: read=PATH, listdir=PATH, write=PATH, connect=UNIX_SOCKET_PATH,
signal=PID (SIGSTOP), ptrace=PID (PTRACE_ATTACH), fork=N (forks N sleepers, says how
many it got), escape=MARKER (setsid, double fork, exec with an empty environment),
flood=BYTES (writes that much to stdout and to stderr), syscall=NAME (unshare,
keyctl, bpf, mount: raw calls a bot has no need for), tcp=PORT and udp=PORT (to
127.0.0.1), hold=NAME (binds and keeps the abstract unix socket NAME), abstract=NAME
(connects to it), trap (prints "trapped" when a SIGUSR1 arrives), killall (SIGUSR1 to
every process it may signal: kill(-1)).  Never imports arena.
"""

import ctypes
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Callable

libc = ctypes.CDLL(None, use_errno=True)


def outcome(call: Callable[[], object]) -> object:
    try:
        result = call()
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror}"
    return result


def raw(number: int, *args: int) -> str:
    if libc.syscall(number, *args) == -1:
        return f"OSError: {os.strerror(ctypes.get_errno())}"
    return "ok"


SYSCALLS = {  # x86-64 numbers
    "unshare": (272, 0x10000000),  # CLONE_NEWUSER
    "keyctl": (250, 0, 0),  # KEYCTL_GET_KEYRING_ID
    "bpf": (321, 0, 0, 0),
    "mount": (165, 0, 0, 0, 0, 0),
}


held: list[socket.socket] = []  # sockets this bot keeps open while it sleeps


def attack(kind: str, value: str) -> object:
    if kind == "read":
        return outcome(lambda: "read " + repr(open(value, "rb").read(64)))
    if kind == "listdir":
        return outcome(lambda: ",".join(sorted(os.listdir(value))))
    if kind == "write":
        return outcome(lambda: open(value, "w").write("pwned") and "written")
    if kind == "connect":

        def connect() -> str:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.connect(value)
            return "connected"

        return outcome(connect)
    if kind == "signal":

        def stop() -> str:
            os.kill(int(value), signal.SIGSTOP)
            return "stopped"

        return outcome(stop)
    if kind == "ptrace":
        if libc.ptrace(16, int(value), 0, 0) == -1:  # PTRACE_ATTACH
            return f"OSError: {os.strerror(ctypes.get_errno())}"
        return "attached"
    if kind == "fork":
        got = 0
        for _ in range(int(value)):
            try:
                if os.fork() == 0:
                    time.sleep(600)
                    os._exit(0)
            except OSError:
                break
            got += 1
        return got
    if kind == "escape":
        read_end, write_end = os.pipe()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.write(write_end, b"x")
                os.execve("/bin/sleep", [f"escaped-sleep-{value}", "600"], {})
            os._exit(0)
        os.wait()
        os.read(read_end, 1)
        return "escaped"
    if kind == "flood":
        chunk = b"x" * 65536
        for _ in range(int(value) // len(chunk)):
            os.write(1, chunk)
            os.write(2, chunk)
        return "flooded"
    if kind == "syscall":
        return raw(*SYSCALLS[value])
    if kind == "trap":
        signal.signal(signal.SIGUSR1, lambda *_: print("trapped", flush=True))
        return "trapping"
    if kind == "killall":

        def signal_all() -> str:
            os.kill(-1, signal.SIGUSR1)
            return "sent"

        return outcome(signal_all)
    if kind == "tcp":

        def tcp() -> str:
            socket.create_connection(("127.0.0.1", int(value)), timeout=2).close()
            return "connected"

        return outcome(tcp)
    if kind == "udp":

        def udp() -> str:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.sendto(b"pwned", ("127.0.0.1", int(value)))
            return "sent"

        return outcome(udp)
    if kind == "hold":

        def hold() -> str:
            sock = socket.socket(socket.AF_UNIX)
            sock.bind("\0" + value)
            sock.listen()
            held.append(sock)
            return "holding"

        return outcome(hold)
    if kind == "abstract":

        def abstract() -> str:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.connect("\0" + value)
            return "connected"

        return outcome(abstract)
    return f"unknown attack {kind}"


report: dict[str, object] = {"uid": os.getuid(), "pid": os.getpid()}
for arg in sys.argv[1:]:
    kind, _, value = arg.partition("=")
    report[arg] = attack(kind, value)
print("\n" + json.dumps(report), flush=True)
while True:
    time.sleep(60)
