"""``arena submit URL PATH``: send a bot to a ladder's server (``arena serve DB --submissions``).

``submit`` exit status: 0 accepted (or, without ``--wait``, received), 1 rejected,
2 bad input (no such folder, no bot.toml, a refused token, a server out of reach).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.submissions.client import ClientError, fetch_json, pack_folder, send_archive

if TYPE_CHECKING:
    from arena.submissions.service import SubmissionService

__all__ = ["register"]

TOKEN_ENV = "ARENA_TOKEN"


def register(commands: Any) -> None:
    submit = commands.add_parser(
        "submit",
        help="submit a bot (a folder with bot.toml, or an archive) to a ladder's server",
        description=(
            "Pack the folder (honouring .arenaignore) or send the archive, then with --wait "
            "print the check report. Exit status 0: accepted; 1: rejected; 2: bad input."
        ),
    )
    submit.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    submit.add_argument("path", type=Path, help="the bot's folder, or a .tar.gz / .zip")
    submit.add_argument("--token", help=f"your author token (default: ${TOKEN_ENV})")
    submit.add_argument("--wait", action="store_true", help="wait for the check and print it")
    submit.add_argument(
        "--poll", type=float, default=1.0, help="seconds between looks with --wait (default 1)"
    )
    submit.set_defaults(run=_submit)


def add_submission_options(parser: argparse.ArgumentParser) -> None:
    """The options of the submissions part, for whichever command serves it."""
    parser.add_argument(
        "--per-hour", type=int, default=10, help="submissions per author per hour (default 10)"
    )
    parser.add_argument(
        "--concurrent-checks", type=int, default=1, help="checks at once (default 1)"
    )
    parser.add_argument(
        "--secure-cookies", action="store_true", help="session cookies only over HTTPS"
    )
    parser.add_argument(
        "--max-archive-mb", type=int, default=64, help="largest archive accepted (default 64)"
    )
    parser.add_argument(
        "--uploads-per-author",
        type=int,
        default=2,
        help="uploads one author may have in flight at once (default 2)",
    )
    parser.add_argument(
        "--uploads-at-once",
        type=int,
        default=16,
        help="uploads in flight at once, all authors together (default 16)",
    )
    parser.add_argument(
        "--disk-quota-mb",
        type=int,
        default=1024,
        help="disk one author's stored versions may take before uploads are refused (default 1024)",
    )
    parser.add_argument(
        "--session-hours",
        type=float,
        default=12.0,
        help="how long a web session lasts before the token is asked again (default 12)",
    )
    parser.add_argument(
        "--auth-failures",
        type=int,
        default=20,
        help="wrong tokens per client address per minute before 429 (default 20)",
    )


def _submit(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get(TOKEN_ENV)
    if not token:
        raise ClientError(f"no token: give --token or set {TOKEN_ENV}")
    path: Path = args.path
    if path.is_dir():
        archive, filename = pack_folder(path), "bot.tar.gz"
    elif path.is_file():
        archive, filename = path.read_bytes(), path.name
    else:
        raise ClientError(f"{path}: no such folder or archive")
    reply = send_archive(args.url, token, archive, filename)
    if reply.status == 401:
        raise ClientError(f"the server refused the token: {reply.body.get('error', reply.status)}")
    if reply.status in (403, 429, 503):  # closed (frozen) or a quota: nothing wrong with the bot
        raise ClientError(str(reply.body.get("error", "too many submissions")))
    if reply.status != 202:
        print(f"rejected: {reply.body.get('error', f'HTTP {reply.status}')}")
        return 1
    submission = reply.body["id"]
    print(f"submission {submission}: checking ({len(archive)} bytes sent)", flush=True)
    if not args.wait:
        return 0
    while True:
        time.sleep(args.poll)
        state = fetch_json(args.url, token, f"/api/submissions/{submission}")
        if state.status != 200:
            raise ClientError(f"submission {submission}: HTTP {state.status}: {state.body}")
        if state.body["status"] != "checking":
            break
    _print_report(state.body)
    return 0 if state.body["status"] == "accepted" else 1


def _print_report(body: dict[str, Any]) -> None:
    report = body.get("report") or {}
    build = report.get("build")
    if build:
        print(f"build: {build['command']!r}: status {build['status']}, {build['seconds']} s")
        for line in build["output"].rstrip().splitlines()[-20:]:
            print(f"  | {line}")
    for check in (report.get("check") or {}).get("checks", []):
        print(f"{check['status'].upper():<4}  {check['name']:<36}  {check['detail']}")
        if check["hint"] and check["status"] == "fail":
            print(f"      hint: {check['hint']}")
    if body["status"] == "accepted":
        print(
            f"accepted: {body['bot']} version {report.get('version')}, in the ladder as {report.get('ladder_name')}"
        )
    else:
        print(f"rejected: {body.get('reason')}")
    sys.stdout.flush()


def submission_service(db: Path, args: argparse.Namespace) -> SubmissionService:
    """The submissions part of ``arena serve DB --submissions``, from its options."""
    from arena.archives import UnpackLimits
    from arena.submissions.pipeline import CheckOptions
    from arena.submissions.service import SubmissionService, SubmissionSettings

    for option in (
        "per_hour",
        "concurrent_checks",
        "max_archive_mb",
        "uploads_per_author",
        "uploads_at_once",
        "disk_quota_mb",
        "auth_failures",
    ):
        if getattr(args, option) < 1:
            raise ValueError(f"--{option.replace('_', '-')} must be at least 1")
    if not 0 < args.session_hours <= 24 * 365:
        raise ValueError(
            f"--session-hours must be above 0 (and at most a year), not {args.session_hours}"
        )
    return SubmissionService(
        db,
        SubmissionSettings(
            per_hour=args.per_hour,
            concurrency=args.concurrent_checks,
            secure_cookies=args.secure_cookies,
            options=CheckOptions(
                unpack=UnpackLimits(compressed_bytes=args.max_archive_mb * 1024 * 1024)
            ),
            uploads_per_author=args.uploads_per_author,
            uploads=args.uploads_at_once,
            disk_mb=args.disk_quota_mb,
            session_seconds=max(1, round(args.session_hours * 3600)),
            auth_failures=args.auth_failures,
        ),
    )
