"""Replays, in one place: the records (``records``), the file written as a match goes
and read back (``files``), the engine re-playing it (``engine``), its verification
(``verify``), a seat's view of it (``seat_view``), a bot asked again the decisions a
seat made in it (``ask``) and one such decision saved as a file (``positions``).
docs/REPLAY.md describes the formats."""
