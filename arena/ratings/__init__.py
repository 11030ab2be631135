"""Ratings: TrueSkill (the default) or Weng-Lin (OpenSkill's Plackett-Luce), behind one
interface (:class:`RatingSystem`); 1v1 and free-for-all from a finishing order."""

from arena.ratings.system import (
    Rating,
    RatingSystem,
    RatingSystemName,
    UnknownRatingSystem,
    system_name,
)
from arena.ratings.trueskill_ratings import DEFAULT_ENV, RatingEnv, match_quality, rate

__all__ = [
    "DEFAULT_ENV",
    "SYSTEM_NAMES",
    "Rating",
    "RatingEnv",
    "RatingSystem",
    "RatingSystemName",
    "UnknownRatingSystem",
    "match_quality",
    "rate",
    "rating_system",
    "system_name",
]

#: The names ``[ratings] system`` and ``arena ladder rerate --system`` accept.
SYSTEM_NAMES = tuple(item.value for item in RatingSystemName)


def rating_system(name: str) -> RatingSystem:
    """The rating system of this name, with its default parameters; a one-line
    :class:`UnknownRatingSystem` for any other name."""
    if system_name(name) is RatingSystemName.OPENSKILL:
        from arena.ratings.openskill_ratings import OpenSkill  # its import only when used

        return OpenSkill()
    return DEFAULT_ENV
