"""Hand-built deals that make specific decisions arise, for ``arena check``.

Each ``Scenario`` seats the bot under test against a ``ScriptedOpponent`` in a deal
written card by card, built so that the decision it is about comes up whatever
legal choices the bot makes (a gin on the first turn is offered whether the bot
takes the upcard or the stock card; the opponent knocks on its first turn with
cards the bot can lay off...).  Two Gin scenarios start late in a hand: the
engine plays the first turns itself (both players throw back every card they
draw) until the stock is nearly empty, then the referee takes over.  Such a hand
is still dealt from its deck order, and the bot's first request lists every
event from the deal on.

A scenario runs as a one-game match of its own ``GameSpec``: the registered rule
set (same id, same rules) whose ``new_game`` deals the scenario instead of a
seeded shuffle.  ``verify`` reads what the bot was asked and answered and says
whether the scenario did its job (faults are judged by the caller).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.cards import CardSet
from arena.conformance.scripted import ScriptedOpponent
from arena.games import gin_rummy as gin
from arena.games import rummy
from arena.games.gin_rummy.scenario import deck_order as gin_deck_order
from arena.games.rummy.scenario import deck_order as rummy_deck_order
from arena.games.spec import GameSpec
from arena.proto import bot_pb2 as pb
from arena.protocol import codec_for

__all__ = ["Asked", "Scenario", "Transcript", "gin_scenarios", "rummy_scenarios", "scenario_spec"]


# -- what the bot was asked ---------------------------------------------------------


@dataclass
class Asked:
    """One decision request sent to the bot under test, and its reply (``None``: none came)."""

    request: pb.DecisionRequest
    reply: pb.DecisionReply | None = None
    seconds: float = 0.0

    @property
    def phase(self) -> str:
        """``FIRST_UPCARD``, ``DRAW``, ..."""
        return str(pb.Phase.Name(self.request.observation.phase)).removeprefix("PHASE_")


@dataclass
class Transcript:
    """Everything the bot under test was sent in one scenario match, and its answers."""

    game_id: str
    seat: int
    asked: list[Asked] = field(default_factory=list)
    lifecycle: list[pb.RefereeMessage] = field(default_factory=list)

    @property
    def codec(self) -> Any:
        return codec_for(self.game_id)

    def legal(self, asked: Asked) -> list[Any]:
        return [self.codec.action_from_proto(action) for action in asked.request.legal_actions]

    def observation(self, asked: Asked) -> Any:
        return self.codec.observation_from_proto(asked.request.observation)

    def answer(self, asked: Asked) -> str:
        """The bot's answer in text form (``"?"`` when there is none or it is unreadable)."""
        reply = asked.reply
        if reply is None:
            return "?"
        try:
            if reply.WhichOneof("choice") == "legal_index":
                return str(
                    self.codec.action_from_proto(asked.request.legal_actions[reply.legal_index])
                )
            if reply.WhichOneof("choice") == "action":
                return str(self.codec.action_from_proto(reply.action))
        except (ValueError, IndexError):
            pass
        return "?"

    def hand_ends(self) -> list[pb.HandEnd]:
        return [m.hand_end for m in self.lifecycle if m.WhichOneof("body") == "hand_end"]

    def hand_starts(self) -> list[pb.HandStart]:
        return [m.hand_start for m in self.lifecycle if m.WhichOneof("body") == "hand_start"]

    def summary(self) -> str:
        """``asked FIRST_UPCARD, DISCARD x3, DEFEND``: the phases in the order first asked."""
        counts: dict[str, int] = {}
        for asked in self.asked:
            counts[asked.phase] = counts.get(asked.phase, 0) + 1
        parts = [phase if n == 1 else f"{phase} x{n}" for phase, n in counts.items()]
        return "asked " + (", ".join(parts) if parts else "nothing")


Verdict = tuple[bool, str]  # (the scenario did its job, what happened)


# -- scenarios ----------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """A deal by seat, who deals, the opponent's script, and how to judge the result.

    ``bot_seat`` is the bot under test's seat; the scripted opponent has the other
    (Basic Rummy scenarios are for two players).  ``hands`` maps seat -> cards.
    ``throw_back_until``: the engine plays both players' turns (each throws back
    what it draws) until the stock holds that many cards.  ``later_deals``: seeded
    deals played after the scripted one (a game of ``1 + later_deals`` deals).
    """

    name: str
    purpose: str
    family: str
    bot_seat: int
    dealer: int
    hands: dict[int, str]
    upcard: str
    stock: str = ""
    script: tuple[str, ...] = ()
    take_upcard: bool = False
    knock: bool = True
    throw_back_until: int | None = None
    later_deals: int = 0
    applies: Callable[[Any], bool] = field(default=lambda rules: True)
    verify: Callable[[Transcript], Verdict] = field(default=lambda t: (True, t.summary()))

    def opponent(self) -> ScriptedOpponent:
        return ScriptedOpponent(self.script, take_upcard=self.take_upcard, knock=self.knock)

    def first_hand(self, rules: Any) -> Any:
        """The scripted hand (Gin Rummy) after the turns the engine plays itself."""
        dealer = self.dealer
        deck = gin_deck_order(self.hands[1 - dealer], self.hands[dealer], self.upcard, self.stock)
        hand = gin.GinHand(rules, deck, dealer)
        if self.throw_back_until is not None:
            _throw_back(hand, self.throw_back_until)
        return hand


def _throw_back(hand: gin.GinHand, stock: int) -> None:
    """Both pass the upcard; then every draw is from the stock and thrown straight back."""
    first = hand.current_seat()
    assert first is not None
    before = hand.hand_of(first)
    hand.apply(gin.PASS)
    hand.apply(gin.PASS)  # the non-dealer has drawn from the stock
    (drawn,) = hand.hand_of(first) - before
    hand.apply(gin.discard(drawn))
    while hand.stock_size > stock:
        seat = hand.current_seat()
        assert seat is not None
        before = hand.hand_of(seat)
        hand.apply(gin.DRAW_STOCK)
        (drawn,) = hand.hand_of(seat) - before
        hand.apply(gin.discard(drawn))


class _ScenarioGinGame(gin.GinGame):
    def __init__(self, rules: gin.GinRules, scenario: Scenario, seed: int) -> None:
        self._scenario = scenario
        super().__init__(
            rules,
            seed,
            first_dealer=scenario.dealer,
            max_deals=1 + scenario.later_deals,
            single_hand=scenario.later_deals == 0,
        )

    def _deal(self, dealer: int) -> gin.GinHand:
        if self.results:
            return super()._deal(dealer)
        return self._scenario.first_hand(self.rules)  # type: ignore[no-any-return]


class _ScenarioRummyGame(rummy.RummyGame):
    def __init__(self, rules: rummy.RummyRules, scenario: Scenario, seed: int) -> None:
        self._scenario = scenario
        super().__init__(
            rules,
            seed,
            2,
            first_dealer=scenario.dealer,
            max_deals=1 + scenario.later_deals,
            single_hand=scenario.later_deals == 0,
        )

    def _deck(self, number: int, players: Sequence[int], dealer: int) -> Sequence[rummy.RummyCard]:
        if number:
            return super()._deck(number, players, dealer)
        s = self._scenario
        return rummy_deck_order(self.rules, s.hands, dealer, s.upcard, s.stock)


def scenario_spec(spec: GameSpec, scenario: Scenario) -> GameSpec:
    """``spec`` (same id and rules) dealing ``scenario`` instead of seeded shuffles."""

    def new_game(
        seed: int, seats: int, *, hands_only: bool = False, max_deals: int = 0
    ) -> gin.GinGame | rummy.RummyGame:
        rules = spec.rules
        if isinstance(rules, rummy.RummyRules):
            return _ScenarioRummyGame(rules, scenario, seed)
        assert isinstance(rules, gin.GinRules), f"no scenarios for {spec.id}"
        return _ScenarioGinGame(rules, scenario, seed)

    return GameSpec(spec.id, spec.description, 2, 2, spec.rules, new_game)


# -- Gin Rummy ----------------------------------------------------------------------

# Three melds and a king: after any draw the knock leaves at most 10 (any limit >= 10
# ... the opponent knocks on its first turn).
_NEAR_KNOCK = "AH 2H 3H 4D 5D 6D 7S 8S 9S KC"
# No two cards a meld apart: nothing the bot draws in a turn or two lets it knock.
_JUNK = "2C 4C 6C 8C TC 3D QD 9H JH 5S"


def _first_turn(t: Transcript) -> list[Asked]:
    """The requests of the bot's first turn of the first hand (up to its first discard)."""
    out = []
    for asked in t.asked:
        if asked.request.observation.hand_number != 0:
            break
        out.append(asked)
        if asked.phase == "DISCARD":
            break
    return out


def _first(t: Transcript, phase: str) -> Asked | None:
    return next((asked for asked in t.asked if asked.phase == phase), None)


def _missing(phase: str, t: Transcript) -> Verdict:
    return False, f"never asked {phase} ({t.summary()}): the scenario did not arise"


def _verify_upcard(dealer: bool) -> Callable[[Transcript], Verdict]:
    role = "dealer" if dealer else "non-dealer"

    def verify(t: Transcript) -> Verdict:
        for asked in t.asked:
            if (
                asked.phase == "FIRST_UPCARD"
                and (asked.request.observation.dealer == t.seat) is dealer
            ):
                return True, f"asked FIRST_UPCARD as {role}: {t.answer(asked)}; {t.summary()}"
        return _missing(f"FIRST_UPCARD as {role}", t)

    return verify


def _knocks(t: Transcript, asked: Asked) -> list[tuple[gin.Knock, int]]:
    """The knocks listed in a request, each with its deadwood."""
    hand: CardSet = t.observation(asked).hand
    out = []
    for action in t.legal(asked):
        if isinstance(action, gin.Knock):
            melded = CardSet()
            for meld in action.melds:
                melded = melded | meld.cards
            out.append((action, (hand - melded).remove(action.card).value))
    return out


def _verify_first_turn_knock(gin_wanted: bool) -> Callable[[Transcript], Verdict]:
    what = "gin" if gin_wanted else "a knock"

    def verify(t: Transcript) -> Verdict:
        for asked in _first_turn(t):
            if asked.phase != "DISCARD":
                continue
            offered = [
                knock for knock, deadwood in _knocks(t, asked) if (deadwood == 0) is gin_wanted
            ]
            if not offered:
                break
            answer = t.answer(asked)
            took = "took it" if answer.startswith("knock") else "did not take it (legal)"
            return True, f"offered {what} on its first turn, {took}: {answer}"
        return False, f"was not offered {what} on its first turn ({t.summary()})"

    return verify


def _verify_layoffs(t: Transcript) -> Verdict:
    asked = _first(t, "DEFEND")
    if asked is None:
        return _missing("DEFEND", t)
    with_layoffs = [a for a in t.legal(asked) if isinstance(a, gin.Defend) and a.layoffs]
    if not with_layoffs:
        return False, "asked DEFEND without layoff options: the scenario did not arise"
    return True, (
        f"asked DEFEND with {len(t.legal(asked))} defences ({len(with_layoffs)} with layoffs): "
        f"{t.answer(asked)}"
    )


def _verify_stock_end(t: Transcript) -> Verdict:
    ends = t.hand_ends()
    if not ends or ends[0].termination != gin.Termination.DRAW.value:
        how = ends[0].termination if ends else "no HandEnd"
        return False, f"the first hand did not end at the stock's end ({how}; {t.summary()})"
    first = t.asked[0] if t.asked else None
    if first is None or first.request.observation.stock_size != 3:
        return _missing("DRAW with 3 cards in the stock", t)
    later = [a for a in t.asked if a.request.observation.hand_number == 1]
    if len(t.hand_starts()) < 2 or not later:
        return False, "was not asked anything in the hand dealt after the drawn hand"
    return True, (
        f"drew with 3 cards left ({t.answer(first)}), the hand was drawn at 2 left, "
        f"then played on in the next deal ({len(later)} decisions)"
    )


def _verify_last_discard(t: Transcript) -> Verdict:
    asked = _first(t, "LAST_DISCARD")
    if asked is None:
        return _missing("LAST_DISCARD", t)
    if gin.DRAW_DISCARD not in t.legal(asked):
        return False, "asked LAST_DISCARD without the option to take it: the scenario did not arise"
    answer = t.answer(asked)
    then = ""
    if answer == str(gin.DRAW_DISCARD):
        knock = next((a for a in t.asked[t.asked.index(asked) + 1 :] if a.phase == "DISCARD"), None)
        then = f", then {t.answer(knock)}" if knock is not None else ""
    return True, f"asked LAST_DISCARD (it could knock with it): {answer}{then}"


def gin_scenarios() -> list[Scenario]:
    """Every Gin Rummy scenario (``applies`` says which rule sets each needs)."""
    return [
        Scenario(
            "first-upcard-non-dealer",
            "the first upcard is offered to the non-dealer first",
            "gin-rummy",
            bot_seat=0,
            dealer=1,
            hands={0: _JUNK, 1: _NEAR_KNOCK},
            upcard="KH",
            stock="7D",
            verify=_verify_upcard(dealer=False),
        ),
        Scenario(
            "first-upcard-dealer",
            "the non-dealer passes the first upcard: the dealer is offered it",
            "gin-rummy",
            bot_seat=1,
            dealer=1,
            hands={0: _NEAR_KNOCK, 1: _JUNK},
            upcard="KH",
            stock="7D",
            verify=_verify_upcard(dealer=True),
        ),
        Scenario(
            "gin-first-turn",
            "the upcard and the stock card both complete a gin on the first turn",
            "gin-rummy",
            bot_seat=1,
            dealer=0,
            hands={1: "2C 3C 4C 5D 6D 7D 9H 9S 9D KS", 0: "AH 3H 5H 7H JC QS 2S 4S 6S TD"},
            upcard="9C",
            stock="8D",
            verify=_verify_first_turn_knock(gin_wanted=True),
        ),
        Scenario(
            "knock-first-turn",
            "the upcard and the stock card both allow a knock (not gin) on the first turn",
            "gin-rummy",
            bot_seat=0,
            dealer=1,
            hands={0: "2C 3C 4C 5D 6D 7D 9H 9S 9D AS", 1: "AH 3H 5H 7H JC QS 4S 6S TD 8H"},
            upcard="2S",
            stock="3S",
            verify=_verify_first_turn_knock(gin_wanted=False),
        ),
        Scenario(
            "defend-layoffs",
            "the opponent takes the upcard and knocks; the bot holds cards to lay off",
            "gin-rummy",
            bot_seat=0,
            dealer=0,
            hands={1: "5H 6H 7H 9C 9D 9S JD QD KD KC", 0: "4H 8H 9H TD 3C 6C 8C JS AS QH"},
            upcard="2D",
            take_upcard=True,
            verify=_verify_layoffs,
        ),
        Scenario(
            "stock-end",
            "a hand that runs to two cards left in the stock, then the next deal",
            "gin-rummy",
            bot_seat=1,
            dealer=0,
            hands={1: _JUNK, 0: "AH 3H 5H 7H JC QS 2S 4S 6S TD"},
            upcard="KH",
            throw_back_until=3,
            later_deals=1,
            verify=_verify_stock_end,
        ),
        Scenario(
            "last-discard",
            "with two cards left the opponent discards a card the bot can knock with",
            "gin-rummy",
            bot_seat=0,
            dealer=0,
            hands={0: "2C 3C 4C 5D 6D 7D 9H 9S KC QC", 1: "9D AH 3H 5H 7H JC 4S 6S TD 8H"},
            upcard="KH",
            script=("discard 9D",),
            throw_back_until=3,
            applies=lambda rules: bool(rules.last_discard),
            verify=_verify_last_discard,
        ),
    ]


# -- Basic Rummy --------------------------------------------------------------------


def _verify_offered(kind: type, what: str) -> Callable[[Transcript], Verdict]:
    def verify(t: Transcript) -> Verdict:
        for asked in t.asked:
            if asked.phase == "PLAY" and any(isinstance(a, kind) for a in t.legal(asked)):
                return True, f"offered {what}: {t.answer(asked)}; {t.summary()}"
        return False, f"was never offered {what} ({t.summary()}): the scenario did not arise"

    return verify


def _verify_going_out(t: Transcript) -> Verdict:
    offered, detail = _verify_offered(rummy.LayMeld, "a meld")(t)
    if not offered:
        return offered, detail
    ends = t.hand_ends()
    out = bool(ends) and ends[0].winner == t.seat and ends[0].termination in ("out", "rummy")
    went = "went out" if out else "did not go out (legal: it may keep its cards)"
    return True, f"could go out on its first turn and {went}; {t.summary()}"


def rummy_scenarios() -> list[Scenario]:
    """Every Basic Rummy scenario (two players)."""
    return [
        Scenario(
            "meld",
            "the bot is dealt a set and a run: it is offered melds",
            "rummy",
            bot_seat=0,
            dealer=1,
            hands={0: "7C 7D 7S 3H 4H 5H 9C JD KS QC", 1: "AD 4C 6D 8H TS 3S 5C 9D JH KD"},
            upcard="8C",
            stock="6S",
            verify=_verify_offered(rummy.LayMeld, "a meld"),
        ),
        Scenario(
            "layoff",
            "the opponent lays down a set of kings; the bot holds the fourth",
            "rummy",
            bot_seat=1,
            dealer=1,
            hands={0: "KC KD KH 4C 6D 8H TS 3S 5C 9D", 1: "KS 7C 9H JD 3D 5H AS QC 6C TH"},
            upcard="8C",
            stock="6S QH",
            script=("meld KC-KD-KH",),
            verify=_verify_offered(rummy.LayOff, "a layoff"),
        ),
        Scenario(
            "going-out",
            "the upcard and the stock card both let the bot meld every card but one, and go out",
            "rummy",
            bot_seat=0,
            dealer=1,
            hands={0: "4C 5C 6C 8D 8H 8S JH QH KH 9C", 1: "AD 6D TS 3S 5D 9D JC KD AH 4S"},
            upcard="3C",
            stock="7C",
            verify=_verify_going_out,
        ),
        Scenario(
            "swap-joker",
            "the opponent melds with a joker standing for the 9H the bot holds",
            "rummy",
            bot_seat=1,
            dealer=1,
            hands={0: "9C 9D JK 4C 6D 8H TS 3S 5C KD", 1: "9H 7C JD 3D 5H AS QC 6C TH KS"},
            upcard="8C",
            stock="6S QH",
            script=("meld 9C-9D-JK=9H",),
            applies=lambda rules: rules.wild is rummy.Wild.JOKERS,
            verify=_verify_offered(rummy.SwapJoker, "a swap for the joker"),
        ),
        Scenario(
            "swap-deuce",
            "the opponent melds with a wild deuce standing for the 9H the bot holds",
            "rummy",
            bot_seat=1,
            dealer=1,
            hands={0: "9C 9D 2S 4C 6D 8H TS 3S 5C KD", 1: "9H 7C JD 3D 5H AS QC 6C TH KS"},
            upcard="8C",
            stock="6S QH",
            script=("meld 9C-9D-2S=9H",),
            applies=lambda rules: rules.wild is rummy.Wild.DEUCES,
            verify=_verify_offered(rummy.SwapJoker, "a swap for the wild deuce"),
        ),
    ]
