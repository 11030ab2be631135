"""Verifying a replay: its revealed seed opens its commitment, and every game re-played
through the engine (``arena.replays.engine``) gives the recorded deals, hands and
scores.  ``arena replay --verify`` prints the disagreements."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.games.registry import find_game
from arena.protocol.commitment import RevealCheck, check_reveal
from arena.replays.engine import Disagreement, EngineReplay, GameLookup, game_of
from arena.replays.files import read_replay
from arena.replays.records import (
    GameEndRecord,
    GameStartRecord,
    HandEndRecord,
    Json,
    MatchEndRecord,
    MatchHeader,
    Record,
    RevealRecord,
)

__all__ = ["SeedCheck", "check_seed", "verify_replay"]


@dataclass(frozen=True)
class SeedCheck:
    """Does the replay's revealed seed open the commitment in its header?"""

    status: RevealCheck
    detail: str

    def __str__(self) -> str:
        return f"seed commitment {self.status.value}: {self.detail}"


def check_seed(records: Sequence[Record]) -> SeedCheck:
    """Does the replay's reveal open its header's commitment (``read_records``'s records)?"""
    header = records[0]
    commitment = header.seed_commitment if isinstance(header, MatchHeader) else None
    if not commitment:
        return SeedCheck(
            RevealCheck.ABSENT, "the replay has none (written before replay version 2)"
        )
    reveals = [record for record in records if isinstance(record, RevealRecord)]
    if not reveals:
        return SeedCheck(RevealCheck.ABSENT, "the replay stops before the seed is revealed")
    seed, salt = reveals[-1].seed, reveals[-1].salt
    status = RevealCheck.MISMATCH
    if type(seed) is int and isinstance(salt, str) and isinstance(commitment, str):
        with contextlib.suppress(ValueError):  # not hex: a mismatch
            status = check_reveal(bytes.fromhex(commitment), seed, bytes.fromhex(salt))
    if status is RevealCheck.VERIFIED:
        return SeedCheck(status, f"seed {seed} and its salt hash to the header's commitment")
    return SeedCheck(
        RevealCheck.MISMATCH,
        f"the revealed seed {seed!r} and salt do not hash to the header's commitment {commitment}",
    )


def verify_replay(path: Path, find: GameLookup = find_game) -> list[Disagreement]:
    """Re-play every game through the engine, and check the revealed seed against its
    commitment; each disagreement found, empty if none.  (A replay without commitment
    or reveal is not a disagreement: ``check_seed`` says which it is.)"""
    replay = read_replay(path)
    records, header = replay.records, replay.header
    spec = game_of(header, find, f"{path}:1: ")
    engine = EngineReplay(spec, header)
    problems: list[Disagreement] = []
    seed_check = check_seed(records)
    if seed_check.status is RevealCheck.MISMATCH:
        problems.append(Disagreement(len(records), str(seed_check)))
    if header.rules != engine.codec.rules_map(spec.rules):
        problems.append(Disagreement(1, f"rules differ from {spec.id}'s: {header.rules}"))
    finished: list[Json] = []  # hand results the engine produced, not yet compared
    for line, record in enumerate(records[1:], start=2):
        if isinstance(record, GameStartRecord):
            finished = []
        try:
            finished += [hand.record for hand in engine.feed(line, record)]
        except Disagreement as problem:
            problems.append(problem)
            continue
        table, number = engine.table, engine.game
        if table is None:
            continue
        if isinstance(record, HandEndRecord):
            if not finished:
                problems.append(
                    Disagreement(line, "hand end recorded, but the engine's hand is not over")
                )
            elif finished.pop(0) != record.result:
                problems.append(
                    Disagreement(
                        line,
                        f"hand {record.hand + 1} of game {number + 1}: result differs from the engine's",
                    )
                )
        elif isinstance(record, GameEndRecord) and not record.reason.startswith("forfeit"):
            if not table.is_terminal():
                problems.append(
                    Disagreement(
                        line, f"game {number + 1} ended in the replay but not in the engine"
                    )
                )
                continue
            outcome = table.outcome()
            scores = list(record.scores)
            if list(outcome.scores) != scores or outcome.winner != record.winner:
                problems.append(
                    Disagreement(
                        line,
                        f"game {number + 1}: engine scores {list(outcome.scores)} winner {outcome.winner}, replay {scores} winner {record.winner}",
                    )
                )
    if not isinstance(records[-1], MatchEndRecord):
        problems.append(
            Disagreement(len(records), "the replay stops before its match_end record (cut short?)")
        )
    return problems
