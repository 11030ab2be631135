"""``arena serve``: a read-only web view and JSON API over ladder databases."""

from arena.web.app import SECURITY_HEADERS, create_app
from arena.web.ladders import Ladder, LadderSet, open_ladders

__all__ = ["SECURITY_HEADERS", "Ladder", "LadderSet", "create_app", "open_ladders"]
