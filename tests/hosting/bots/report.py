"""Test bot: prints what it sees as one JSON line on stdout, then exits.

Arguments ask for extra probes: connect=PORT (TCP to 127.0.0.1), write=PATH,
listdir=PATH, spawn=N (start N threads). Never imports arena.
"""

import json
import os
import socket
import sys
import threading
import time


def probe(kind: str, value: str) -> str:
    try:
        if kind == "connect":
            socket.create_connection(("127.0.0.1", int(value)), timeout=2).close()
            return "connected"
        if kind == "write":
            with open(value, "w") as file:
                file.write("x")
            return "written"
        if kind == "listdir":
            return ",".join(sorted(os.listdir(value)))
        if kind == "spawn":
            for _ in range(int(value)):
                threading.Thread(target=time.sleep, args=(1,), daemon=True).start()
            return "spawned"
    except (OSError, RuntimeError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return f"unknown probe {kind}"


def interfaces() -> object:
    try:
        return sorted(name for _, name in socket.if_nameindex())
    except OSError as exc:  # at `limits`, no socket but unix ones: not even to list them
        return f"{type(exc).__name__}: {exc.strerror}"


with open("/proc/self/limits") as limits_file:
    limits = limits_file.read()
with open("/proc/self/status") as status_file:
    status = dict(line.split(":\t", 1) for line in status_file.read().splitlines() if ":\t" in line)
report = {
    "uid": os.getuid(),
    "gid": os.getgid(),
    "pid": os.getpid(),
    "cwd": os.getcwd(),
    "env": dict(os.environ),
    "limits": limits,
    "groups": os.getgroups(),
    "no_new_privs": status.get("NoNewPrivs", "").strip(),
    "seccomp": status.get("Seccomp", "").strip(),
    "interfaces": interfaces(),
}
for arg in sys.argv[1:]:
    kind, _, value = arg.partition("=")
    report[arg] = probe(kind, value)
print(json.dumps(report), flush=True)
