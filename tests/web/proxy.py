"""A tiny reverse proxy for the tests: ``http://127.0.0.1:PORT/arena/...`` goes to the
backend's ``/...``, as nginx's ``location /arena/ { proxy_pass http://backend/; }`` does.

It strips the prefix from the request and changes nothing in the answer (no
``Location`` or cookie path rewriting), so every URL the app hands out must carry the
prefix itself (``arena serve --root-path /arena``).
"""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade", "host"}


def _handler(prefix: str, backend: str) -> type[BaseHTTPRequestHandler]:
    target = urlsplit(backend)
    host, port = target.hostname or "127.0.0.1", target.port

    class Forward(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            if self.path != prefix and not self.path.startswith(prefix + "/"):
                self.send_error(404, f"outside {prefix}/")
                return
            path = self.path[len(prefix) :] or "/"
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
            connection = http.client.HTTPConnection(host, port, timeout=60)
            try:
                connection.request(self.command, path, body=body, headers=headers)
                answer = connection.getresponse()
                data = answer.read()
            finally:
                connection.close()
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in _HOP_BY_HOP | {"content-length"}:
                    self.send_header(name, value)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_POST = do_HEAD = _forward

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet

    return Forward


class _Server(ThreadingHTTPServer):
    # socketserver's default backlog is 5: a browser opening its parallel connections
    # while the machine is loaded overflowed it, and Chromium saw connections reset.
    request_queue_size = 128
    daemon_threads = True


@contextmanager
def prefix_proxy(backend: str, prefix: str = "/arena") -> Iterator[str]:
    """The proxy in front of ``backend`` until the block ends: its URL with ``prefix``."""
    server = _Server(("127.0.0.1", 0), _handler(prefix, backend))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
