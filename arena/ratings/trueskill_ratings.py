"""Ratings with the ``trueskill`` package: every bot is a team of one.

A 1v1 result is a finishing order of two; a multi-seat game gives the finishing
order of all its seats (free-for-all).  Ties share a rank.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import trueskill

from arena.ratings.system import Rating, RatingSystemName, check_result

__all__ = ["DEFAULT_ENV", "Rating", "RatingEnv", "match_quality", "rate"]


@dataclass(frozen=True, slots=True)
class RatingEnv:
    """TrueSkill's parameters (the package defaults, with its 10% draw probability):
    the TrueSkill rating system (a :class:`~arena.ratings.RatingSystem`)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.10

    @property
    def name(self) -> RatingSystemName:
        return RatingSystemName.TRUESKILL

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

    def rate(self, ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
        """New ratings after one result: ``ranks[i]`` is player i's place (0 first)."""
        check_result(ratings, ranks)
        model = _model(self)
        teams = [(model.create_rating(r.mu, r.sigma),) for r in ratings]
        rated = model.rate(teams, ranks=list(ranks))
        return [Rating(team[0].mu, team[0].sigma) for team in rated]


@functools.cache
def _model(env: RatingEnv) -> trueskill.TrueSkill:
    """One TrueSkill environment per parameter set, made once (not at every update)."""
    return env.trueskill()


DEFAULT_ENV = RatingEnv()


def rate(
    ratings: Sequence[Rating], ranks: Sequence[int], env: RatingEnv = DEFAULT_ENV
) -> list[Rating]:
    """New ratings after one result: ``ranks[i]`` is player i's place (0 first)."""
    return env.rate(ratings, ranks)


def match_quality(ratings: Sequence[Rating], env: RatingEnv = DEFAULT_ENV) -> float:
    """TrueSkill's draw probability of this line-up: high when the outcome is uncertain."""
    model = _model(env)
    return float(model.quality([(model.create_rating(r.mu, r.sigma),) for r in ratings]))
