"""Gin Rummy driven by action ids: the game, the encodings, the rewards.

Compiled by mypyc in the compiled copy (tools/compiled.py, LEARN_HOT): a step's glue
around the encoder, so its types stay precise."""

from __future__ import annotations

import struct
from dataclasses import fields
from typing import Any, Final

import numpy as np

from arena.envs._core import (
    ENCODE,
    EnvConfigError,
    EnvOptions,
    FloatArray,
    MaskArray,
    game_seed,
    legal_error,
    split_options,
)
from arena.games.base import IllegalActionError
from arena.games.gin_rummy import CLASSIC, PRESETS, STANDARD, GinGame, GinRules, Phase
from arena.games.gin_rummy import encoding as enc
from arena.games.gin_rummy.actions import Action, Discard, Draw, DrawSource, Pass
from arena.games.gin_rummy.observation import VisibleState

__all__ = ["ENCODINGS", "GIN_PRESETS", "GinCore", "gin_rules"]

GIN_PRESETS: Final[dict[str, GinRules]] = {
    "standard": STANDARD,
    "classic": CLASSIC,
    # Oklahoma Gin on the standard scores (RULES.md, Gin Rummy options).
    "oklahoma": PRESETS["oklahoma"],
}
ENCODINGS: Final = ("arena", "rlcard")
RULE_NAMES: Final = tuple(f.name for f in fields(GinRules) if f.name != "name")

ARENA_OBS: Final = enc.OBSERVATION_SIZE  # ten mask planes, the pile order, the scalars
RLCARD_OBS: Final = (5, 52)
TAIL_F32: Final = struct.Struct(f"{ARENA_OBS - enc.PILE_ORDER_AT}f")  # native float32s


def gin_rules(preset: str, options: dict[str, Any]) -> tuple[GinRules, EnvOptions]:
    """The rules and environment options of ``preset`` + ``options``; a bad name or
    value is an ``EnvConfigError`` naming the valid ones."""
    if preset not in GIN_PRESETS:
        raise EnvConfigError(
            f"unknown Gin Rummy preset {preset!r}; presets: {', '.join(GIN_PRESETS)}"
        )
    rule_values, env_options = split_options(options, RULE_NAMES, "Gin Rummy")
    try:
        rules = GinRules.from_mapping(rule_values, GIN_PRESETS[preset])
    except (ValueError, TypeError) as error:
        raise EnvConfigError(str(error)) from None
    return rules, env_options


class GinCore:
    """One Gin Rummy game played by ids in one encoding (``arena`` or ``rlcard``)."""

    num_seats = 2

    def __init__(self, rules: GinRules, options: EnvOptions, encoding: str = "arena") -> None:
        if encoding not in ENCODINGS:
            raise EnvConfigError(
                f"unknown encoding {encoding!r}; encodings: {', '.join(ENCODINGS)}"
            )
        self.rules = rules
        self.options = options
        self.encoding = encoding
        self.rlcard = encoding == "rlcard"
        self.num_actions = enc.RLCARD_ACTIONS if self.rlcard else enc.ACTIONS
        self.obs_shape: tuple[int, ...] = RLCARD_OBS if self.rlcard else (ARENA_OBS,)
        self.obs_high = 1.0
        self.target = rules.target
        self.game: GinGame = GinGame(rules, 0)
        self.refused = [0, 0]
        self.discarded = [0, 0]
        self._hands_seen = 0
        self._given = [0.0, 0.0]
        self.match_seed = 0
        # What the current position shows, built once per position (an observation and
        # a step both need the view and the legal ids): reset by every action.
        self._views: list[VisibleState | None] = [None, None]
        self._legal: int | None = None
        # The pile's mask and indices, followed from position to position.
        self._pile = enc.PileFacts()

    # -- the game --------------------------------------------------------------------

    def new_game(self, match_seed: int) -> None:
        self.match_seed = match_seed
        self.game = GinGame(
            self.rules,
            game_seed(match_seed),
            max_deals=self.options.max_deals,
            single_hand=self.options.hands_only,
        )
        self.refused = [0, 0]
        self.discarded = [0, 0]
        self._hands_seen = 0
        self._given = [0.0, 0.0]
        self._views = [None, None]
        self._legal = None
        self._auto()

    def to_act(self) -> int | None:
        return self.game.current_seat()

    def is_over(self) -> bool:
        return self.game.summary is not None

    def view(self, seat: int) -> VisibleState:
        view = self._views[seat]
        if view is None:
            view = self._views[seat] = self.game.hand.visible(seat)
        return view

    def legal_mask(self) -> int:
        legal = self._legal
        if legal is None:
            seat = self.game.current_seat()
            if seat is None:
                legal = 0
            elif self.rlcard:
                legal = enc.rlcard_legal_ids(self.game.hand, self.view(seat))
            else:
                legal = enc.legal_ids(self.game.hand, self.view(seat))
            self._legal = legal
        return legal

    def legal_mask_of(self, seat: int) -> int:
        """``seat``'s legal ids: the legal mask if it is to act, else none."""
        return self.legal_mask() if self.game.current_seat() == seat else 0

    def action_of(self, ident: int) -> Action:
        hand = self.game.hand
        return enc.rlcard_action(hand, ident) if self.rlcard else enc.arena_action(hand, ident)

    def step(self, ident: int) -> list[float] | None:
        """Play id ``ident``: ``IllegalActionIdError`` (nothing changes) if not legal."""
        if not 0 <= ident < self.num_actions:
            raise legal_error(self, ident, None)
        if not self.legal_mask() >> ident & 1:
            # The engine checks everything before it changes anything: its error
            # names the rule this id breaks.
            try:
                self.game.apply(self.action_of(ident))
            except (IllegalActionError, ValueError) as error:
                raise legal_error(self, ident, error) from None
            raise AssertionError(f"action id {ident} was played although not in the mask")
        return self.apply(self.action_of(ident))

    def apply(self, action: Action) -> list[float] | None:
        """Play an engine action (an opponent's); raw rewards if a hand ended."""
        game = self.game
        # type() is: the engine's action classes have no subclasses (and it is cheaper).
        if type(action) is Discard:  # a knock's discard is face down
            seat = game.hand.current_seat()
            assert seat is not None
            self.discarded[seat] |= 1 << action.card.index
        elif type(action) is Pass or (type(action) is Draw and action.source is DrawSource.STOCK):
            seat = game.hand.current_seat()
            assert seat is not None
            pile = self.view(seat).discard_pile
            if pile:
                self.refused[seat] |= 1 << pile[-1].index
        game.apply(action)
        self._views = [None, None]
        self._legal = None
        rewards = None if len(game.results) == self._hands_seen else self._rewards()
        if self.rlcard:
            self._auto()
        return rewards

    def _auto(self) -> None:
        # RLCard has no defence to choose (it scores the hand itself): in that encoding
        # the defender's best defence is played for him.
        if self.rlcard:
            game = self.game
            while game.summary is None and game.hand.phase is Phase.DEFEND:
                self.apply(game.hand.legal_actions()[0])

    def _rewards(self) -> list[float] | None:
        game = self.game
        if len(game.results) == self._hands_seen:
            return None
        self._hands_seen = len(game.results)
        result = game.results[-1]
        raw = [float(result.seats[0].points), float(result.seats[1].points)]
        if game.summary is not None:
            # The outcome's scores (with the box and game bonuses) are what the
            # rewards must sum to.
            scores = game.outcome().scores
            raw = [scores[s] - self._given[s] for s in (0, 1)]
        else:
            self.refused = [0, 0]
            self.discarded = [0, 0]
        self._given = [self._given[0] + raw[0], self._given[1] + raw[1]]
        return raw

    # -- what a seat sees --------------------------------------------------------------

    def planes(self, seat: int) -> tuple[int, ...]:
        """The observation's mask planes for ``seat`` (the batchable part)."""
        view = self.view(seat)
        pile = self._pile.update(view.discard_pile)
        if self.rlcard:
            if self.game.summary is not None:
                return (0, 0, 0, 0, 0)  # as RLCard's observation of a finished game
            return enc.rlcard_planes(view, pile)
        return enc.view_planes(view, self.refused[1 - seat], self.discarded[1 - seat], pile)

    def tail(self, seat: int) -> list[float]:
        """The observation's non-mask part (the pile order and the scalars)."""
        hand = self.game.hand
        view = self.view(seat)
        return enc.tail(
            seat,
            view,
            hand.dealer,
            hand.knock_limit,
            hand.doubled,
            hand.scores,
            self.target,
            self._pile.update(view.discard_pile),
        )

    def observe(self, seat: int) -> FloatArray:
        return self.observe_masked(seat)[0]

    def observe_masked(self, seat: int) -> tuple[FloatArray, MaskArray]:
        """The observation of ``seat`` and its action mask (all zeros if another seat is
        to act).  In the compiled copy the C kernel writes both arrays in one call
        (``_core.ENCODE``): 0.5 us where the numpy calls below take 3.9 (timeit, a
        mid-hand position, views and ids built).  Without it: one int (the planes end
        to end, then the legal ids) turned into bits by one numpy call, cast to float32
        at once, and the tail's float32 bytes (one struct call) written over its end."""
        planes = self.planes(seat)
        legal = self.legal_mask_of(seat)
        if ENCODE is not None:
            return ENCODE(planes, legal, self.num_actions, None if self.rlcard else self.tail(seat))
        bits = enc.packed(planes, legal)
        cells = 52 * len(planes)  # 520, or 260 (RLCard's)
        size = (cells + self.num_actions + 7) // 8
        raw = np.frombuffer(bits.to_bytes(size, "little"), np.uint8)
        flat = np.unpackbits(raw, None, None, "little")  # bitorder: by keyword 0.2 us more
        mask = np.frombuffer(flat, np.int8, self.num_actions, cells)  # a view, as int8
        if self.rlcard:
            return flat[:cells].astype(np.float32).reshape(RLCARD_OBS), mask
        out = flat[:ARENA_OBS].astype(np.float32)  # the ids' bits past the planes...
        out[cells:] = np.frombuffer(TAIL_F32.pack(*self.tail(seat)), np.float32)  # ...replaced
        return out, mask

    def render(self) -> str:
        game = self.game
        hand = game.hand
        lines = [
            f"Gin Rummy ({self.rules.name}), match seed {self.match_seed}, hand {hand.hand_number}, "
            f"dealer {hand.dealer}, scores {game.totals[0]}-{game.totals[1]}",
        ]
        for seat in (0, 1):
            lines.append(f"  seat {seat}: {hand.hand_of(seat)}")
        view = hand.visible(0)
        top = view.discard_pile[-1] if view.discard_pile else "-"
        lines.append(
            f"  discard pile top {top} ({len(view.discard_pile)} cards), stock {view.stock_size}, "
            f"phase {view.phase.value}, to act {view.to_act}"
        )
        if game.summary is not None:
            lines.append(f"  game over: final {game.summary.final}, winner {game.summary.winner}")
        return "\n".join(lines)
