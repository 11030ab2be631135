"""Ratings with the ``trueskill`` package: every bot is a team of one.

A 1v1 result is a finishing order of two; a multi-seat game gives the finishing
order of all its seats (free-for-all).  Ties share a rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import trueskill

__all__ = ["DEFAULT_ENV", "Rating", "RatingEnv", "match_quality", "rate"]


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: what the leaderboard sorts by (99.7% sure the skill is above)."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class RatingEnv:
    """TrueSkill's parameters (the package defaults, with its 10% draw probability)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.10

    def trueskill(self) -> trueskill.TrueSkill:
        return trueskill.TrueSkill(
            mu=self.mu,
            sigma=self.sigma,
            beta=self.beta,
            tau=self.tau,
            draw_probability=self.draw_probability,
        )

    def initial(self) -> Rating:
        return Rating(self.mu, self.sigma)


DEFAULT_ENV = RatingEnv()


def rate(
    ratings: Sequence[Rating], ranks: Sequence[int], env: RatingEnv = DEFAULT_ENV
) -> list[Rating]:
    """New ratings after one result: ``ranks[i]`` is player i's place (0 first)."""
    if len(ratings) != len(ranks) or len(ratings) < 2:
        raise ValueError(
            f"need two or more ratings with one rank each, got {len(ratings)} and {len(ranks)}"
        )
    model = env.trueskill()
    teams = [(model.create_rating(r.mu, r.sigma),) for r in ratings]
    rated = model.rate(teams, ranks=list(ranks))
    return [Rating(team[0].mu, team[0].sigma) for team in rated]


def match_quality(ratings: Sequence[Rating], env: RatingEnv = DEFAULT_ENV) -> float:
    """TrueSkill's draw probability of this line-up: high when the outcome is uncertain."""
    model = env.trueskill()
    return float(model.quality([(model.create_rating(r.mu, r.sigma),) for r in ratings]))
