"""The finals' exact two-sided binomial sign test against values worked out elsewhere
(R's ``binom.test(x, n)$p.value``, and by hand from the binomial tail)."""

from __future__ import annotations

import math

import pytest

from arena.stats import sign_test


@pytest.mark.parametrize(
    ("wins", "losses", "expected"),
    [
        (9, 1, 0.021484375),  # 2 * (1 + 10) / 1024
        (1, 9, 0.021484375),  # two-sided: the same either way round
        (10, 0, 0.001953125),  # 2 / 1024
        (6, 0, 0.03125),  # the fewest decided games that can separate two bots
        (5, 0, 0.0625),
        (8, 2, 0.109375),  # 2 * 56 / 1024
        (60, 40, 0.056887933640980),  # binom.test(60, 100)
        (5, 5, 1.0),  # capped at 1: both tails overlap at the middle
        (3, 4, 1.0),
        (0, 0, 1.0),  # no decided game says nothing
    ],
)
def test_known_p_values(wins: int, losses: int, expected: float) -> None:
    assert sign_test(wins, losses) == pytest.approx(expected, rel=1e-12)


def test_matches_the_binomial_tail_summed_by_hand() -> None:
    for games in range(1, 30):
        for wins in range(games + 1):
            low = min(wins, games - wins)
            tail = sum(math.comb(games, k) * 0.5**games for k in range(low + 1))
            assert sign_test(wins, games - wins) == pytest.approx(min(1.0, 2 * tail), rel=1e-9)


def test_large_counts_stay_finite_and_in_range() -> None:
    p = sign_test(5300, 4700)
    assert 0.0 < p < 1e-8
    assert sign_test(5000, 5000) == 1.0


def test_negative_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="counts games"):
        sign_test(-1, 3)
