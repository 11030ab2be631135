"""What every route shares: the ladders, the game lookup, the templates, the replay cache.

Routers take the ladder a request is about from a dependency (the first database
given, or the ``{ladder}`` in the URL), so every page and API route exists once and is
mounted twice: at ``/`` for the default ladder and under ``/ladders/{ladder}``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import HTTPException, Request

from arena.replays.engine import GameLookup
from arena.replays.files import ReplayError
from arena.web import queries
from arena.web.ladders import Ladder, LadderSet
from arena.web.replay_view import ReplayView, build_replay_view

__all__ = ["LadderDependency", "WebContext", "default_ladder", "named_ladder", "web"]

LadderDependency = Callable[..., Ladder]

_CACHED_REPLAYS = 16


@dataclass
class WebContext:
    ladders: LadderSet
    find: GameLookup
    _versions: dict[str, queries.Versions] = field(default_factory=dict)
    _replays: OrderedDict[tuple[str, int, int], ReplayView] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def base(self, ladder: Ladder, named: bool) -> str:
        """The URL prefix of a ladder's pages."""
        return f"/ladders/{ladder.key}" if named or len(self.ladders.ladders) > 1 else ""

    def versions(self, ladder: Ladder) -> queries.Versions:
        with self._lock:
            return self._versions.setdefault(ladder.key, queries.Versions())

    def replay_file(self, ladder: Ladder, match_id: int) -> Path | None:
        """The replay file the database names for the match: nothing from the URL but the
        match id takes part, and only an existing ``.jsonl`` file is read."""
        with ladder.read() as db:
            text = queries.match_replay_path(db, match_id)
        if text is None:
            return None
        path = Path(text)
        if not path.is_absolute():
            path = ladder.replay_root() / path
        return path if path.suffix == ".jsonl" and path.is_file() else None

    def replay_view(self, path: Path) -> ReplayView:
        """The viewer's steps (cached: a finished match's replay does not change, and a
        long Rummy match takes a second or two to re-play)."""
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        with self._lock:
            view = self._replays.get(key)
            if view is not None:
                self._replays.move_to_end(key)
                return view
        view = build_replay_view(path, self.find)
        with self._lock:
            self._replays[key] = view
            while len(self._replays) > _CACHED_REPLAYS:
                self._replays.popitem(last=False)
        return view


def web(request: Request) -> WebContext:
    context: WebContext = request.app.state.web
    return context


def default_ladder(request: Request) -> Ladder:
    """The first database given on the command line."""
    return web(request).ladders.default


def named_ladder(request: Request, ladder: str) -> Ladder:
    """The ladder named in the URL (``/ladders/{ladder}/...``)."""
    found = web(request).ladders.get(ladder)
    if found is None:
        raise HTTPException(404, f"no ladder {ladder!r} here")
    return found


def replay_or_404(context: WebContext, ladder: Ladder, match_id: int) -> ReplayView:
    path = context.replay_file(ladder, match_id)
    if path is None:
        with ladder.read() as db:
            withheld = queries.replay_withheld(db, match_id)
        if withheld:
            raise HTTPException(
                404,
                f"match {match_id}: its replay opens once every match of its unit "
                "(the same deals) is played",
            )
        raise HTTPException(404, f"match {match_id} has no replay here")
    try:
        return context.replay_view(path)
    except ReplayError:  # the message names a file path, which is not the visitor's business
        raise HTTPException(404, f"match {match_id}: its replay file is broken") from None
