"""Basic Rummy (2-6 seats) driven by action ids: the id space, the planes, the rewards.

Ids (docs/ENVS.md): 0 draw from the stock, 1 take the discard, 2+f discard face f
(0..51 the natural cards, 52 the joker), 55+f lay off face f, 108+c swap natural card
c for the wild card standing for it, 160+k lay down meld k of ``MELDS`` (a meld is
named by the natural cards it holds or stands for).  Where the engine lists several
actions with one id (a layoff on two melds, a meld with a joker or with a deuce),
the id plays the first one listed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import fields
from itertools import combinations_with_replacement
from typing import Any, Final

import numpy as np

from arena.cards import Card
from arena.cards.masks import bits
from arena.envs._core import (
    EnvConfigError,
    EnvOptions,
    FloatArray,
    MaskArray,
    game_seed,
    legal_error,
    seat_mask,
    split_options,
)
from arena.games.base import IllegalActionError
from arena.games.rummy import (
    DRAW_DISCARD,
    DRAW_STOCK,
    Action,
    Discard,
    Draw,
    DrawSource,
    LayMeld,
    LayOff,
    RummyGame,
    SwapJoker,
)
from arena.games.rummy.cards import FACES
from arena.games.rummy.rules import PRESETS, RummyRules, Scoring

__all__ = ["MELDS", "RummyCore", "rummy_rules"]

RULE_NAMES: Final = tuple(f.name for f in fields(RummyRules) if f.name != "name")
FACE_COUNT: Final = 53
DISCARD_BASE: Final = 2
LAYOFF_BASE: Final = DISCARD_BASE + FACE_COUNT
SWAP_BASE: Final = LAYOFF_BASE + FACE_COUNT
MELD_BASE: Final = SWAP_BASE + 52


def _catalogue() -> tuple[tuple[int, ...], ...]:
    """Every natural meld, as the sorted card indices it holds: runs (ace low or high,
    never both ends) then sets (3-4 cards of a rank, any suits, at most two of one)."""
    melds: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for suit in range(4):
        for low in range(12):
            for high in range(low + 2, 14):
                if low == 0 and high == 13:
                    continue  # A..K..A: the ace twice
                cards = tuple(sorted(suit * 13 + rank % 13 for rank in range(low, high + 1)))
                if cards not in seen:
                    seen.add(cards)
                    melds.append(cards)
    for rank in range(13):
        for size in (3, 4):
            for suits in combinations_with_replacement(range(4), size):
                if max(Counter(suits).values()) <= 2:
                    melds.append(tuple(suit * 13 + rank for suit in suits))
    return tuple(melds)


MELDS: Final = _catalogue()
_MELD_ID: Final = {cards: MELD_BASE + k for k, cards in enumerate(MELDS)}
ACTIONS: Final = MELD_BASE + len(MELDS)

PLANES: Final = 17  # of 53 faces: see observe()
SEAT_SCALARS: Final = 5
SCALARS: Final = 6 + 6 * SEAT_SCALARS
OBS_SIZE: Final = PLANES * FACE_COUNT + SCALARS


def action_id(action: Action) -> int:
    if isinstance(action, Draw):
        return 0 if action.source is DrawSource.STOCK else 1
    if isinstance(action, Discard):
        return DISCARD_BASE + action.card.index
    if isinstance(action, LayOff):
        return LAYOFF_BASE + action.card.index
    if isinstance(action, SwapJoker):
        return SWAP_BASE + action.card.index
    naturals = sorted(
        (stands if stands is not None else card).index
        for card, stands in zip(action.cards, action.stands_for, strict=True)
    )
    ident = _MELD_ID.get(tuple(naturals))
    if ident is None:
        raise ValueError(f"{action} is not in the meld catalogue")
    return ident


def rummy_rules(num_players: int, options: dict[str, Any]) -> tuple[RummyRules, EnvOptions]:
    preset = options.pop("preset", "standard")
    if preset not in PRESETS:
        raise EnvConfigError(
            f"unknown Basic Rummy preset {preset!r}; presets: {', '.join(PRESETS)}"
        )
    if type(num_players) is not int or not 2 <= num_players <= 6:
        raise EnvConfigError(f"num_players must be 2, 3, 4, 5 or 6, got {num_players!r}")
    rule_values, env_options = split_options(options, RULE_NAMES, "Basic Rummy")
    try:
        rules = RummyRules.from_mapping(rule_values, PRESETS[preset])
    except (ValueError, TypeError) as error:
        raise EnvConfigError(str(error)) from None
    return rules, env_options


class RummyCore:
    """One Basic Rummy game played by ids."""

    obs_high = 4.0  # face counts: two decks, up to four jokers

    def __init__(self, rules: RummyRules, num_seats: int, options: EnvOptions) -> None:
        self.rules = rules
        self.num_seats = num_seats
        self.options = options
        self.num_actions = ACTIONS
        self.obs_shape: tuple[int, ...] = (OBS_SIZE,)
        self.target = rules.target
        self.match_seed = 0
        self.game = RummyGame(rules, 0, num_seats)
        self.refused = [0] * num_seats
        self._hands_seen = 0
        self._given = [0.0] * num_seats
        self._legal: dict[int, Action] | None = None
        composition = Counter(card.index for card in rules.composition(num_seats))
        self._composition = [composition.get(face, 0) for face in range(FACE_COUNT)]
        self._composition_floats = np.asarray(self._composition, dtype=np.float32)

    def new_game(self, match_seed: int) -> None:
        self.match_seed = match_seed
        self.game = RummyGame(
            self.rules,
            game_seed(match_seed),
            self.num_seats,
            max_deals=self.options.max_deals,
            single_hand=self.options.hands_only,
        )
        self.refused = [0] * self.num_seats
        self._hands_seen = 0
        self._given = [0.0] * self.num_seats
        self._legal = None

    def to_act(self) -> int | None:
        return self.game.current_seat()

    def is_over(self) -> bool:
        return self.game.summary is not None

    def listed(self) -> dict[int, Action]:
        """Each legal id and the action it plays (the first listed with that id)."""
        if self._legal is None:
            legal: dict[int, Action] = {}
            for action in self.game.legal_actions():
                legal.setdefault(action_id(action), action)
            self._legal = legal
        return self._legal

    def legal_mask(self) -> int:
        mask = 0
        for ident in self.listed():
            mask |= 1 << ident
        return mask

    def action_of(self, ident: int) -> Action:
        listed = self.listed().get(ident)
        if listed is not None:
            return listed
        if ident == 0:
            return DRAW_STOCK
        if ident == 1:
            return DRAW_DISCARD
        if DISCARD_BASE <= ident < LAYOFF_BASE:
            return Discard(FACES[ident - DISCARD_BASE])
        if LAYOFF_BASE <= ident < SWAP_BASE:
            return LayOff(FACES[ident - LAYOFF_BASE], 10**6)
        if SWAP_BASE <= ident < MELD_BASE:
            return SwapJoker(Card(ident - SWAP_BASE), 10**6)
        return LayMeld(tuple(FACES[i] for i in MELDS[ident - MELD_BASE]))

    def step(self, ident: int) -> list[float] | None:
        if not 0 <= ident < ACTIONS:
            raise legal_error(self, ident, None)
        action = self.listed().get(ident)
        if action is None:
            # Not listed: the engine (which checks before it changes anything) says
            # which rule the id's action breaks; a layoff or a swap on no meld, or a
            # meld not listed, gets the rule of its kind.
            try:
                self.game.apply(self.action_of(ident))
            except (IllegalActionError, ValueError) as error:
                raise legal_error(self, ident, error) from None
            raise AssertionError(f"action id {ident} was played although not in the mask")
        return self.apply(action)

    def apply(self, action: Action) -> list[float] | None:
        game = self.game
        hand = game.hand
        seat = hand.current_seat()
        assert seat is not None
        if isinstance(action, Draw) and action.source is DrawSource.STOCK and hand.discard_pile:
            self.refused[seat] |= 1 << hand.discard_pile[-1].index
        game.apply(action)
        self._legal = None
        return self._rewards()

    def _rewards(self) -> list[float] | None:
        game = self.game
        if len(game.results) == self._hands_seen:
            return None
        self._hands_seen = len(game.results)
        result = game.results[-1]
        sign = -1.0 if self.rules.scoring is Scoring.STANDARD else 1.0
        raw = [sign * seat.points for seat in result.seats]
        if game.summary is not None:
            # The outcome's scores are what the rewards must sum to.
            scores = game.outcome().scores
            raw = [scores[s] - self._given[s] for s in range(self.num_seats)]
        else:
            self.refused = [0] * self.num_seats
        self._given = [g + r for g, r in zip(self._given, raw, strict=True)]
        return raw

    def observe_masked(self, seat: int) -> tuple[FloatArray, MaskArray]:
        return self.observe(seat), seat_mask(self, seat)

    def observe(self, seat: int) -> FloatArray:
        """17 planes of 53 faces, then the scalars (docs/ENVS.md)."""
        # The cells are listed in Python and written by a few numpy calls (a card
        # counted, a cell set, the scalars): a numpy item assignment a card took 0.1-0.2
        # us each, the most of an observation.
        n = self.num_seats
        obs = self.game.hand.observation(seat)
        counted: list[int] = [card.index for card in obs.hand]  # flat cells, +1 each
        ones: list[int] = []  # flat cells set to 1
        others: list[int] = []  # faces seen besides the hand and the pile
        pile = obs.discard_pile
        if pile:
            ones.append(FACE_COUNT + pile[-1].index)
            counted += [2 * FACE_COUNT + card.index for card in pile[:-1]]
        for meld in obs.table:
            for card, stands in zip(meld.cards, meld.stands_for, strict=True):
                if stands is None:
                    counted.append(3 * FACE_COUNT + card.index)
                else:  # a wild card: counted as the natural, which a swap could take
                    counted.append(3 * FACE_COUNT + stands.index)
                    ones.append(4 * FACE_COUNT + stands.index)
                others.append(card.index)
        if obs.forbidden_discard is not None:
            ones.append(5 * FACE_COUNT + obs.forbidden_discard.index)
        for step in range(1, n):
            other = (seat + step) % n
            known = (5 + step) * FACE_COUNT
            for card in obs.seats[other].known:
                counted.append(known + card.index)
                others.append(card.index)
            refused = (10 + step) * FACE_COUNT
            ones += [refused + face for face in bits(self.refused[other])]
        out = np.zeros(OBS_SIZE, dtype=np.float32)
        cells = out[: PLANES * FACE_COUNT]
        if counted:  # (the cells are zeros: set, which is half the cost of adding)
            cells[:] = np.bincount(counted, minlength=PLANES * FACE_COUNT)
        if ones:
            cells[ones] = 1
        seen = cells[:FACE_COUNT] + cells[FACE_COUNT : 2 * FACE_COUNT]
        seen += cells[2 * FACE_COUNT : 3 * FACE_COUNT]
        if others:
            seen += np.bincount(others, minlength=FACE_COUNT)
        cells[16 * FACE_COUNT :] = np.maximum(self._composition_floats - seen, 0)
        phase = obs.phase.value
        scalars = [
            float(phase == "draw"),
            float(phase == "play"),
            float(obs.to_act == seat),
            obs.stock_size / 108,
            obs.reshuffles / (obs.max_reshuffles + 1),
            float(obs.melded_this_hand),
        ]
        for step in range(n):
            other = (seat + step) % n
            info = obs.seats[other]
            scalars += (
                1.0,
                info.hand_size / 10,
                min(info.score / self.target, 1.0),
                float(info.eliminated),
                float(obs.dealer == other),
            )
        out[PLANES * FACE_COUNT : PLANES * FACE_COUNT + len(scalars)] = scalars
        return out

    def render(self) -> str:
        game = self.game
        hand = game.hand
        lines = [
            f"Basic Rummy ({self.rules.name}, {self.num_seats} seats), match seed {self.match_seed}, "
            f"hand {hand.hand_number}, dealer {hand.dealer}, totals {list(game.totals)}"
        ]
        for seat in range(self.num_seats):
            lines.append(f"  seat {seat}: {' '.join(str(c) for c in hand.hand_of(seat))}")
        for meld in hand.table:
            lines.append(f"  meld {meld.id} (seat {meld.owner}): {meld}")
        pile = hand.discard_pile
        lines.append(
            f"  discard pile top {pile[-1] if pile else '-'} ({len(pile)} cards), "
            f"stock {hand.stock_size}, to act {hand.current_seat()}"
        )
        if game.summary is not None:
            lines.append(f"  game over: {game.outcome()}")
        return "\n".join(lines)
