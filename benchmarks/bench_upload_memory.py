"""The submission server's memory under concurrent uploads (target: 8 x 20 MiB move its
RSS by less than 100 MiB).

Run:  python benchmarks/bench_upload_memory.py [--uploads 8] [--mb 20] [--target-mb 100]

Makes a ladder and ``--uploads`` authors, starts ``arena serve DB --submissions`` as a
user would, sends one small upload to warm it up (the first upload imports the
multipart parser and the checker), then sends ``--uploads`` archives of ``--mb`` MiB of
random bytes at once, one per author, each on its own connection.  A thread reads the
server's ``VmRSS`` from ``/proc`` every 5 ms, from before the uploads until every check
has finished (the archives name a bot of the ladder's own, so each check unpacks the
archive and is refused by name: the unpacking is measured, no bot is run).  Prints the
resident memory before, the peak while receiving and while checking, and the largest
rise against the target.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.cli.main import main as arena_main
from arena.storage import LadderStore
from arena.storage.submissions_store import SubmissionStore

ROOT = Path(__file__).resolve().parents[1]
LADDER = """
name = "uploads"
game = "gin-rummy/standard"
[schedule]
kind = "gauntlet"
champion = "random"
duplicate = false
[[bots]]
name = "random"
[[bots]]
name = "greedy"
"""
BOUNDARY = "benchboundary"


def _archive(size: int) -> bytes:
    """A .tar.gz of ``size`` random bytes (incompressible) and a bot.toml naming a bot
    of the ladder's own, so that the check refuses it once it is unpacked."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        for name, data in (
            ("bot.toml", b'name = "greedy"\ncommand = ["python3", "bot.py"]\n'),
            ("noise.bin", os.urandom(size)),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _upload(port: int, token: str, archive: bytes) -> tuple[int, dict[str, object]]:
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="archive"; filename="a.tar.gz"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    body = head + archive + f"\r\n--{BOUNDARY}--\r\n".encode()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    conn.request(
        "POST",
        "/api/submissions",
        body=body,
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
        },
    )
    response = conn.getresponse()
    reply = json.loads(response.read() or b"{}")
    conn.close()
    return response.status, reply


def _status(port: int, token: str, submission: int) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(
        "GET", f"/api/submissions/{submission}", headers={"Authorization": f"Bearer {token}"}
    )
    reply = json.loads(conn.getresponse().read())
    conn.close()
    return str(reply["status"])


class Sampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, _rss_kib(self.pid))
            time.sleep(0.005)

    def take(self) -> int:
        """The peak since the last take, and start again."""
        peak, self.peak = self.peak, _rss_kib(self.pid)
        return max(peak, self.peak)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=8)
    parser.add_argument("--mb", type=int, default=20, help="MiB of each archive")
    parser.add_argument("--target-mb", type=float, default=100.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-upload-") as folder:
        root = Path(folder)
        (root / "ladder.toml").write_text(LADDER)
        db = root / "ladder.sqlite"
        with open(os.devnull, "w") as quiet:
            saved, sys.stdout = sys.stdout, quiet
            try:
                assert (
                    arena_main(["ladder", "create", str(root / "ladder.toml"), "--db", str(db)])
                    == 0
                )
            finally:
                sys.stdout = saved
        store = LadderStore.open(db)
        tokens = [SubmissionStore(store).add_author(f"author{n}") for n in range(args.uploads + 1)]
        store.close()
        archive = _archive(args.mb * 1024 * 1024)
        port = _free_port()
        log = open(root / "server.log", "wb")  # noqa: SIM115 (closed with the server)
        server = subprocess.Popen(
            [sys.executable, "-m", "arena.cli.main", "serve", str(db), "--submissions",
             "--port", str(port), "--max-archive-mb", str(args.mb + 8), "--per-hour", "100",
             "--uploads-at-once", str(args.uploads + 1)],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit("the server did not start") from None
                    time.sleep(0.1)
            warm = tokens.pop()
            status, reply = _upload(port, warm, _archive(1024))
            assert status == 202, reply
            while _status(port, warm, int(str(reply["id"]))) == "checking":
                time.sleep(0.1)
            time.sleep(0.5)
            sampler = Sampler(server.pid)
            before = _rss_kib(server.pid)
            sampler.start()
            replies: dict[str, tuple[int, dict[str, object]]] = {}

            def send(token: str) -> None:
                replies[token] = _upload(port, token, archive)

            started = time.monotonic()
            threads = [threading.Thread(target=send, args=(token,)) for token in tokens]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            received = time.monotonic() - started
            receiving = sampler.take()
            accepted = [
                (token, reply) for token, (status, reply) in replies.items() if status == 202
            ]
            assert len(accepted) == len(tokens), replies
            for token, reply in accepted:
                while _status(port, token, int(str(reply["id"]))) == "checking":
                    time.sleep(0.2)
            checked = time.monotonic() - started
            checking = sampler.take()
            sampler.stop.set()
        except BaseException:
            sys.stderr.write((root / "server.log").read_text()[-3000:])
            raise
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()
    rise = (max(receiving, checking) - before) / 1024
    print(f"{args.uploads} concurrent uploads of {len(archive) / 2**20:.1f} MiB each "
          f"(received in {received:.1f} s, checked by {checked:.1f} s)")  # fmt: skip
    print()
    print("| server RSS                      |     MiB |")
    print("|---------------------------------|--------:|")
    print(f"| before                          | {before / 1024:7.1f} |")
    print(f"| peak while receiving            | {receiving / 1024:7.1f} |")
    print(f"| peak while checking             | {checking / 1024:7.1f} |")
    print(f"| largest rise (target < {args.target_mb:g})     | {rise:7.1f} |")
    print()
    print("target met" if rise < args.target_mb else "TARGET NOT MET")
    return 0 if rise < args.target_mb else 1


if __name__ == "__main__":
    sys.exit(main())
