"""TrueSkill ratings: 1v1 and free-for-all from a finishing order."""

from arena.ratings.trueskill_ratings import DEFAULT_ENV, Rating, RatingEnv, match_quality, rate

__all__ = ["DEFAULT_ENV", "Rating", "RatingEnv", "match_quality", "rate"]
