"""Schedules: who meets whom, how often, and in which seat."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, pairwise

import pytest

from arena.ladder.schedule import Unit, continuous_pick, gauntlet, lineups, round_robin
from arena.ratings import DEFAULT_ENV, Rating

BOTS = ["ace", "bob", "cat", "dan", "eve", "fay", "gus"]


def seat_counts(units: list[Unit]) -> Counter[tuple[str, int]]:
    """(bot, seat) -> matches played in that seat."""
    return Counter(
        (name, seat)
        for unit in units
        for lineup in unit.lineups
        for seat, name in enumerate(lineup)
    )


def spread(counts: Counter[tuple[str, int]], bot: str, seats: int) -> int:
    """Most minus fewest matches of ``bot`` in any one seat."""
    per_seat = [counts[bot, seat] for seat in range(seats)]
    return max(per_seat) - min(per_seat)


# -- lineups -----------------------------------------------------------------------


def test_lineups_are_rotations() -> None:
    group = ("a", "b", "c")
    assert lineups(group, True, 0) == (("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b"))
    assert [lineups(group, False, k) for k in range(4)] == [
        (("a", "b", "c"),),
        (("b", "c", "a"),),
        (("c", "a", "b"),),
        (("a", "b", "c"),),
    ]


# -- round-robin -------------------------------------------------------------------


@pytest.mark.parametrize("count", [2, 3, 4, 5, 7])
@pytest.mark.parametrize("repeat", [1, 2, 3])
def test_round_robin_duplicate_meets_every_pair_repeat_times_in_both_seatings(
    count: int, repeat: int
) -> None:
    bots = BOTS[:count]
    units = round_robin(bots, 2, repeat, duplicate=True)
    pairs = Counter(frozenset(unit.lineups[0]) for unit in units)
    assert pairs == {frozenset(pair): repeat for pair in combinations(bots, 2)}
    for unit in units:
        first, second = unit.lineups
        assert second == first[::-1]  # the same deals, each bot in each seat
    counts = seat_counts(units)
    for bot in bots:
        assert counts[bot, 0] == counts[bot, 1] == repeat * (count - 1)


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("repeat", [1, 2, 3, 4])
def test_round_robin_without_duplicate_balances_seats(count: int, repeat: int) -> None:
    bots = BOTS[:count]
    units = round_robin(bots, 2, repeat, duplicate=False)
    assert all(len(unit.lineups) == 1 for unit in units)
    pairs = Counter(frozenset(unit.lineups[0]) for unit in units)
    assert pairs == {frozenset(pair): repeat for pair in combinations(bots, 2)}
    # Over the repeats of a pair the seats alternate...
    by_pair: dict[frozenset[str], list[tuple[str, ...]]] = {}
    for unit in units:
        by_pair.setdefault(frozenset(unit.lineups[0]), []).append(unit.lineups[0])
    for seatings in by_pair.values():
        assert all(later == earlier[::-1] for earlier, later in pairwise(seatings))
    # ...and over the whole schedule every bot leads as often as it follows, within one.
    counts = seat_counts(units)
    for bot in bots:
        assert spread(counts, bot, 2) <= 1, (bot, counts)


def test_round_robin_plays_round_after_round() -> None:
    """A run cut short has met every pair about as often."""
    units = round_robin(BOTS[:4], 2, 3, duplicate=True)
    rounds = [units[i : i + 6] for i in range(0, len(units), 6)]
    assert len(rounds) == 3
    for number, one_round in enumerate(rounds):
        assert {frozenset(unit.lineups[0]) for unit in one_round} == {
            frozenset(pair) for pair in combinations(BOTS[:4], 2)
        }
        assert all(unit.key.endswith(f":{number}") for unit in one_round)


def test_round_robin_keys_are_unique_and_stable() -> None:
    units = round_robin(BOTS[:5], 2, 2, duplicate=True)
    assert len({unit.key for unit in units}) == len(units)
    shuffled = BOTS[:5]
    random.Random(3).shuffle(shuffled)
    assert round_robin(shuffled, 2, 2, duplicate=True) == units  # input order is irrelevant
    assert units[0].key == "rr:ace|bob:0"


# -- gauntlet ----------------------------------------------------------------------


@pytest.mark.parametrize("duplicate", [True, False])
@pytest.mark.parametrize("repeat", [1, 2, 3])
def test_gauntlet_puts_the_champion_in_every_unit(duplicate: bool, repeat: int) -> None:
    champion = "dan"
    units = gauntlet(champion, BOTS, 2, repeat, duplicate)
    assert all(champion in lineup for unit in units for lineup in unit.lineups)
    opponents = Counter(name for unit in units for name in unit.lineups[0] if name != champion)
    assert opponents == {bot: repeat for bot in BOTS if bot != champion}
    counts = seat_counts(units)
    assert spread(counts, champion, 2) <= (0 if duplicate else 1)
    assert len({unit.key for unit in units}) == len(units)


def test_gauntlet_multi_seat_line_ups_all_hold_the_champion() -> None:
    units = gauntlet("ace", BOTS[:5], 3, 1, duplicate=True)
    assert len(units) == 6  # the 4 others, two at a time
    for unit in units:
        assert len(unit.lineups) == 3
        assert all(lineup.count("ace") == 1 for lineup in unit.lineups)


# -- multi-seat line-ups -----------------------------------------------------------


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_multi_seat_duplicate_units_are_every_rotation(seats: int) -> None:
    bots = BOTS[: seats + 1]
    units = round_robin(bots, seats, 2, duplicate=True)
    groups = Counter(frozenset(unit.lineups[0]) for unit in units)
    assert groups == {frozenset(group): 2 for group in combinations(bots, seats)}
    for unit in units:
        assert len(unit.lineups) == seats
        first = unit.lineups[0]
        assert set(unit.lineups) == {first[i:] + first[:i] for i in range(seats)}
        for seat in range(seats):  # each bot in each seat once per unit
            assert sorted(lineup[seat] for lineup in unit.lineups) == sorted(first)


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_multi_seat_repeats_without_duplicate_cycle_through_the_seats(seats: int) -> None:
    bots = BOTS[: seats + 1]
    units = round_robin(bots, seats, seats, duplicate=False)
    by_group: dict[frozenset[str], list[tuple[str, ...]]] = {}
    for unit in units:
        (lineup,) = unit.lineups
        by_group.setdefault(frozenset(lineup), []).append(lineup)
    for seatings in by_group.values():
        assert len(seatings) == seats
        for seat in range(seats):  # ``seats`` repeats: each bot in each seat once
            assert len({lineup[seat] for lineup in seatings}) == seats
    counts = seat_counts(units)
    assert all(spread(counts, bot, seats) == 0 for bot in bots)


# -- continuous --------------------------------------------------------------------


def ratings(**table: tuple[float, float]) -> dict[str, Rating]:
    return {name: Rating(mu, sigma) for name, (mu, sigma) in table.items()}


def test_continuous_prefers_close_pairs() -> None:
    field = ratings(a=(40, 1.5), b=(30, 1.5), c=(29, 1.5), d=(15, 1.5))
    assert continuous_pick(field, dict.fromkeys(field, 10), 2, DEFAULT_ENV) == ("b", "c")


def test_continuous_prefers_uncertain_pairs() -> None:
    # The same gap between the means; c and d are far less certain.
    field = ratings(a=(40, 1.0), b=(36, 1.0), c=(20, 4.0), d=(16, 4.0))
    assert continuous_pick(field, dict.fromkeys(field, 10), 2, DEFAULT_ENV) == ("c", "d")


def test_continuous_plays_a_newcomer() -> None:
    field = ratings(a=(35, 1.2), b=(30, 1.2), c=(20, 1.2), d=(12, 1.2))
    field["new"] = DEFAULT_ENV.initial()  # mu 25, sigma 8.3: between b and c, unknown
    pick = continuous_pick(field, {"a": 40, "b": 40, "c": 40, "d": 40, "new": 0}, 2, DEFAULT_ENV)
    assert pick is not None and "new" in pick


def test_continuous_does_not_replay_settled_pairs() -> None:
    """Bots far apart in a well-known order are never paired, however little they played."""
    field = ratings(a=(45, 1.0), b=(30, 1.0), c=(29.5, 1.0), d=(10, 1.0))
    played = {"a": 0, "b": 50, "c": 50, "d": 0}
    assert continuous_pick(field, played, 2, DEFAULT_ENV) == ("b", "c")


def test_continuous_ties_go_to_bots_that_played_less_then_names() -> None:
    field = {name: DEFAULT_ENV.initial() for name in "abcd"}
    assert continuous_pick(field, {"a": 4, "b": 4, "c": 0, "d": 0}, 2, DEFAULT_ENV) == ("c", "d")
    assert continuous_pick(field, dict.fromkeys("abcd", 0), 2, DEFAULT_ENV) == ("a", "b")


def test_continuous_is_deterministic() -> None:
    rng = random.Random(7)
    names = [f"bot{i}" for i in range(8)]
    field = {name: Rating(rng.uniform(15, 35), rng.uniform(1, 8)) for name in names}
    played = {name: rng.randrange(20) for name in names}
    first = continuous_pick(field, played, 2, DEFAULT_ENV)
    for _ in range(5):
        items = list(field.items())
        rng.shuffle(items)  # the same ratings, inserted in another order
        assert continuous_pick(dict(items), played, 2, DEFAULT_ENV) == first


@pytest.mark.parametrize("seats", [3, 4])
def test_continuous_multi_seat(seats: int) -> None:
    field = ratings(a=(40, 1), b=(31, 2), c=(30, 2), d=(29, 2), e=(10, 1))
    pick = continuous_pick(field, dict.fromkeys(field, 0), seats, DEFAULT_ENV)
    assert pick is not None
    assert len(set(pick)) == seats and list(pick) == sorted(pick)
    assert {"b", "c", "d"} <= set(pick)


def test_continuous_needs_enough_bots() -> None:
    field = ratings(a=(25, 8), b=(25, 8))
    assert continuous_pick(field, {}, 3, DEFAULT_ENV) is None
    assert continuous_pick(field, {}, 2, DEFAULT_ENV) == ("a", "b")
