"""What every page of the site shares beyond its ladder: the prefix the app is served
under, whether it takes submissions, and who is signed in.

The prefix is the ASGI ``root_path`` (``arena serve --root-path /arena``, behind a
reverse proxy that strips it): every link, form, redirect and asset URL a page or a
redirect carries starts with it, so the site works under a sub-path.
"""

from __future__ import annotations

from fastapi import Request

from arena.storage.submissions_store import Author
from arena.submissions.service import SubmissionService
from arena.submissions.sessions import Session
from arena.web.security import SESSION_COOKIE

__all__ = ["SESSION_COOKIE", "root", "signed_in", "submissions_of"]


def root(request: Request) -> str:
    """The prefix of every URL the app hands out: ``""`` or ``/arena`` (no trailing /)."""
    prefix: str = request.scope.get("root_path", "")
    return prefix.rstrip("/")


def submissions_of(request: Request) -> SubmissionService | None:
    """The app's submission service, None when it takes no submissions."""
    service: SubmissionService | None = getattr(request.app.state, "submissions", None)
    return service


def signed_in(request: Request) -> tuple[Session, Author] | None:
    """The session and author of the request's session cookie, if it opens one (the
    cookie is checked against the server's key before the database is read)."""
    service = submissions_of(request)
    if service is None:
        return None
    return service.signed_in(request.cookies.get(SESSION_COOKIE))
