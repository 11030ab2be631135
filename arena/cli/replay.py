"""``arena replay FILE``: print a replay hand by hand, ``--verify`` it, or show what one
seat saw (``--seat N``); ``--game G`` and ``--hand K`` narrow any listing.  With
``--seat N``: ``--ask BOT`` asks a bot that seat's decisions again (``--at G.H.S``
only one, shown in full), ``--save POS.json`` writes ``--at``'s decision as a position
for ``arena ask``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.cli.ask import add_asking_options, bot_starter, decision_block
from arena.cli.bot_options import plugins_from_args
from arena.plugins import PluginSet
from arena.protocol.commitment import RevealCheck
from arena.replays.ask import (
    AskedDecision,
    Asker,
    AskReport,
    NewAnswer,
    SeatStream,
    Verdict,
    ask_stream,
    load_for_asking,
    position_at,
    seat_stream,
)
from arena.replays.files import ReplayError, read_replay
from arena.replays.positions import Coordinates
from arena.replays.records import (
    ActionRecord,
    DealRecord,
    FaultRecordLine,
    GameEndRecord,
    GameStartRecord,
    HandEndRecord,
    MatchEndRecord,
    MatchHeader,
    Record,
    RevealRecord,
)
from arena.replays.seat_view import Deal, check_selection, dealt_hands, seat_view
from arena.replays.verify import check_seed, verify_replay

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
    parser.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help=(
            "what seat N saw (seats numbered from 0, as listed and as each bot is told): "
            "its hand and view at each decision, its choice, time and comment"
        ),
    )
    parser.add_argument(
        "--game", type=int, metavar="G", help="only game G (numbered from 1, as listed)"
    )
    parser.add_argument(
        "--hand", type=int, metavar="K", help="only hand K of each game (numbered from 1)"
    )
    parser.add_argument(
        "--ask",
        metavar="BOT",
        help="with --seat N: send BOT (named as for arena match, started as it starts bots) "
        "the messages seat N was sent, ask it each of the seat's decisions, and print "
        "those it answers differently, then a summary",
    )
    parser.add_argument(
        "--at",
        metavar="G.H.S",
        help="with --seat N: only the seat's decision at game G, hand H, step S (its S-th "
        "decision in the hand; all from 1), shown in full",
    )
    parser.add_argument(
        "--save",
        type=Path,
        metavar="POS",
        help="with --seat N --at G.H.S: write that decision as a position file (its "
        "messages, rules and recorded answer) for arena ask",
    )
    # How --ask starts its bot, and --repeat; also a plugin's game, read back through
    # its plugin.
    add_asking_options(parser)
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    # Games and hands are shown from 1 (as arena play and arena match show them); the
    # records count from 0.
    if args.game is not None:
        args.game -= 1
    if args.hand is not None:
        args.hand -= 1
    narrowed = args.seat is not None or args.game is not None or args.hand is not None
    if args.verify and narrowed:
        raise ReplayError("--verify checks the whole replay: it takes no --seat, --game or --hand")
    plugins = plugins_from_args(args)
    find = plugins.game
    if args.ask is not None or args.at is not None or args.save is not None:
        return _run_ask(args, plugins)
    if args.repeat != 1:
        raise ReplayError("--repeat asks again: it goes with --ask BOT --seat N")
    if args.seat is not None:
        for line in seat_view(args.file, args.seat, game=args.game, hand=args.hand, find=find):
            print(line)
        return 0
    if args.verify:
        problems = verify_replay(args.file, find)
        seed = check_seed(read_replay(args.file).records)
        for problem in problems:
            print(f"{args.file}: {problem}")
        if seed.status is not RevealCheck.MISMATCH:  # a mismatch is among the problems
            print(f"{args.file}: {seed}")
        if problems:
            count = len(problems)
            print(f"{args.file}: {count} disagreement{'s' * (count != 1)} with the engine")
            return 1
        print(f"{args.file}: verified, the engine agrees with every record")
        return 0
    records = read_replay(args.file).records
    check_selection(args.file, records, None, args.game, args.hand)
    names: list[str] = []
    deals = dealt_hands(records, find)
    hand = -1  # the hand of the last deal: an action's own "hand" field is not used,
    # since the action that ends a hand is recorded with the next hand's number
    opening: list[ActionRecord] = []  # the hand's actions so far, up to its first two
    for record in records:
        if isinstance(record, DealRecord):
            hand = record.hand
            opening = []
        elif isinstance(record, GameStartRecord):
            hand = -1
        if _selected(record, hand, args.game, args.hand):
            _print_record(record, names, deals)
            if isinstance(record, ActionRecord) and len(opening) < 2:
                opening.append(record)
                if [step.action for step in opening] == ["pass", "pass"]:
                    # Gin's first turn: both passed the upcard, so the rules draw from
                    # the stock for the non-dealer (who passed first); no action records it.
                    who = names[opening[0].seat]
                    print(f"    {who:>12}: draw stock (by the rules: both passed the upcard)")
    return 0


def _selected(record: Record, hand: int, only_game: int | None, only_hand: int | None) -> bool:
    """Is the record, in hand ``hand`` of its game, part of game ``only_game`` and hand
    ``only_hand`` (None: any)?  The header always is; the match end only when nothing
    is left out; a game's end only when no hand is picked."""
    if isinstance(record, MatchHeader):
        return True
    if isinstance(record, MatchEndRecord):
        return only_game is None and only_hand is None
    game = only_game if isinstance(record, RevealRecord) else record.game  # reveal: no game
    if only_game is not None and game != only_game:
        return False
    if only_hand is None:
        return True
    if isinstance(record, GameStartRecord | GameEndRecord):
        return isinstance(record, GameStartRecord)  # the game's heading, for context
    return hand == only_hand


def _print_record(record: Record, names: list[str], deals: dict[tuple[int, int], Deal]) -> None:
    if isinstance(record, MatchHeader):
        names.extend(player["name"] for player in record.players)
        players = ", ".join(
            f"seat {i}: {p['name']} {p['version']} (sandbox {p['sandbox']})"
            for i, p in enumerate(record.players)
        )
        seed = "not revealed" if record.seed is None else record.seed
        print(
            f"match {record.match_id}: {record.game_id}, seed {seed}, {record.games} game{'s' * (record.games != 1)}, faults: {record.fault_policy}"
        )
        print(f"  {players}")
    elif isinstance(record, GameStartRecord):
        seed = "not revealed yet" if record.seed is None else record.seed
        print(f"\ngame {record.game + 1} (seed {seed})")
    elif isinstance(record, DealRecord):
        deal = deals.get((record.game, record.hand))
        if deal is None and record.deck is None:  # the match is not over
            print(
                f"  hand {record.hand + 1}: {names[record.dealer]} deals (cards not revealed yet)"
            )
            return
        if deal is None:  # the engine could not re-play the game this far
            print(
                f"  hand {record.hand + 1}: {names[record.dealer]} deals (run --verify: the engine disagrees)"
            )
            return
        print(f"  hand {record.hand + 1}: {names[record.dealer]} deals; upcard {deal.upcard}")
        for seat, cards in enumerate(deal.hands):
            print(f"    seat {seat} holds {' '.join(cards) or 'nothing (out of the game)'}")
    elif isinstance(record, ActionRecord):
        flag = " (replaced by the referee)" if record.replaced else ""
        comment = f"  # {record.comment}" if record.comment else ""
        print(f"    {names[record.seat]:>12}: {record.action}{flag}  [{record.ms:.2f} ms]{comment}")
    elif isinstance(record, FaultRecordLine):
        who = names[record.seat] if 0 <= record.seat < len(names) else f"seat {record.seat}"
        print(f"    FAULT {who}: {record.status}: {record.reason} -> {record.consequence}")
    elif isinstance(record, HandEndRecord):
        result = record.result
        winner = "nobody" if result["winner"] is None else names[result["winner"]]
        print(
            f"  hand {record.hand + 1} ends: {result['termination']}, {winner} scores {result['points']}"
        )
        for seat, info in enumerate(result["seats"]):
            melds = " ".join(info["melds"]) or "-"
            layoffs = f" layoffs {' '.join(info['layoffs'])}" if info["layoffs"] else ""
            # Gin records the cards outside melds and their deadwood; Rummy the cards
            # left in hand and their penalty.
            left = info.get("unmatched", info.get("hand")) or "-"
            value = info.get("deadwood", info.get("penalty"))
            print(f"    {names[seat]:>12}: melds {melds}; unmatched {left} ({value}){layoffs}")
    elif isinstance(record, GameEndRecord):
        winner = "nobody" if record.winner is None else names[record.winner]
        print(
            f"game {record.game + 1} over ({record.reason}): scores {list(record.scores)}, winner {winner}"
        )
    elif isinstance(record, MatchEndRecord):
        bots = record.result["bots"]
        print(
            "\n"
            + ", ".join(
                f"{b['name']}: {b['wins']} wins, {b['points']} points, {b['faults']} faults"
                for b in bots
            )
        )


# -- asking a bot again -----------------------------------------------------------------


def _run_ask(args: argparse.Namespace, plugins: PluginSet) -> int:
    if args.seat is None:
        raise ReplayError("--ask, --at and --save are about one seat's decisions: add --seat N")
    if args.verify or args.game is not None or args.hand is not None:
        raise ReplayError(
            "--ask, --at and --save take no --verify, --game or --hand (--at G.H.S picks one)"
        )
    if args.save is not None and args.at is None:
        raise ReplayError("--save writes one decision: add --at G.H.S")
    if args.repeat < 1:
        raise ReplayError(f"--repeat must be at least 1, got {args.repeat}")
    if args.repeat != 1 and args.ask is None:
        raise ReplayError("--repeat asks again: it goes with --ask BOT")
    at = Coordinates.parse(args.at) if args.at is not None else None
    replay, spec = load_for_asking(args.file, args.seat, plugins.game)
    stream = seat_stream(replay, spec, args.seat)
    decision = stream.find(at) if at is not None else None
    if args.save is not None and decision is not None:
        position_at(stream, decision).write(args.save)
        recorded = decision.recorded.action or decision.recorded.fault
        print(f"{args.save}: seat {args.seat}'s decision {decision.at}, recorded {recorded}")
    if args.ask is None:
        if args.save is None:  # --at alone: show the decision as recorded
            assert decision is not None
            for line in _block(stream, decision, [], full=True):
                print(line)
        return 0
    start = bot_starter(
        args, plugins, args.ask, spec.id, int(stream.header.time_control.get("startup_ms", 10_000))
    )
    with Asker(start) as asker:
        report = ask_stream(stream, asker, at=decision, repeat=args.repeat)
    for result in report.results:
        if decision is not None or result.answer.verdict is not Verdict.SAME or not result.steady:
            for line in _block(stream, result.decision, result.answers, full=decision is not None):
                print(line)
            print()
    print(_summary(stream, args.ask, report, args.repeat))
    return 0


def _block(
    stream: SeatStream, decision: AskedDecision, answers: Sequence[NewAnswer], *, full: bool
) -> list[str]:
    labels = stream.labels
    verdict = answers[0].verdict.value if answers else "as recorded"
    if len(answers) > 1 and len({(a.verdict, a.action) for a in answers}) > 1:
        verdict += f"; answered differently over {len(answers)} asks"
    heading = (
        f"game {decision.at.game}, hand {decision.at.hand}, step {decision.at.step} "
        f"(request {decision.request_id}): {verdict}"
    )
    return decision_block(
        heading,
        stream.spec.id,
        stream.request(decision),
        stream.seat,
        lambda seat: labels[seat] if 0 <= seat < len(labels) else f"seat {seat}",
        decision.recorded,
        answers,
        full=full,
    )


def _summary(stream: SeatStream, bot: str, report: AskReport, repeat: int) -> str:
    name = stream.header.players[stream.seat]["name"]
    line = f"seat {stream.seat} ({name}) asked again of {bot}: {report.summary()}"
    if repeat > 1:
        unsteady = report.unsteady
        if unsteady:
            first = unsteady[0].decision.at
            line += (
                f"; answered the same question differently at {len(unsteady)} "
                f"decision{'s' * (len(unsteady) != 1)} over {repeat} asks (first: {first})"
            )
        else:
            line += f"; the same answer every time over {repeat} asks"
    return line
