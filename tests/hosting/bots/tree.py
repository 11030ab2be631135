"""Test bot: builds a process tree that is hard to kill, prints "ready", sleeps.

Usage: tree.py MODE MARKER. The marker only makes its processes easy to find.
Modes:
  ignore-term   ignores SIGTERM
  fork3         forks 3 children; all ignore SIGTERM
  setsid-child  forks a child that calls setsid() (leaves the session) and sleeps
  daemon        double fork: the grandchild calls setsid() and its parent exits,
                so the grandchild is orphaned
  daemon-noenv  like daemon, but the grandchild re-execs itself with an empty environment
Never imports arena.
"""

import os
import signal
import sys
import time

mode, marker = sys.argv[1], sys.argv[2]


def sleep_forever() -> None:
    while True:
        time.sleep(60)


def orphan(pipe_w: int, scrub_env: bool) -> None:
    """Fork; in the child: setsid, fork again, tell the pipe, exit; grandchild sleeps."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(pipe_w, b"x")
            if scrub_env:
                os.execve(
                    sys.executable,
                    [sys.executable, "-c", "import time; time.sleep(600)", marker],
                    {},
                )
            sleep_forever()
        os._exit(0)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    read_end, write_end = os.pipe()
    expected = 0
    if mode == "fork3":
        for _ in range(3):
            if os.fork() == 0:
                sleep_forever()
    elif mode == "setsid-child":
        if os.fork() == 0:
            os.setsid()
            os.write(write_end, b"x")
            sleep_forever()
        expected = 1
    elif mode in ("daemon", "daemon-noenv"):
        orphan(write_end, scrub_env=mode == "daemon-noenv")
        os.wait()
        expected = 1
    elif mode != "ignore-term":
        sys.exit(f"unknown mode {mode}")
    for _ in range(expected):
        os.read(read_end, 1)
    print("ready", flush=True)
    sleep_forever()
