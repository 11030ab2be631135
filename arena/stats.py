"""The arena's statistics, in one place: a proportion's Wilson interval, a match's
Elo difference with its interval and LOS, a sequential probability ratio test
(SPRT) of a new bot against an old one over duplicate pairs, and the exact sign test
a finals separates two bots with (``sign_test``).

Pure maths, no I/O: ``arena sprt`` plays the games and feeds the pair scores in.

**Duplicate pairs.**  Pair *i* plays one deal sequence twice, the seats swapped.
NEW's pair score is its game wins over the two games, a drawn game counting 1/2:
0, 0.5, 1, 1.5 or 2.  Counting how often each of the five occurs gives the
*pentanomial* frequencies.  The two games of a pair are correlated (same cards)
while pairs are independent, so the statistics work on pairs: the luck of the
deal largely cancels inside a pair and the variance of pair scores says how much.

**Elo model: plain logistic Elo.**  At an Elo difference *d* one game scores
``s(d) = 1 / (1 + 10**(-d / 400))`` on average, a pair ``2 s(d)``.  (Not
Fishtest's "normalized Elo", which divides by the standard deviation.)

**Log-likelihood ratio: the generalized SPRT of Fishtest** (``LLR_logistic`` in
its ``stat_util.py``).  Per game, the five outcomes score ``a = 0, 1/4, 1/2, 3/4,
1``.  For each hypothesis ``s_j = s(elo_j)``, take the distribution ``q_j`` on the
five outcomes that makes the observed frequencies ``p`` most likely among those
with mean ``s_j`` (maximize ``sum p_i log q_i`` subject to ``sum q_i = 1`` and
``sum q_i a_i = s_j``).  Lagrange multipliers give ``q_i = p_i / (1 + x (a_i -
s_j))``, with ``x`` the root of ``sum p_i (a_i - s_j) / (1 + x (a_i - s_j)) = 0``
in the interval where every denominator is positive; the left side falls
strictly there, so bisection finds it.  Then ``LLR = N sum_i p_i log(q_1i /
q_0i)``.  Before that, an empty category gets a count of 0.001 (Fishtest's
regularization): when every pair so far is 2-0 no distribution on the observed
scores alone has a mean below 1.

**Bounds** are Wald's: ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``
(about -2.944 and +2.944 for alpha = beta = 0.05).  Below the lower bound H0 is
accepted (NEW is not better by ``elo1``), above the upper one H1.

**Elo estimate** from the observed (not regularized) frequencies: the mean
per-game score ``m = sum p_i a_i``, its standard error ``sqrt(var / N)`` with
``var = sum p_i (a_i - m)**2`` (the pentanomial variance: pair scores halved),
the interval ``m +- 1.96 se`` clipped to [0, 1], and each of the three mapped
through ``elo(m) = -400 log10(1 / m - 1)``.  A score of 0 or 1 maps to -inf or
+inf: when NEW won every game the data put no upper limit on the difference.
When every pair scored the same there is no spread to size an interval from:
its ends are NaN.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Final, NamedTuple

from arena.errors import ArenaError

__all__ = [
    "GAME_SCORES",
    "PAIR_SCORES",
    "REGULARIZATION",
    "EloEstimate",
    "EloSummary",
    "ScoreInterval",
    "SequentialTest",
    "SprtError",
    "Verdict",
    "bounds",
    "constrained_mle",
    "elo_estimate",
    "elo_from_score",
    "elo_summary",
    "expected_score",
    "llr",
    "pentanomial",
    "score_interval",
    "sign_test",
    "wilson_interval",
]

PAIR_SCORES: Final = (0.0, 0.5, 1.0, 1.5, 2.0)  # category i: NEW scored i/2 in the pair
GAME_SCORES: Final = (0.0, 0.25, 0.5, 0.75, 1.0)  # the same per game
REGULARIZATION: Final = 1e-3  # the count an empty category gets in the LLR (as Fishtest)
_Z95: Final = 1.959963984540054  # the standard normal's 97.5% quantile


class SprtError(ArenaError, ValueError):
    """A bad test parameter (Elo bounds, error rates) or pair score."""


class Verdict(Enum):
    CONTINUE = "continue"  # neither bound crossed yet
    H0 = "H0"  # lower bound crossed: NEW is not better by elo1 (at most elo0)
    H1 = "H1"  # upper bound crossed: NEW is better by elo1 (at least elo0)


class EloEstimate(NamedTuple):
    """An Elo difference (NEW minus OLD) with its 95% confidence interval."""

    elo: float
    low: float
    high: float


def expected_score(elo: float) -> float:
    """The mean score of one game at Elo difference ``elo`` (plain logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_from_score(score: float) -> float:
    """The Elo difference whose expected score is ``score``; -inf at 0, +inf at 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds (lower, upper) for error rates ``alpha`` (accepting H1
    when H0 holds) and ``beta`` (accepting H0 when H1 holds)."""
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0) or alpha + beta >= 1.0:
        raise SprtError(
            f"alpha and beta must lie in (0, 1) with alpha + beta < 1, got alpha {alpha}, beta {beta}"
        )
    return (math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha))


def _category(pair_score: float) -> int:
    index = round(pair_score * 2)
    if not 0 <= index <= 4 or index / 2 != pair_score:
        raise SprtError(f"a pair score is 0, 0.5, 1, 1.5 or 2 game wins, got {pair_score}")
    return index


def pentanomial(pair_scores: Iterable[float]) -> list[int]:
    """How many pairs scored 0, 0.5, 1, 1.5 and 2."""
    counts = [0] * 5
    for score in pair_scores:
        counts[_category(score)] += 1
    return counts


def _checked(counts: Sequence[float]) -> list[float]:
    if len(counts) != 5 or any(not count >= 0 for count in counts):
        raise SprtError(
            f"pentanomial counts are 5 non-negative numbers (pairs scoring 0, 0.5, 1, 1.5, 2), got {list(counts)}"
        )
    return [float(count) for count in counts]


def constrained_mle(
    values: Sequence[float], probabilities: Sequence[float], mean: float
) -> list[float]:
    """The distribution ``q`` on ``values`` with mean ``mean`` under which the
    observed ``probabilities`` are most likely (maximizes ``sum p_i log q_i``).

    ``q_i = p_i / (1 + x (a_i - mean))``; ``x`` is found by bisection.  The mean
    must lie strictly between the smallest and largest value of positive
    probability, or no such distribution exists (``SprtError``)."""
    if len(values) != len(probabilities) or not values:
        raise SprtError("constrained_mle needs one probability per value")
    shifts = [value - mean for value in values]
    support = [d for d, p in zip(shifts, probabilities, strict=True) if p > 0]
    if not support or not min(support) < 0.0 < max(support):
        raise SprtError(
            f"no distribution on the observed scores has mean {mean}: it must lie strictly between the lowest and highest score observed"
        )
    terms = [(p, d) for p, d in zip(probabilities, shifts, strict=True) if p > 0]

    def slope(x: float) -> float:  # falls strictly from +inf to -inf on (low, high)
        return sum(p * d / (1.0 + x * d) for p, d in terms)

    low, high = -1.0 / max(support), -1.0 / min(support)  # the poles around the root
    for _ in range(2000):  # each step halves the bracket; stops when floats run out
        middle = 0.5 * (low + high)
        if not low < middle < high:
            break
        if slope(middle) > 0.0:
            low = middle
        else:
            high = middle
    x = 0.5 * (low + high)
    q = [p / (1.0 + x * d) if p > 0 else 0.0 for p, d in zip(probabilities, shifts, strict=True)]
    total = sum(q)  # 1 at the exact root; dividing removes the rounding left
    return [value / total for value in q]


def llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 (Elo difference ``elo1``) against
    H0 (``elo0``) for pentanomial ``counts`` (pairs scoring 0, 0.5, 1, 1.5, 2)."""
    observed = _checked(counts)
    if sum(observed) == 0:
        return 0.0
    regular = [count if count > 0 else REGULARIZATION for count in observed]
    n = sum(regular)
    p = [count / n for count in regular]
    q0 = constrained_mle(GAME_SCORES, p, expected_score(elo0))
    q1 = constrained_mle(GAME_SCORES, p, expected_score(elo1))
    return n * sum(pi * math.log(b / a) for pi, a, b in zip(p, q0, q1, strict=True))


class ScoreInterval(NamedTuple):
    """NEW's mean score per game (a drawn game counting 1/2) with its 95% interval."""

    score: float
    low: float
    high: float


def score_interval(counts: Sequence[float]) -> ScoreInterval:
    """NEW's mean game score and 95% interval from pentanomial ``counts``: the
    spread is that of pair scores (pairs are the independent draws), not of games.
    With no spread (every pair scored the same) the ends are NaN."""
    observed = _checked(counts)
    n = sum(observed)
    if n == 0:
        raise SprtError("no pairs played: no score estimate")
    mean = sum(count * a for count, a in zip(observed, GAME_SCORES, strict=True)) / n
    variance = sum(count * (a - mean) ** 2 for count, a in zip(observed, GAME_SCORES, strict=True))
    if variance == 0.0:
        return ScoreInterval(mean, math.nan, math.nan)
    error = math.sqrt(variance / n / n)
    low = min(1.0, max(0.0, mean - _Z95 * error))
    high = min(1.0, max(0.0, mean + _Z95 * error))
    return ScoreInterval(mean, low, high)


def elo_estimate(counts: Sequence[float]) -> EloEstimate:
    """NEW's Elo difference and 95% confidence interval from pentanomial ``counts``."""
    score, low, high = score_interval(counts)
    elo = elo_from_score(score) + 0.0  # + 0.0: no "-0.0"
    if math.isnan(low):
        return EloEstimate(elo, math.nan, math.nan)
    return EloEstimate(elo, elo_from_score(low) + 0.0, elo_from_score(high) + 0.0)


class SequentialTest:
    """An SPRT fed one pair score at a time (``add``), until a bound is crossed.

    ``elo0 < elo1`` are Elo differences of NEW over OLD.  H1 says NEW is better by
    ``elo1``, H0 that it is better by ``elo0`` only (or worse)."""

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> None:
        if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
            raise SprtError(f"elo0 must be below elo1 (both finite), got {elo0} and {elo1}")
        self.elo0 = elo0
        self.elo1 = elo1
        self.alpha = alpha
        self.beta = beta
        self.lower, self.upper = bounds(alpha, beta)
        self.counts = [0] * 5
        self.llr = 0.0
        self.verdict = Verdict.CONTINUE

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """NEW's game wins so far (draws count 1/2), out of ``2 * pairs`` games."""
        return sum(count * value for count, value in zip(self.counts, PAIR_SCORES, strict=True))

    def add(self, pair_score: float) -> Verdict:
        """Count one pair (NEW's game wins in it: 0, 0.5, 1, 1.5 or 2) and say whether
        to go on.  After a verdict the test is over: adding raises ``SprtError``."""
        if self.verdict is not Verdict.CONTINUE:
            raise SprtError(f"the test is over ({self.verdict.value} accepted): start a new one")
        self.counts[_category(pair_score)] += 1
        self.llr = llr(self.counts, self.elo0, self.elo1)
        if self.llr <= self.lower:
            self.verdict = Verdict.H0
        elif self.llr >= self.upper:
            self.verdict = Verdict.H1
        return self.verdict

    def estimate(self) -> EloEstimate:
        return elo_estimate(self.counts)


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (draws may count as half)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


class EloSummary(NamedTuple):
    """The first bot's Elo difference over the second, its 95% interval, and its LOS."""

    elo: float
    low: float  # the 95% interval's ends (+-inf past a score of 0 or 1; NaN without spread)
    high: float
    los: float  # probability that the first bot is the stronger (draws ignored)

    @property
    def error(self) -> float:
        """Half the interval's width: the "+-" of cutechess."""
        return (self.high - self.low) / 2


def elo_summary(wins: int, losses: int, draws: int) -> EloSummary:
    """Elo from the mean game score, the error from the spread of game scores (the
    games of a match are independent draws), the LOS from wins against losses."""
    games = wins + losses + draws
    if games == 0:
        return EloSummary(math.nan, math.nan, math.nan, math.nan)
    score = (wins + 0.5 * draws) / games
    variance = (wins * (1 - score) ** 2 + losses * score**2 + draws * (0.5 - score) ** 2) / games
    elo = elo_from_score(score) + 0.0
    low = high = math.nan
    if variance > 0.0:
        margin = _Z95 * math.sqrt(variance / games)
        low = elo_from_score(max(0.0, score - margin)) + 0.0
        high = elo_from_score(min(1.0, score + margin)) + 0.0
    decisive = wins + losses
    los = 0.5 if decisive == 0 else 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2 * decisive))
    return EloSummary(elo, low, high, los)


def sign_test(wins: int, losses: int) -> float:
    """The exact two-sided binomial sign test: the p-value of ``wins`` against ``losses``
    (ties left out beforehand) under the hypothesis that each decided game goes either
    way with probability 1/2.  Two-sided by doubling the smaller tail, capped at 1:
    ``p = min(1, 2 P(X <= min(wins, losses)))`` with ``X ~ Binomial(wins + losses, 1/2)``
    (9-1: 22/1024 = 0.02148).  No decided game: 1.  Exact in integers up to the one
    division, so it holds for any number of games."""
    if wins < 0 or losses < 0:
        raise ValueError(f"a sign test counts games: got {wins} wins and {losses} losses")
    games = wins + losses
    if games == 0:
        return 1.0
    tail = sum(math.comb(games, k) for k in range(min(wins, losses) + 1))
    return min(1.0, 2 * tail / (1 << games))
