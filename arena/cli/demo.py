"""``arena demo``: one game between two built-in policies, printed hand by hand."""

from __future__ import annotations

import argparse
import random
from typing import Any

from arena.games.gin_rummy import PRESETS, GinGame, HandResult, Termination
from arena.policies import greedy_gin, random_gin

__all__ = ["register"]

_POLICIES = {"greedy": greedy_gin, "random": random_gin}


def register(commands: Any) -> None:
    parser = commands.add_parser("demo", help="play one Gin Rummy game between built-in policies")
    parser.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    parser.add_argument(
        "--rules",
        choices=sorted(PRESETS),
        default="standard",
        help="Gin rule set (default standard)",
    )
    parser.add_argument(
        "--players",
        nargs=2,
        choices=sorted(_POLICIES),
        default=["greedy", "random"],
        help="the two policies that play (default greedy random)",
    )
    parser.set_defaults(run=_run)


def _describe(number: int, result: HandResult, names: list[str]) -> str:
    if result.termination is Termination.DRAW:
        return f"hand {number:2}: draw (stock ran down to two cards)"
    assert result.winner is not None and result.knocker is not None
    knocker = result.seats[result.knocker]
    melds = " ".join(str(meld) for meld in knocker.melds)
    how = result.termination.value
    return (
        f"hand {number:2}: {names[result.knocker]} knocks with {knocker.deadwood} [{melds}], "
        f"{how}: {names[result.winner]} scores {result.points}"
    )


def _run(args: argparse.Namespace) -> int:
    if args.seed < 0:
        raise ValueError(f"--seed must be non-negative, got {args.seed}")
    names = [f"{name}#{seat}" for seat, name in enumerate(args.players)]
    policies = [_POLICIES[name] for name in args.players]
    game = GinGame(PRESETS[args.rules], args.seed, max_deals=200)
    rng = random.Random(args.seed)
    print(f"Gin Rummy ({args.rules} rules), seed {args.seed}: {names[0]} vs {names[1]}")
    while not game.is_terminal():
        seat = game.current_seat()
        assert seat is not None
        before = len(game.results)
        game.apply(policies[seat](game.observation(seat), game.legal_actions(), rng))
        if len(game.results) > before:
            print(_describe(before + 1, game.results[-1], names))
    summary = game.summary
    assert summary is not None
    for seat in (0, 1):
        print(
            f"{names[seat]:>10}: {summary.totals[seat]:4} points, {summary.hands_won[seat]} hands won, "
            f"box {summary.box_bonus[seat]}, game bonus {summary.game_bonus[seat]}, final {summary.final[seat]}"
        )
    winner = (
        "nobody (deal limit reached, tied)" if summary.winner is None else names[summary.winner]
    )
    print(f"winner: {winner}")
    return 0
