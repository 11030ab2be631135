"""A learner's seat in a game driven by ids, the opponents playing in between: what the
Gymnasium environments and the vector environment step.

Compiled by mypyc in the compiled copy (tools/compiled.py, LEARN_HOT) with the vector
environment's loops over its games, which call the compiled ``GinCore`` natively."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, cast

from arena.envs._core import EncodeInto, FloatArray, GameCore, MaskArray, Opponent, normalise
from arena.envs._gin import TAIL_F32, GinCore
from arena.games.gin_rummy import encoding as enc

__all__ = ["Solo", "gin_batch", "gin_batch_into", "step_games"]


class Solo:
    """One learner seat in a ``GameCore``; the opponents play in between."""

    def __init__(self, core: GameCore, seat: int, opponents: Sequence[Opponent | None]) -> None:
        self.core = core
        self.seat = seat
        self.opponents = list(opponents)  # by seat; None at the learner's
        self._hand = -1
        self.match_seed = 0
        self.decisions = 0  # every seat's, since made (what a benchmark counts)

    def reset(self, match_seed: int) -> float:
        self.match_seed = match_seed
        self._hand = -1
        for seat, opponent in enumerate(self.opponents):
            if opponent is not None:
                opponent.rng = random.Random(f"{match_seed}:{seat}")
        self.core.new_game(match_seed)
        return self._advance()

    def _advance(self) -> float:
        """Let the opponents play until the learner is to act or the game is over;
        the learner's reward from their moves."""
        core = self.core
        total = 0.0
        game = core.game
        while True:
            hand = game.hand
            if hand.hand_number != self._hand and game.summary is None:
                self._hand = hand.hand_number
                for opponent in self.opponents:
                    if opponent is not None and opponent.new_hand is not None:
                        opponent.new_hand()
            seat = core.to_act()
            if seat is None or seat == self.seat:
                return total
            opponent = self.opponents[seat]
            assert opponent is not None and opponent.rng is not None
            self.decisions += 1
            if opponent.policy is None:  # an id from the mask: legal, no need to check it
                raw = core.apply(core.action_of(_random_id(core.legal_mask(), opponent.rng)))
            else:
                raw = core.apply(opponent.act(hand.observation(seat), hand.legal_actions()))
            if raw is not None:
                total += self._mine(raw)

    def _mine(self, raw: list[float] | None) -> float:
        if raw is None:
            return 0.0
        core = self.core
        values = raw if core.options.reward == "raw" else normalise(raw, core.target)
        return float(values[self.seat])

    def step(self, ident: int) -> float:
        self.decisions += 1
        reward = self._mine(self.core.step(ident))
        return reward + self._advance()


def _random_id(legal: int, rng: random.Random) -> int:
    """``rng.choice`` of the ids set in ``legal`` (the same draw: ``randrange(n)`` and
    ``choice`` of ``n`` ids both take ``rng._randbelow(n)``), without listing them: the
    lowest set bit after clearing that many."""
    for _ in range(rng.randrange(legal.bit_count())):
        legal &= legal - 1
    return (legal & -legal).bit_length() - 1


def step_games(
    solos: list[Solo], ids: list[Any], restart: list[bool], seed_step: int
) -> tuple[list[float], list[bool]]:
    """Step each game with its id (a game to restart is reset to its seed +
    ``seed_step`` instead): each learner's reward and whether its game ended."""
    n = len(solos)
    rewards = [0.0] * n
    ended = [False] * n
    for i in range(n):
        solo = solos[i]
        if restart[i]:
            solo.reset(solo.match_seed + seed_step)
            continue
        rewards[i] = solo.step(int(ids[i]))
        ended[i] = solo.core.is_over()
    return rewards, ended


def gin_batch(solos: list[Solo], size: int, rlcard: bool) -> tuple[bytes, bytes]:
    """Each Gin game's planes and legal ids as one int's ``size`` bytes (``enc.packed``),
    end to end, and (the arena encoding) each one's tail as float32s, end to end."""
    packed: list[bytes] = []
    tails: list[bytes] = []
    for solo in solos:
        core = cast(GinCore, solo.core)
        seat = solo.seat
        legal = core.legal_mask_of(seat)
        packed.append(enc.packed(core.planes(seat), legal).to_bytes(size, "little"))
        if not rlcard:
            tails.append(TAIL_F32.pack(*core.tail(seat)))
    return b"".join(packed), b"".join(tails)


def gin_batch_into(
    solos: list[Solo],
    observations: FloatArray,
    masks: MaskArray,
    rlcard: bool,
    encode_into: EncodeInto,
) -> None:
    """Each Gin game's observation and mask written into its row of ``observations``
    (games x cells) and ``masks`` by the C kernel (``_core.ENCODE_INTO``)."""
    for row in range(len(solos)):
        solo = solos[row]
        core = cast(GinCore, solo.core)
        seat = solo.seat
        legal = core.legal_mask_of(seat)
        tail = None if rlcard else core.tail(seat)
        encode_into(observations, masks, row, core.planes(seat), legal, tail)
