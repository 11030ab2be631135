"""The reference bots worth beating: ``search`` (Gin Rummy) and ``strong-rummy``
(Basic Rummy, 2 to 6 seats).  Registered with the built-in bots; also servable on
their own with a budget (the registered ``search`` plays the default one)::

    python -m arena.bots.serve search --playouts 800 --max-ms 900 --address unix:/tmp/s.sock

which a manifest can name (``command = ["{python}", "-m", "arena.bots.serve",
"search", "--playouts", "800"]``); ``--objective hand`` plays for hands won rather than
points (matches of single hands).  A budget out of range is refused at start, with
the valid range in the message.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
from collections.abc import Sequence
from typing import Any

from arena.games.gin_rummy import Action as GinAction
from arena.games.gin_rummy import GinObservation
from arena.policies.search_gin import PARAM_RANGES, Objective, SearchParams, SearchPolicy
from arena.policies.strong_rummy import StrongRummyPolicy
from arena.proto import bot_pb2 as pb
from arena.sdk import Bot, Decision, serve

__all__ = ["SearchBot", "StrongRummyBot", "main"]


def _rule(message: pb.MatchStart, name: str, default: int) -> int:
    text = message.rules.get(name, "")
    return int(text) if text.lstrip("-").isdigit() else default


class SearchBot(Bot[GinObservation, GinAction]):
    """Determinised Monte Carlo search: samples the opponent's hand from what he
    showed and plays each candidate out with the engine's meld and layoff logic
    (``arena.policies.search_gin``)."""

    name = "search"
    author = "Rummy Arena"
    version = "1.0"
    games = ("gin-rummy/*",)

    def __init__(self, seed: int = 0, params: SearchParams | None = None) -> None:
        self.seed = seed
        self.params = params or SearchParams()
        self.rng = random.Random(seed)
        self.policy = SearchPolicy(self.params)

    def on_match_start(self, message: pb.MatchStart) -> None:
        self.rng = random.Random(f"{self.seed}:{message.seat}")
        params = self.params
        decision_ms = message.time_control.decision_ms
        if decision_ms and params.max_ms > decision_ms / 2:
            # Keep within the free time per decision, with half of it to spare.
            params = dataclasses.replace(params, max_ms=max(1.0, decision_ms / 2))
        self.policy = SearchPolicy(
            params,
            gin_bonus=_rule(message, "gin_bonus", 25),
            undercut_bonus=_rule(message, "undercut_bonus", 25),
        )

    def on_hand_start(self, message: pb.HandStart) -> None:
        self.policy.new_hand()

    def decide(self, decision: Decision[GinObservation, GinAction]) -> GinAction:
        return self.policy(decision.observation, decision.legal_actions, self.rng)


class StrongRummyBot(Bot[Any, Any]):
    """Basic Rummy: plans its melds and lay-offs, keeps what others want out of the
    pile, sheds high cards as the others near going out
    (``arena.policies.strong_rummy``)."""

    name = "strong-rummy"
    author = "Rummy Arena"
    version = "1.0"
    games = ("rummy/*",)

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.policy = StrongRummyPolicy()

    def on_match_start(self, message: pb.MatchStart) -> None:
        self.rng = random.Random(f"{self.seed}:{message.seat}")
        self.policy = StrongRummyPolicy()

    def decide(self, decision: Decision[Any, Any]) -> Any:
        return self.policy(decision.observation, decision.legal_actions, self.rng)


def _bounded(name: str, kind: type) -> Any:
    low, high = PARAM_RANGES[name]

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be {kind.__name__} in {low:g}..{high:g}, got {text!r}"
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be in {low:g}..{high:g}, got {text!r}")
        return value

    return parse


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m arena.bots.serve", description="serve a reference bot with its options"
    )
    parser.add_argument("bot", choices=["search", "strong-rummy"])
    defaults = SearchParams()
    parser.add_argument(
        "--playouts",
        type=_bounded("playouts", int),
        default=defaults.playouts,
        help=f"search: hands played out per decision (default {defaults.playouts})",
    )
    parser.add_argument(
        "--max-ms",
        type=_bounded("max_ms", float),
        default=defaults.max_ms,
        help=f"search: cap on a decision's time, ms (default {defaults.max_ms:g})",
    )
    parser.add_argument(
        "--candidates",
        type=_bounded("candidates", int),
        default=defaults.candidates,
        help=f"search: discards searched (default {defaults.candidates})",
    )
    parser.add_argument(
        "--objective",
        choices=[member.value for member in Objective],
        default=defaults.objective.value,
        help="search: play for points (game, the default) or hands won (hand)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--address")
    args = parser.parse_args(argv)
    bot: Bot[Any, Any]
    if args.bot == "search":
        params = SearchParams(
            args.playouts, args.max_ms, args.candidates, Objective(args.objective)
        )
        bot = SearchBot(args.seed, params)
    else:
        bot = StrongRummyBot(args.seed)
    serve(bot, address=args.address, argv=[])
