"""``arena serve DB [DB ...]``: a read-only web view of ladder databases (leaderboard,
bots, field, crosstable, matches with a replay viewer, and the same as JSON under /api/);
with ``--submissions`` the same site also takes bots from authors (one DB)."""

from __future__ import annotations

import argparse
import logging
import re
import sys
from pathlib import Path
from typing import Any

from arena.cli.bot_options import add_plugin_options, plugins_from_args
from arena.cli.submit import add_submission_options, submission_service

__all__ = ["add_serve_options", "register", "serve_options"]


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "serve", help="a read-only web view of ladders (safe while `arena ladder run` writes)"
    )
    add_serve_options(parser)
    parser.set_defaults(run=_run)


def add_serve_options(parser: argparse.ArgumentParser, *, one_db: bool = False) -> None:
    """``arena serve``'s arguments (``arena compete`` takes the same, for one DB, and
    always with submissions)."""
    if one_db:
        parser.add_argument("dbs", nargs=1, type=Path, metavar="DB", help="ladder database")
    else:
        parser.add_argument("dbs", nargs="+", type=Path, metavar="DB", help="ladder database(s)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--root-path",
        default="",
        metavar="PREFIX",
        help=(
            "serve under this URL prefix behind a reverse proxy that strips it, e.g. /arena: "
            "every link, form, redirect and asset URL starts with it (default: none)"
        ),
    )
    if not one_db:
        parser.add_argument(
            "--submissions",
            action="store_true",
            help="also take bot submissions from authors (one DB only): upload API, sign-in pages",
        )
    add_submission_options(parser)
    clients = parser.add_argument_group("slow and greedy clients (docs/SUBMISSIONS.md)")
    clients.add_argument(
        "--header-timeout",
        type=float,
        default=60.0,
        help="seconds for a request's whole head (default 60, as nginx)",
    )
    clients.add_argument(
        "--body-timeout",
        type=float,
        default=60.0,
        help="longest wait for a request body's next bytes (default 60, as nginx)",
    )
    clients.add_argument(
        "--body-min-rate",
        type=float,
        default=500.0,
        help="bytes a second a body must average after --body-timeout (default 500)",
    )
    clients.add_argument(
        "--connections-per-address",
        type=int,
        default=64,
        help="connections open at once from one client address (default 64)",
    )
    add_plugin_options(parser)  # replays of a plugin's game are drawn through its plugin


def serve_options() -> argparse.ArgumentParser:
    """A parser of ``arena serve``'s options alone: what ``arena compete`` passes on."""
    parser = argparse.ArgumentParser(add_help=False)
    add_serve_options(parser)
    return parser


def _run(args: argparse.Namespace) -> int:
    # Imported here: the web stack is only loaded by the command that needs it.
    import uvicorn

    from arena.web import create_app, open_ladders
    from arena.web.guard import ClientLimits, guarded_protocol

    if not 1 <= args.port <= 65535:
        raise ValueError(f"--port {args.port}: must be 1-65535")
    root_path = _root_path(args.root_path)
    if args.submissions and len(args.dbs) != 1:
        raise ValueError(f"--submissions takes one ladder database, got {len(args.dbs)}")
    ladders = open_ladders(args.dbs)
    service = submission_service(args.dbs[0], args) if args.submissions else None
    app = create_app(ladders, find=plugins_from_args(args).game, submissions=service)
    limits = ClientLimits(
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        body_min_rate=args.body_min_rate,
        connections_per_address=args.connections_per_address,
    )
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        server_header=False,
        # The client is the socket's peer: uvicorn would otherwise take X-Forwarded-For
        # from 127.0.0.1, and a local client could dodge the per-address limits with it.
        proxy_headers=False,
        http=guarded_protocol(limits),
        # Live match streams never end by themselves: on SIGTERM they get this long.
        timeout_graceful_shutdown=5,
        root_path=root_path,
    )
    server = uvicorn.Server(config)
    _log_requests()
    names = ", ".join(ladder.name for ladder in ladders.ladders)
    where = f"http://{args.host}:{args.port}/"
    if root_path:
        where += f" as {root_path}/ behind a proxy"
    print(f"serving {names} on {where} (Ctrl-C stops)", flush=True)
    server.run()
    return 0


_PREFIX_PART = re.compile(r"[A-Za-z0-9._~-]+")


def _root_path(text: str) -> str:
    """``--root-path``: ``""`` or ``/a/b`` (a leading /, no trailing one, plain segments)."""
    prefix = text.rstrip("/")
    if not prefix:
        return ""
    parts = prefix.split("/")
    if parts[0] != "" or not all(
        _PREFIX_PART.fullmatch(part) and part.strip(".") for part in parts[1:]
    ):
        raise ValueError(
            f"--root-path {text!r}: a URL path like /arena (letters, digits, . _ ~ - between slashes)"
        )
    return prefix


def _log_requests() -> None:
    """One line a request on stderr (uvicorn's own access log is off: it would log the
    raw target with its query string)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    access = logging.getLogger("arena.web.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    access.propagate = False
