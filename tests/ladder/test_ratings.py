"""Ratings: the trueskill package's maths, applied by the store once per completed unit.

Expected values are computed with ``trueskill`` directly, never with ``arena.ratings``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trueskill

from arena.hosting.faults import SeatStatus
from arena.ladder.config import BotEntry, LadderConfig
from arena.ladder.deals import new_deal_secret
from arena.ratings import DEFAULT_ENV, Rating, RatingEnv, match_quality, rate
from arena.referee.results import FaultRecord, GameRecord, MatchResult, SeatRecord
from arena.storage import LadderStore


def reference(env: RatingEnv = DEFAULT_ENV) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(
        mu=env.mu,
        sigma=env.sigma,
        beta=env.beta,
        tau=env.tau,
        draw_probability=env.draw_probability,
    )


def one_on_one(
    ts: trueskill.TrueSkill, a: trueskill.Rating, b: trueskill.Rating, drawn: bool = False
) -> tuple[trueskill.Rating, trueskill.Rating]:
    return trueskill.rate_1vs1(a, b, drawn=drawn, env=ts)


def same(ours: Rating, theirs: trueskill.Rating) -> bool:
    return ours.mu == pytest.approx(theirs.mu, abs=1e-9) and ours.sigma == pytest.approx(
        theirs.sigma, abs=1e-9
    )


# -- arena.ratings against trueskill -------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"), [((25.0, 25 / 3), (25.0, 25 / 3)), ((31.0, 2.5), (22.0, 6.0))]
)
@pytest.mark.parametrize("drawn", [False, True])
def test_one_against_one(
    first: tuple[float, float], second: tuple[float, float], drawn: bool
) -> None:
    ts = reference()
    winner, loser = one_on_one(ts, ts.create_rating(*first), ts.create_rating(*second), drawn=drawn)
    ours = rate([Rating(*first), Rating(*second)], [0, 0] if drawn else [0, 1])
    assert same(ours[0], winner) and same(ours[1], loser)
    # The order of the players does not matter, only their ranks.
    back = rate([Rating(*second), Rating(*first)], [0, 0] if drawn else [1, 0])
    assert same(back[1], winner) and same(back[0], loser)


@pytest.mark.parametrize("ranks", [[2, 0, 3, 1], [0, 1, 1, 2], [3, 2, 1, 0]])
def test_four_player_free_for_all(ranks: list[int]) -> None:
    start = [(25.0, 25 / 3), (28.0, 4.0), (19.0, 7.0), (33.0, 1.5)]
    ts = reference()
    expected = ts.rate([(ts.create_rating(*r),) for r in start], ranks=ranks)
    ours = rate([Rating(*r) for r in start], ranks)
    assert all(same(o, e[0]) for o, e in zip(ours, expected, strict=True))


def test_environment_parameters_are_used() -> None:
    env = RatingEnv(mu=1500, sigma=300, beta=150, tau=3, draw_probability=0.25)
    ts = reference(env)
    expected = one_on_one(ts, ts.create_rating(1500, 300), ts.create_rating(1600, 80), drawn=True)
    ours = rate([Rating(1500, 300), Rating(1600, 80)], [0, 0], env)
    assert same(ours[0], expected[0]) and same(ours[1], expected[1])
    assert env.initial() == Rating(1500, 300)


def test_match_quality_is_trueskills() -> None:
    ts = reference()
    a, b = ts.create_rating(30, 2), ts.create_rating(25, 25 / 3)
    assert match_quality([Rating(30, 2), Rating(25, 25 / 3)]) == pytest.approx(
        trueskill.quality_1vs1(a, b, env=ts)
    )


def test_rate_refuses_mismatched_input() -> None:
    with pytest.raises(ValueError, match="one rank each"):
        rate([Rating(25, 8), Rating(25, 8)], [0])
    with pytest.raises(ValueError):
        rate([Rating(25, 8)], [0])


def test_conservative_score() -> None:
    assert Rating(30, 2).conservative == 24


# -- the store: a unit is rated once, when all its matches have finished -------------


def result(*bots: tuple[int, int, int], games: int = 2) -> MatchResult:
    """A match result: (game wins, points, faults) by seat; games nobody won are drawn."""
    winners = [seat for seat, (wins, _, _) in enumerate(bots) for _ in range(wins)]
    assert len(winners) <= games
    played = [
        GameRecord(
            number,
            0,
            tuple(points if number == 0 else 0 for _, points, _ in bots),
            tuple(0 if winner in (None, seat) else 1 for seat in range(len(bots))),
            winner,
            "test",
            1,
        )
        for number, winner in enumerate(winners + [None] * (games - len(winners)))
    ]
    seats = [
        SeatRecord(
            f"seat{seat}",
            faults=[FaultRecord(seat, SeatStatus.TIMEOUT, "slow", 0, 0, "forfeit")] * faults,
        )
        for seat, (_, _, faults) in enumerate(bots)
    ]
    return MatchResult("m", "gin-rummy/standard", 0, seats, played)


def open_store(path: Path, names: Sequence[str]) -> LadderStore:
    config = LadderConfig("t", "gin-rummy/standard", tuple(BotEntry(n, "greedy") for n in names))
    store = LadderStore.create(path, "t", config.to_json(), None, new_deal_secret(config))
    for name in names:
        store.add_bot(name, "greedy", DEFAULT_ENV.initial())
    return store


def match_ids(store: LadderStore, unit: int) -> list[int]:
    rows = store.db.execute("SELECT id FROM matches WHERE unit_id = ? ORDER BY id", (unit,))
    return [row["id"] for row in rows]


def record(store: LadderStore, match: int, outcome: MatchResult, suspend_after: int = 3) -> Any:
    return store.record(match, outcome, None, suspend_after, DEFAULT_ENV)


def rating(store: LadderStore, name: str) -> Rating:
    return store.bot(name).rating


@pytest.fixture
def store(tmp_path: Path) -> LadderStore:
    return open_store(tmp_path / "ladder.sqlite", ["a", "b", "c", "d"])


def test_a_unit_is_rated_when_its_last_match_finishes(store: LadderStore) -> None:
    unit = store.add_unit("u", 1, [("a", "b"), ("b", "a")])
    first, second = match_ids(store, unit)
    # a wins 1 of 2 games as seat 0, then both as seat 1: 3 games to 1.
    assert not record(store, first, result((1, 80, 0), (1, 120, 0))).rated
    assert rating(store, "a") == rating(store, "b") == DEFAULT_ENV.initial()
    assert store.rating_history() == []
    assert record(store, second, result((0, 10, 0), (2, 200, 0))).rated
    ts = reference()
    winner, loser = one_on_one(ts, ts.create_rating(), ts.create_rating())
    assert same(rating(store, "a"), winner) and same(rating(store, "b"), loser)
    history = {row.name: row for row in store.rating_history()}
    assert history["a"].rank == 0 and history["b"].rank == 1
    assert history["a"].mu_before == 25 and history["a"].mu_after == pytest.approx(winner.mu)
    assert history["b"].sigma_after == pytest.approx(loser.sigma)
    assert store.bot("a").matches == 2 and store.bot("a").game_wins == 3
    assert store.bot("a").wins == 1 and store.bot("b").wins == 1  # one match each


def test_equal_game_wins_are_ranked_by_points(store: LadderStore) -> None:
    unit = store.add_unit("u", 1, [("a", "b"), ("b", "a")])
    first, second = match_ids(store, unit)
    record(store, first, result((1, 90, 0), (1, 100, 0)))
    record(store, second, result((1, 100, 0), (1, 95, 0)))  # b 200 points, a 185
    ts = reference()
    winner, loser = one_on_one(ts, ts.create_rating(), ts.create_rating())
    assert same(rating(store, "b"), winner) and same(rating(store, "a"), loser)


def test_equal_wins_and_points_are_a_draw(store: LadderStore) -> None:
    unit = store.add_unit("u", 1, [("a", "b"), ("b", "a")])
    first, second = match_ids(store, unit)
    record(store, first, result((2, 150, 0), (0, 0, 0)))
    record(store, second, result((2, 150, 0), (0, 0, 0)))
    ts = reference()
    drawn = one_on_one(ts, ts.create_rating(), ts.create_rating(), drawn=True)
    assert same(rating(store, "a"), drawn[0]) and same(rating(store, "b"), drawn[1])
    assert store.bot("a").draws == 0 and store.bot("a").wins == 1  # each won one match


def test_rating_starts_from_the_current_ratings(store: LadderStore) -> None:
    """The second unit is rated from the ratings the first one left."""
    one = store.add_unit("u1", 1, [("a", "b"), ("b", "a")])
    two = store.add_unit("u2", 2, [("a", "c"), ("c", "a")])
    for match in match_ids(store, one):
        record(store, match, result((2, 100, 0), (0, 0, 0)))  # seat 0 wins: 1 all, then points
    for match in match_ids(store, two):
        record(store, match, result((0, 0, 0), (2, 100, 0)))
    ts = reference()
    after_one = one_on_one(ts, ts.create_rating(), ts.create_rating(), drawn=True)
    c, a = one_on_one(ts, ts.create_rating(), after_one[0], drawn=True)
    assert same(rating(store, "a"), a) and same(rating(store, "c"), c)


def test_a_four_seat_unit_is_a_free_for_all(store: LadderStore) -> None:
    seating = ("a", "b", "c", "d")
    unit = store.add_unit("u", 1, [seating[i:] + seating[:i] for i in range(4)])
    # The same (game wins, points) whatever the seat; b and d tie on both.
    each = {"a": (2, 100), "b": (1, 75), "c": (1, 60), "d": (1, 75)}
    for match in match_ids(store, unit):
        row = store.db.execute("SELECT seats FROM matches WHERE id = ?", (match,)).fetchone()
        outcome = result(*[(*each[name], 0) for name in json.loads(row["seats"])], games=5)
        assert record(store, match, outcome).rated == (match == match_ids(store, unit)[-1])
    ranks = [0, 1, 2, 1]  # a; then b and d; then c (fewer points)
    ts = reference()
    expected = ts.rate([(ts.create_rating(),) for _ in seating], ranks=ranks)
    for name, (new,) in zip(seating, expected, strict=True):
        assert same(rating(store, name), new)
    assert [row.rank for row in store.rating_history()] == ranks


def play_sequence(store: LadderStore) -> None:
    """A fixed series of units and results, recorded out of unit order."""
    units = [
        store.add_unit(f"u{n}", n, [pair, pair[::-1]])
        for n, pair in enumerate(itertools.combinations("abcd", 2))
    ]
    matches = [match for unit in units for match in match_ids(store, unit)]
    order = matches[1::2] + matches[0::2]  # every unit's second match first
    for number, match in enumerate(order):
        record(store, match, result((number % 3, 10 * number, 0), (2 - number % 3, 7 * number, 0)))


def test_the_same_results_in_the_same_order_give_the_same_ratings(tmp_path: Path) -> None:
    first = open_store(tmp_path / "one.sqlite", ["a", "b", "c", "d"])
    second = open_store(tmp_path / "two.sqlite", ["a", "b", "c", "d"])
    play_sequence(first)
    play_sequence(second)
    assert [bot.rating for bot in first.bots()] == [bot.rating for bot in second.bots()]
    assert all(bot.rating != DEFAULT_ENV.initial() for bot in first.bots())

    def history(store: LadderStore) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in row.to_json().items() if k != "at"} for row in store.rating_history()
        ]

    assert history(first) == history(second)
    assert len(history(first)) == 12  # 6 units of 2 bots


def test_a_match_recorded_twice_counts_once(store: LadderStore) -> None:
    unit = store.add_unit("u", 1, [("a", "b"), ("b", "a")])
    first, second = match_ids(store, unit)
    record(store, first, result((2, 200, 0), (0, 0, 0)))
    again = record(store, first, result((0, 0, 0), (2, 200, 0)))
    assert not again.rated and again.suspended == ()
    assert store.bot("a").matches == 1 and store.bot("a").game_wins == 2
    assert record(store, second, result((0, 0, 0), (2, 200, 0))).rated
    ratings = [bot.rating for bot in store.bots()]
    assert not record(store, second, result((2, 200, 0), (0, 0, 0))).rated
    assert [bot.rating for bot in store.bots()] == ratings
    assert len(store.rating_history()) == 2
    assert store.db.execute("SELECT COUNT(*) FROM match_seats").fetchone()[0] == 4
    finished = store.finished_matches()
    assert [m.wins for m in finished] == [(2, 0), (0, 2)]  # the first result stands


def single_match(store: LadderStore, key: str, pair: tuple[str, str]) -> int:
    (match,) = match_ids(store, store.add_unit(key, 1, [pair]))
    return match


def test_faulty_matches_in_a_row_suspend_a_bot(store: LadderStore) -> None:
    faulty = result((0, 0, 2), (2, 200, 0))  # a faults (twice in one match: still one match)
    clean = result((1, 100, 0), (1, 90, 0))
    for number in range(2):
        assert record(store, single_match(store, f"f{number}", ("a", "b")), faulty).suspended == ()
    assert store.bot("a").fault_streak == 2
    record(store, single_match(store, "clean", ("a", "b")), clean)  # resets the streak
    assert store.bot("a").fault_streak == 0 and store.bot("a").status == "active"
    for number in range(2):
        record(store, single_match(store, f"g{number}", ("a", "c")), faulty)
    assert store.bot("a").status == "active"
    waiting = single_match(store, "waiting", ("a", "d"))  # scheduled, not yet played
    third = record(store, single_match(store, "g2", ("a", "b")), faulty)
    assert third.suspended == ("a",)
    bot = store.bot("a")
    assert bot.status == "suspended" and bot.fault_streak == 3 and bot.faults == 10
    assert store.bot("b").status == "active" and store.bot("b").fault_streak == 0
    # The next run cancels the suspended bot's queued matches.
    assert store.cancel_inactive() == 1
    status = store.db.execute("SELECT status FROM matches WHERE id = ?", (waiting,)).fetchone()
    assert status["status"] == "cancelled"
    # Enabling it again starts a fresh streak.
    store.set_status("a", "active")
    assert store.bot("a").fault_streak == 0


def test_suspend_after_one(store: LadderStore) -> None:
    outcome = record(
        store, single_match(store, "x", ("c", "d")), result((0, 0, 1), (0, 0, 1)), suspend_after=1
    )
    assert outcome.suspended == ("c", "d")


def test_interrupted_matches_go_back_to_the_queue(store: LadderStore) -> None:
    unit = store.add_unit("u", 1, [("a", "b"), ("b", "a")])
    taken = store.take_next()
    assert taken is not None and taken.seats == ("a", "b") and taken.attempts == 1
    assert store.counts() == {"running": 1, "scheduled": 1}
    assert store.recover_running() == 1
    again = store.take_next()
    assert again is not None and again.id == taken.id and again.attempts == 2
    record(store, again.id, result((2, 100, 0), (0, 0, 0)))
    assert store.counts() == {"finished": 1, "scheduled": 1}
    assert match_ids(store, unit)[0] == again.id
