"""``arena replay FILE``: print a replay hand by hand, or ``--verify`` it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.referee.replay import read_replay, verify_replay

__all__ = ["register"]


def register(commands: Any) -> None:
    parser = commands.add_parser("replay", help="print or verify a match replay")
    parser.add_argument(
        "file", type=Path, help="a replay (.jsonl) written by arena match --replays"
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="re-play it through the engine and report disagreements",
    )
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    if args.verify:
        problems = verify_replay(args.file)
        for problem in problems:
            print(f"{args.file}: {problem}")
        if problems:
            print(f"{args.file}: {len(problems)} disagreement(s) with the engine")
            return 1
        print(f"{args.file}: verified, the engine agrees with every record")
        return 0
    names: list[str] = []
    for record in read_replay(args.file):
        _print_record(record, names)
    return 0


def _print_record(record: dict[str, Any], names: list[str]) -> None:
    kind = record["type"]
    if kind == "match":
        names.extend(player["name"] for player in record["players"])
        players = ", ".join(
            f"seat {i}: {p['name']} {p['version']} (sandbox {p['sandbox']})"
            for i, p in enumerate(record["players"])
        )
        print(
            f"match {record['match_id']}: {record['game_id']}, seed {record['seed']}, {record['games']} game(s), faults: {record['fault_policy']}"
        )
        print(f"  {players}")
    elif kind == "game":
        print(f"\ngame {record['game']} (seed {record['seed']})")
    elif kind == "deal":
        deck = record["deck"]
        print(f"  hand {record['hand']}: {names[record['dealer']]} deals; upcard {deck[20]}")
        print(f"    seat {1 - record['dealer']} holds {' '.join(deck[0:20:2])}")
        print(f"    seat {record['dealer']} holds {' '.join(deck[1:20:2])}")
    elif kind == "action":
        flag = " (replaced by the referee)" if record.get("replaced") else ""
        comment = f"  # {record['comment']}" if record.get("comment") else ""
        print(
            f"    {names[record['seat']]:>12}: {record['action']}{flag}  [{record['ms']:.2f} ms]{comment}"
        )
    elif kind == "fault":
        who = (
            names[record["seat"]] if 0 <= record["seat"] < len(names) else f"seat {record['seat']}"
        )
        print(f"    FAULT {who}: {record['status']}: {record['reason']} -> {record['consequence']}")
    elif kind == "hand_end":
        result = record["result"]
        winner = "nobody" if result["winner"] is None else names[result["winner"]]
        print(
            f"  hand {record['hand']} ends: {result['termination']}, {winner} scores {result['points']}"
        )
        for seat, info in enumerate(result["seats"]):
            melds = " ".join(info["melds"]) or "-"
            layoffs = f" layoffs {' '.join(info['layoffs'])}" if info["layoffs"] else ""
            print(
                f"    {names[seat]:>12}: melds {melds}; unmatched {info['unmatched'] or '-'} ({info['deadwood']}){layoffs}"
            )
    elif kind == "game_end":
        winner = "nobody" if record["winner"] is None else names[record["winner"]]
        print(
            f"game {record['game']} over ({record['reason']}): scores {record['scores']}, winner {winner}"
        )
    elif kind == "match_end":
        bots = record["result"]["bots"]
        print(
            "\n"
            + ", ".join(
                f"{b['name']}: {b['wins']} wins, {b['points']} points, {b['faults']} faults"
                for b in bots
            )
        )
