"""Weng-Lin ratings with the ``openskill`` package: the Plackett-Luce model.

Weng and Lin's Bayesian approximation (JMLR 12, 2011) updates a Gaussian rating in
closed form, without TrueSkill's factor-graph message passing: the ``openskill``
package is MIT-licensed (TrueSkill is patented) and its authors measure its updates
8-21 times faster.  Plackett-Luce models a finishing order of any number of players
directly (each place is a choice among those not yet placed), which is what a
multi-seat Rummy game gives: ``benchmarks/bench_ratings.py`` measures both systems.

The parameters are the package's defaults, on TrueSkill's scale (mu 25, sigma 25/3,
beta 25/6, tau 25/300), so ``mu - 3 sigma`` means the same on either leaderboard.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from arena.ratings.system import Rating, RatingSystemName, check_result

__all__ = ["OpenSkill"]


@dataclass(frozen=True, slots=True)
class OpenSkill:
    """The Weng-Lin Plackett-Luce rating system (a :class:`~arena.ratings.RatingSystem`)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    kappa: float = 0.0001  # keeps a posterior variance positive (the package's default)
    tau: float = 25.0 / 300  # added to sigma before each update, as TrueSkill's tau

    @property
    def name(self) -> RatingSystemName:
        return RatingSystemName.OPENSKILL

    def initial(self) -> Rating:
        return Rating(self.mu, self.sigma)

    def rate(self, ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
        check_result(ratings, ranks)
        model = _model(self)
        teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
        rated = model.rate(teams, ranks=[float(rank) for rank in ranks])
        return [Rating(team[0].mu, team[0].sigma) for team in rated]


@functools.cache
def _model(system: OpenSkill) -> PlackettLuce:
    """One model per parameter set (its construction is most of a 2-seat update's cost)."""
    return PlackettLuce(
        mu=system.mu, sigma=system.sigma, beta=system.beta, kappa=system.kappa, tau=system.tau
    )
