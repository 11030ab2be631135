"""Replays, in one place: the records (``records``), the file written as a match goes
and read back (``files``), the engine re-playing it (``engine``), its verification
(``verify``) and a seat's view of it (``seat_view``).  docs/REPLAY.md describes the
format."""
