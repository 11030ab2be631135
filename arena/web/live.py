"""Matches as they are played: ``GET /api/matches/live`` lists them, and
``GET /api/matches/{id}/events`` streams one's records as Server-Sent Events.

The runner's workers write each ladder match's replay a record at a time, flushed
(``ReplayWriter(live=True)``); this server follows the file.  One :class:`_Feed` per
match in play reads it once, whoever is watching, and keeps its events, so a crowd of
spectators costs a list lookup each; the runner, another process, never sees them.

An event is a replay line with the viewer's steps it adds (the same steps the replay
viewer draws), its SSE id the line's number (the header is line 1), so
``Last-Event-ID: N`` resumes after line N.  The deals come from the match's seed,
which only this server reads (from the database) and never sends: the stream's
``reveal`` line says only that it is withheld (the other matches of a duplicate unit
play the same deals; the replay opens once they are played), and until a hand ends
the seats' cards are card backs (``??``) unless the ladder says
``[web] live_cards = "shown"``.  After the last record comes
an ``end`` event (``finished``, or ``requeued`` when a stopping runner put the match
back in the queue), and the stream closes.  A finished match is streamed whole (reveal
included, once its unit is played), then closed.
"""

import asyncio
import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, HTTPException, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from arena.replays.engine import GameLookup
from arena.replays.records import (
    MatchEndRecord,
    MatchHeader,
    RecordError,
    RevealRecord,
    record_from_json,
)
from arena.web.api import as_json
from arena.web.context import LadderDependency, web
from arena.web.ladders import Ladder
from arena.web.queries import replay_withheld
from arena.web.replay_view import Step, StepFeed
from arena.web.security import MAX_ID  # also registers the {...:id} convertor

__all__ = ["LiveHub", "LiveMatch", "LiveMatches", "LivePage", "live_page", "live_router"]

CARD_BACK = "??"
POLL_SECONDS = 0.2  # how often a stream looks for new lines: the bound on its delay
_STATUS_SECONDS = 1.0  # how often it asks the database whether the match still runs
_PING_SECONDS = 15.0  # a comment line, so that proxies keep an idle stream open
_FEEDS = 64  # matches followed at once (the oldest unwatched is dropped first)
STREAMS_PER_CLIENT = 4
STREAMS = 256
_MAX_LINE = 4 * 1024 * 1024  # a longer line is no record this arena writes


@dataclass(frozen=True)
class LiveMatch:
    id: int
    seats: list[str]
    attempt: int
    started: str | None
    game: int  # from 0; -1 before the first game starts
    hand: int  # from 0; -1 before the first deal
    scores: list[int]  # the current game's, as the table shows them
    records: int  # replay lines written so far
    events: str  # its stream's URL


@dataclass(frozen=True)
class LiveMatches:
    matches: list[LiveMatch]


@dataclass(frozen=True)
class _Event:
    id: int
    data: str  # JSON


@dataclass
class _Feed:
    """One match's replay as it grows: the events read so far."""

    path: Path
    seed: int
    shown: bool
    find: GameLookup
    whole: bool  # a finished match, sent whole: its reveal too
    events: list[_Event] = field(default_factory=list)
    finished: bool = False  # its match_end record is in
    broken: str | None = None  # why it cannot be followed
    game: int = -1
    hand: int = -1
    scores: list[int] = field(default_factory=list)
    _offset: int = 0
    _rest: bytes = b""
    _lines: int = 0
    _steps: StepFeed | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def advance(self) -> None:
        """Read what was written since the last call (complete lines only)."""
        with self._lock:
            if self.finished or self.broken:
                return
            try:
                with self.path.open("rb") as file:
                    file.seek(self._offset)
                    chunk = file.read(_MAX_LINE)
            except OSError:
                return  # not written yet
            self._offset += len(chunk)
            *lines, self._rest = (self._rest + chunk).split(b"\n")
            if len(self._rest) > _MAX_LINE:
                self.broken = f"line {self._lines + 1} is too long"
            for raw in lines:
                self._take(raw)
                if self.broken:
                    return

    def _take(self, raw: bytes) -> None:
        self._lines += 1
        try:
            line = json.loads(raw)
            record = record_from_json(line)
        except (ValueError, RecordError) as error:
            self.broken = f"line {self._lines}: {error}"
            return
        steps: list[Step] = []
        if self._lines == 1:
            if not isinstance(record, MatchHeader):
                self.broken = "line 1 is no match header"
                return
            self._steps = StepFeed(line, record, self.find, self.seed)
        elif self._steps is not None:
            steps = self._steps.feed(self._lines, record)
        if isinstance(record, MatchEndRecord):
            self.finished = True
        if isinstance(record, RevealRecord) and not self.whole:
            # The seed and decks open the other matches of a duplicate unit (the same
            # deals): the live stream never tells them; the replay does, once they are played.
            line = {"type": "reveal", "withheld": True}
        shown = [self._show(step) for step in steps]
        for step in shown:
            state = step.get("state")
            self.game, self.hand = step["game"], step["hand"]
            if state is not None:
                self.scores = list(state["scores"])
        data = {"line": self._lines, "record": line, "steps": shown}
        self.events.append(_Event(self._lines, json.dumps(data, separators=(",", ":"))))

    def _show(self, step: Step) -> dict[str, Any]:
        """The step as a spectator sees it: card backs for the hands while the hand is
        in play (unless shown), and never the card a seat drew from the stock."""
        shown = asdict(step)
        state = shown["state"]
        in_play = state is not None and state.get("end") is None
        if in_play and not self.shown:
            shown["private"] = ""
            state["hands"] = [[CARD_BACK] * len(hand) for hand in state["hands"]]
        return shown

    def after(self, last: int) -> list[_Event]:
        with self._lock:
            return [event for event in self.events if event.id > last]


class LiveHub:
    """The feeds of the matches being watched, and the streams open per client."""

    def __init__(self) -> None:
        self._feeds: OrderedDict[tuple[str, int, int, bool], _Feed] = OrderedDict()
        self._streams: dict[str, int] = {}
        self._lock = threading.Lock()

    def feed(self, key: tuple[str, int, int, bool], make: Callable[[], _Feed]) -> _Feed:
        with self._lock:
            feed = self._feeds.get(key)
            if feed is None:
                feed = self._feeds[key] = make()
                while len(self._feeds) > _FEEDS:
                    self._feeds.popitem(last=False)
            self._feeds.move_to_end(key)
            return feed

    def open_stream(self, client: str) -> bool:
        with self._lock:
            if sum(self._streams.values()) >= STREAMS:
                return False
            if self._streams.get(client, 0) >= STREAMS_PER_CLIENT:
                return False
            self._streams[client] = self._streams.get(client, 0) + 1
            return True

    def close_stream(self, client: str) -> None:
        with self._lock:
            left = self._streams.get(client, 0) - 1
            if left > 0:
                self._streams[client] = left
            else:
                self._streams.pop(client, None)


@dataclass(frozen=True)
class _MatchRow:
    id: int
    status: str
    attempt: int
    seats: list[str]
    started: str | None
    seed: int
    replay: str | None


_SELECT_MATCHES = (
    "SELECT m.id, m.status, m.attempts, m.seats, m.started, m.replay, u.seed "
    "FROM matches m JOIN units u ON u.id = m.unit_id"
)


def _match_row(db: sqlite3.Connection, match_id: int) -> _MatchRow | None:
    row = db.execute(f"{_SELECT_MATCHES} WHERE m.id = ?", (match_id,)).fetchone()
    return None if row is None else _row(row)


def _running_rows(db: sqlite3.Connection) -> list[_MatchRow]:
    query = f"{_SELECT_MATCHES} WHERE m.status = 'running' ORDER BY m.id"
    return [_row(row) for row in db.execute(query)]


def _current(ladder: Ladder, match_id: int) -> _MatchRow | None:
    with ladder.read() as db:
        return _match_row(db, match_id)


def _gone(current: _MatchRow | None, match: _MatchRow) -> str | None:
    """How the match a stream follows stopped being played (None: it still is)."""
    if current is not None and current.attempt == match.attempt and current.status == "running":
        return None
    # A finished match ends its stream with its match_end line; "stopped" is one whose
    # replay ended without it.
    return "requeued" if current is not None and current.status == "scheduled" else "stopped"


def _row(row: sqlite3.Row) -> _MatchRow:
    return _MatchRow(
        int(row["id"]),
        str(row["status"]),
        int(row["attempts"]),
        list(json.loads(row["seats"])),
        row["started"],
        int(row["seed"]),
        row["replay"],
    )


def _settings(db: sqlite3.Connection) -> tuple[str | None, bool]:
    """The ladder's replay folder and whether spectators see the cards in play."""
    config = json.loads(db.execute("SELECT config FROM ladder").fetchone()[0])
    return config.get("replays"), config.get("live_cards", "hidden") == "shown"


def _resolve(ladder: Ladder, text: str) -> Path:
    path = Path(text)
    return path if path.is_absolute() else ladder.replay_root() / path


@dataclass(frozen=True)
class LiveSeat:
    name: str


@dataclass(frozen=True)
class LivePage:
    """What the page of a match in play needs to follow it: its stream and its seats."""

    events: str
    players: list[LiveSeat]


def live_page(ladder: Ladder, api: str, match_id: int) -> LivePage | None:
    """The viewer's source for a match being played (None: it is not, or it is played
    without a replay to follow)."""
    with ladder.read() as db:
        match = _match_row(db, match_id)
        replays, _ = _settings(db)
    if match is None or match.status != "running" or not replays:
        return None
    seats = [LiveSeat(name) for name in match.seats]
    return LivePage(f"{api}/matches/{match_id}/events", seats)


def _live_path(ladder: Ladder, replays: str | None, match: _MatchRow) -> Path | None:
    """Where the runner's worker writes the match's replay (``m{id}-a{attempt}.jsonl``
    in the ladder's replay folder, as ``arena.ladder.worker`` names it)."""
    if not replays:
        return None
    return _resolve(ladder, replays) / f"m{match.id}-a{match.attempt}.jsonl"


def _feed_for(
    request: Request, ladder: Ladder, match: _MatchRow, shown: bool, path: Path, whole: bool
) -> _Feed:
    hub: LiveHub = request.app.state.live
    find = web(request).find
    return hub.feed(
        (ladder.key, match.id, match.attempt, whole),
        lambda: _Feed(path, match.seed, shown, find, whole),
    )


def _last_event_id(text: str | None) -> int:
    if text is None or text == "":
        return 0
    if not text.isdigit() or len(text) > 18:
        raise HTTPException(400, f"Last-Event-ID must be a record number, got {text[:40]!r}")
    return int(text)


def _sse(event: _Event) -> bytes:
    return f"id: {event.id}\nevent: record\ndata: {event.data}\n\n".encode()


def _end(status: str) -> bytes:
    return f"event: end\ndata: {json.dumps({'status': status})}\n\n".encode()


def live_router(ladder_of: LadderDependency, suffix: str) -> APIRouter:
    """The live routes of the ladder ``ladder_of`` picks (``suffix`` keeps the OpenAPI
    operation ids of its two mounts apart, as ``api_router``'s)."""
    router = APIRouter(tags=["live"])
    LadderArg = Annotated[Ladder, Depends(ladder_of)]

    @router.get("/matches/live", response_model=LiveMatches, operation_id=f"live_matches{suffix}")
    def live(request: Request, ladder: LadderArg) -> Any:
        """The matches being played now: seats, game, hand and scores so far."""
        with ladder.read() as db:
            replays, shown = _settings(db)
            rows = _running_rows(db)
        found = []
        for match in rows:
            game, hand, scores, records = -1, -1, [], 0
            path = _live_path(ladder, replays, match)
            if path is not None:
                feed = _feed_for(request, ladder, match, shown, path, whole=False)
                feed.advance()
                game, hand, scores, records = feed.game, feed.hand, feed.scores, len(feed.events)
            found.append(
                LiveMatch(
                    match.id, match.seats, match.attempt, match.started, game, hand,
                    scores, records, f"{request.url.path.removesuffix('/live')}/{match.id}/events",
                )
            )  # fmt: skip
        return as_json(LiveMatches(found))

    @router.get(
        "/matches/{match_id:id}/events",
        response_class=StreamingResponse,
        operation_id=f"match_events{suffix}",
        responses={200: {"content": {"text/event-stream": {}}}},
    )
    async def events(
        request: Request,
        ladder: LadderArg,
        match_id: int,
        last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
    ) -> StreamingResponse:
        """The match's replay records as Server-Sent Events while it is played (see
        docs/WEB.md); a finished match's whole replay, then the stream closes."""
        last = _last_event_id(last_event_id)

        def look() -> tuple[_MatchRow | None, str | None, bool, bool]:
            with ladder.read() as db:
                return (_match_row(db, match_id), *_settings(db), replay_withheld(db, match_id))

        match, replays, shown, withheld = await run_in_threadpool(look)
        if match is None or match_id > MAX_ID:
            raise HTTPException(404, f"no match {match_id} in ladder {ladder.name}")
        if match.status == "finished":
            if not match.replay:
                raise HTTPException(404, f"match {match_id} has no replay here")
            if withheld:
                raise HTTPException(
                    404,
                    f"match {match_id}: its replay opens once every match of its unit "
                    "(the same deals) is played",
                )
            path, shown = _resolve(ladder, match.replay), True
        elif match.status == "running":
            live_path = _live_path(ladder, replays, match)
            if live_path is None:
                raise HTTPException(404, f"match {match_id} is played without a replay")
            path = live_path
        else:
            raise HTTPException(404, f"match {match_id} is {match.status}, not being played")
        feed = _feed_for(request, ladder, match, shown, path, whole=match.status == "finished")
        hub: LiveHub = request.app.state.live
        client = request.client.host if request.client else "-"
        if not hub.open_stream(client):
            raise HTTPException(429, "too many live streams open: close one first")
        return StreamingResponse(
            _stream(request, ladder, feed, match, last, client),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    return router


async def _stream(
    request: Request, ladder: Ladder, feed: _Feed, match: _MatchRow, last: int, client: str
) -> AsyncIterator[bytes]:
    hub: LiveHub = request.app.state.live
    loop = asyncio.get_running_loop()
    gone: str | None = None  # set once the match is no longer played: one last read, then end
    try:
        checked = pinged = loop.time()
        while True:
            await run_in_threadpool(feed.advance)
            for event in feed.after(last):
                yield _sse(event)
                last = event.id
            if feed.finished or feed.broken:
                yield _end("finished" if feed.finished else f"broken: {feed.broken}")
                return
            if gone is not None:
                yield _end(gone)
                return
            now = loop.time()
            if now - checked >= _STATUS_SECONDS:
                checked = now
                gone = _gone(await run_in_threadpool(_current, ladder, match.id), match)
                if gone is not None:
                    continue  # read what was written before it stopped
            if now - pinged >= _PING_SECONDS:
                pinged = now
                yield b": ping\n\n"
            await asyncio.sleep(POLL_SECONDS)
    finally:
        hub.close_stream(client)
