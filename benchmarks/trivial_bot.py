"""A trivial bot for benchmarks: always the first legal action, no conversion at all."""

from __future__ import annotations

from typing import Any

from arena.sdk import Bot, Decision, serve


class FirstLegal(Bot):
    name = "first-legal"
    games = ("*",)

    def decide(self, decision: Decision) -> Any:
        return 0  # an index: the SDK converts nothing when the bot reads nothing


if __name__ == "__main__":
    serve(FirstLegal())
