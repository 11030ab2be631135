"""``arena ladder rerate``'s engine: every rated unit again, in order, into a new table,
switched in one transaction; a re-rate that dies leaves the old ratings in force."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.ratings import DEFAULT_ENV, Rating, RatingSystem, RatingSystemName, rating_system
from arena.ratings.openskill_ratings import OpenSkill
from arena.storage import LadderStore
from arena.storage.rerate import NEXT_TABLE, rerate
from tests.ladder.test_ratings import match_ids, open_store, result


def play(store: LadderStore, start: int = 0, units: int = 6) -> None:
    """Units of every pair of a..d, each two matches, with varied results."""
    pairs = list(itertools.combinations("abcd", 2))
    for n in range(start, start + units):
        pair = pairs[n % len(pairs)]
        unit = store.add_unit(f"u{n}", n, [pair, pair[::-1]])
        for k, match in enumerate(match_ids(store, unit)):
            wins = (n + k) % 3
            store.record(match, result((wins, 10 * n + k, 0), (2 - wins, 7 * n, 0)), None, 3)


State = tuple[tuple[Rating, ...], tuple[tuple[int, str, int, float, float], ...], str]


def state(store: LadderStore) -> State:
    """The bots' ratings, the rating history and the system in force."""
    history = tuple(
        (c.unit_id, c.name, c.rank, c.mu_after, c.sigma_after) for c in store.rating_history()
    )
    return tuple(bot.rating for bot in store.bots()), history, store.rating_system().name


def replayed(store: LadderStore, system: RatingSystem) -> dict[str, Rating]:
    """The ratings the recorded ranks give when replayed by hand, unit by unit in the
    order of the history, from the initial rating."""
    ratings = {bot.name: system.initial() for bot in store.bots()}
    units: dict[int, list[tuple[str, int]]] = {}
    for change in store.rating_history():  # in order: a dict keeps the units' first sight
        units.setdefault(change.unit_id, []).append((change.name, change.rank))
    for seats in units.values():
        names = [name for name, _ in sorted(seats)]
        after = system.rate([ratings[n] for n in names], [rank for _, rank in sorted(seats)])
        ratings.update(zip(names, after, strict=True))
    return ratings


def same_ratings(store: LadderStore, expected: dict[str, Rating]) -> bool:
    return all(
        bot.rating.mu == pytest.approx(expected[bot.name].mu, abs=1e-9)
        and bot.rating.sigma == pytest.approx(expected[bot.name].sigma, abs=1e-9)
        for bot in store.bots()
    )


@pytest.fixture
def store(tmp_path: Path) -> LadderStore:
    ladder = open_store(tmp_path / "ladder.sqlite", ["a", "b", "c", "d"])
    play(ladder)
    return ladder


def test_rerating_with_the_same_system_changes_nothing(store: LadderStore) -> None:
    before = state(store)
    summary = rerate(store, DEFAULT_ENV)
    assert (summary.units, summary.caught_up, summary.bots) == (6, 0, 4)
    assert summary.system == summary.previous == RatingSystemName.TRUESKILL
    assert state(store) == before  # the same updates in the same order: the same numbers
    names = {row[0] for row in store.db.execute("SELECT name FROM sqlite_master")}
    assert NEXT_TABLE not in names and "rating_history_bot" in names  # its index made again


def test_rerating_with_openskill_replays_every_unit_in_order(store: LadderStore) -> None:
    trueskill = state(store)
    old_history = [(c.unit_id, c.name, c.rank) for c in store.rating_history()]
    summary = rerate(store, rating_system("openskill"))
    assert summary.previous == RatingSystemName.TRUESKILL
    assert summary.system == RatingSystemName.OPENSKILL
    assert store.rating_system().name == RatingSystemName.OPENSKILL  # in the stored config
    assert [(c.unit_id, c.name, c.rank) for c in store.rating_history()] == old_history
    assert same_ratings(store, replayed(store, OpenSkill()))
    # The ladder goes on with the system now in force.
    before = {bot.name: bot.rating for bot in store.bots()}
    play(store, start=6, units=1)  # a against b
    a, b = OpenSkill().rate([before["a"], before["b"]], [rank(store, "a"), rank(store, "b")])
    assert store.bot("a").rating == a and store.bot("b").rating == b
    # And back to TrueSkill: what a TrueSkill ladder with the same results has.
    rerate(store, DEFAULT_ENV)
    again = open_store(store.path.with_name("again.sqlite"), ["a", "b", "c", "d"])
    play(again, units=7)
    assert state(store) == state(again)
    assert state(store)[1][:12] == trueskill[1]


def rank(store: LadderStore, name: str) -> int:
    return store.rating_history(name)[-1].rank


@dataclass(frozen=True)
class Dying:
    """A rating system that fails at its ``after``-th update (a re-rate killed there)."""

    after: int
    calls: list[int]

    @property
    def name(self) -> RatingSystemName:
        return RatingSystemName.OPENSKILL

    def initial(self) -> Rating:
        return OpenSkill().initial()

    def rate(self, ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
        self.calls.append(1)
        if len(self.calls) >= self.after:
            raise KeyboardInterrupt("killed")
        return OpenSkill().rate(ratings, ranks)


def test_a_rerate_killed_while_computing_leaves_the_old_ratings_in_force(
    store: LadderStore,
) -> None:
    before = state(store)
    with pytest.raises(KeyboardInterrupt):
        rerate(store, Dying(4, []))
    assert state(store) == before
    assert rerate(store, OpenSkill()).units == 6  # and a later one works


def test_a_rerate_killed_in_its_switch_is_rolled_back(store: LadderStore) -> None:
    before = state(store)
    other = LadderStore.open(store.path)  # the running ladder, another connection

    def meanwhile(units: int) -> None:
        assert units == 6
        play(other, start=6, units=1)  # one more unit rated (by TrueSkill) before the switch

    with pytest.raises(KeyboardInterrupt):
        rerate(store, Dying(7, []), on_computed=meanwhile)  # dies catching that unit up
    after = state(store)
    assert after[2] == before[2] == RatingSystemName.TRUESKILL
    assert len(after[1]) == len(before[1]) + 2  # the ladder's own update stands, nothing else
    assert store.db.execute(f"SELECT COUNT(*) FROM {NEXT_TABLE}").fetchone()[0] == 12
    other.close()


def test_units_rated_while_it_computes_are_caught_up(store: LadderStore) -> None:
    other = LadderStore.open(store.path)
    summary = rerate(store, OpenSkill(), on_computed=lambda _: play(other, start=6, units=2))
    assert (summary.units, summary.caught_up) == (8, 2)
    assert len(store.rating_history()) == 16
    assert same_ratings(store, replayed(store, OpenSkill()))
    other.close()


def test_a_ladder_with_nothing_rated_rerates_to_nothing(tmp_path: Path) -> None:
    ladder = open_store(tmp_path / "empty.sqlite", ["a", "b"])
    summary = rerate(ladder, OpenSkill())
    assert (summary.units, summary.bots) == (0, 2)
    assert ladder.rating_system().name == RatingSystemName.OPENSKILL
    with sqlite3.connect(ladder.path) as db:
        assert db.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0] == 0
