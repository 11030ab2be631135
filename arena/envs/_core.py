"""What the PettingZoo, Gymnasium and vector environments share: options, errors,
rewards, the numpy conversion of bit masks, and the in-process opponents."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from arena.cards import derive_seed
from arena.cards.masks import bits
from arena.errors import ArenaError
from arena.games.base import IllegalActionError

__all__ = [
    "ENCODE",
    "ENCODE_INTO",
    "ENV_OPTIONS",
    "EnvConfigError",
    "EnvOptions",
    "GameCore",
    "IllegalActionIdError",
    "masks_to_array",
    "split_options",
]

FloatArray = npt.NDArray[np.float32]
MaskArray = npt.NDArray[np.int8]


class EnvConfigError(ArenaError, ValueError):
    """A preset, option, seat count or opponent the environment does not have (raised
    when the environment is made, before any reset; the message names the valid ones)."""


class IllegalActionIdError(IllegalActionError):
    """An action id not in the mask: the message names it, the rule broken and the
    legal ids.  ``action`` is the id, ``legal`` the legal ids."""

    def __init__(self, action: int, legal: Sequence[int], reason: str, rule: str = "") -> None:
        shown = ", ".join(str(i) for i in legal)
        super().__init__(f"action {action} is not legal now ({reason}); legal ids: [{shown}]", rule)
        self.action = action
        self.legal = tuple(legal)


#: Options every environment takes besides the rules (docs/ENVS.md, "Options").
ENV_OPTIONS: dict[str, str] = {
    "reward": '"raw" (points, as the score counts them) or "normalised" (zero-sum, / target)',
    "hands_only": "each episode is one deal scored by its hand alone (as arena match --hands)",
    "max_deals": "a game that would not end stops after this many deals (200, as the referee)",
    "terminate_illegal": "an illegal id ends the episode as a loss (TerminateIllegalWrapper)",
    "illegal_reward": "the reward of that loss (-1)",
}
REWARDS = ("raw", "normalised")


@dataclass(frozen=True, slots=True)
class EnvOptions:
    reward: str = "raw"
    hands_only: bool = False
    max_deals: int = 200
    terminate_illegal: bool = False
    illegal_reward: float = -1.0


def split_options(
    options: Mapping[str, Any], rule_names: Sequence[str], game: str
) -> tuple[dict[str, Any], EnvOptions]:
    """Split ``options`` into rule parameters and environment options; anything else
    is refused naming every valid choice."""
    rules: dict[str, Any] = {}
    env: dict[str, Any] = {}
    for key, value in options.items():
        if key in rule_names:
            rules[key] = value
        elif key in ENV_OPTIONS:
            env[key] = value
        else:
            raise EnvConfigError(
                f"unknown {game} option {key!r}; rule options: {', '.join(rule_names)}; "
                f"environment options: {', '.join(ENV_OPTIONS)}"
            )
    result = EnvOptions(**env)
    if result.reward not in REWARDS:
        raise EnvConfigError(f"reward must be one of {', '.join(REWARDS)}, got {result.reward!r}")
    if type(result.hands_only) is not bool or type(result.terminate_illegal) is not bool:
        raise EnvConfigError("hands_only and terminate_illegal must be True or False")
    if type(result.max_deals) is not int or result.max_deals < 0:
        raise EnvConfigError(f"max_deals must be an integer >= 0, got {result.max_deals!r}")
    return rules, result


def game_seed(match_seed: int) -> int:
    """The seed of the game an episode plays: game 0 of a referee match seeded
    ``match_seed`` (``arena match --seed``), so the two deal the same cards."""
    return derive_seed(match_seed, 1, 0)


_UNPACK_WORDS: dict[int, int] = {}


def masks_to_array(masks: Sequence[int], bits: int) -> npt.NDArray[np.uint8]:
    """Int bit masks (each < 2**bits) to a (len(masks), bits) array of 0/1, in one
    numpy call: about 2 us for ten 52-bit masks."""
    width = (bits + 7) // 8
    raw = b"".join([mask.to_bytes(width, "little") for mask in masks])
    flat = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
    return flat.reshape(len(masks), width * 8)[:, :bits]


Encode = Callable[[tuple[int, ...], int, int, list[float] | None], tuple[FloatArray, MaskArray]]
EncodeInto = Callable[[FloatArray, MaskArray, int, tuple[int, ...], int, list[float] | None], None]


def _kernel() -> tuple[Encode | None, EncodeInto | None]:
    """The C kernel's ``encode`` and ``encode_into`` (``_bitplanes.c``: the planes, the
    tail and the legal ids written into new arrays in one call), where it is built:
    in the compiled copy (tools/compiled.py).  Elsewhere (None, None): numpy calls
    make the same arrays."""
    try:
        from arena.envs import _bitplanes
    except ImportError:
        return None, None
    return _bitplanes.encode, _bitplanes.encode_into


ENCODE, ENCODE_INTO = _kernel()


def mask_ids(mask: int) -> list[int]:
    """The ids set in an int mask, ascending (``arena.cards.masks.bits``: compiled)."""
    return list(bits(mask))


class GameCore(Protocol):
    """One game driven by action ids (``GinCore``, ``RummyCore``)."""

    num_seats: int
    num_actions: int
    obs_shape: tuple[int, ...]
    obs_high: float
    options: EnvOptions
    target: int
    game: Any  # the engine's game (GinGame, RummyGame)

    def apply(self, action: Any) -> list[float] | None:
        """Play an engine action (an opponent's); raw rewards if a hand ended."""

    def new_game(self, match_seed: int) -> None: ...

    def action_of(self, ident: int) -> Any:
        """The engine action id ``ident`` stands for now (legal or not)."""

    def to_act(self) -> int | None: ...

    def legal_mask(self) -> int: ...

    def observe(self, seat: int) -> FloatArray: ...

    def observe_masked(self, seat: int) -> tuple[FloatArray, MaskArray]:
        """The observation of ``seat`` and its action mask (zeros if not to act)."""

    def step(self, ident: int) -> list[float] | None:
        """Play ``ident`` for the seat to act; per-seat raw rewards when a hand or the
        game ended, else None."""

    def is_over(self) -> bool: ...

    def render(self) -> str: ...


def seat_mask(core: GameCore, seat: int) -> MaskArray:
    """``seat``'s action mask as int8 0/1 (all zeros if another seat is to act)."""
    count = core.num_actions
    if core.to_act() != seat:
        return np.zeros(count, dtype=np.int8)
    raw = np.frombuffer(core.legal_mask().to_bytes((count + 7) // 8, "little"), np.uint8)
    # count and bitorder by position: by keyword 0.2 us more
    mask: MaskArray = np.unpackbits(raw, None, count, "little").view(np.int8)
    return mask


def normalise(raw: Sequence[float], target: int) -> list[float]:
    """Each seat's raw reward minus the mean of the others', over the target: zero-sum."""
    n = len(raw)
    total = sum(raw)
    return [(r - (total - r) / (n - 1)) / target for r in raw]


def legal_error(core: GameCore, ident: int, engine_error: Exception | None) -> IllegalActionIdError:
    legal = mask_ids(core.legal_mask())
    if engine_error is None:
        return IllegalActionIdError(
            ident, legal, f"no action id {ident}: ids are 0..{core.num_actions - 1}"
        )
    rule = getattr(engine_error, "rule", "")
    reason = str(engine_error)
    if rule and reason.endswith(f"({rule})"):
        reason = reason[: -len(rule) - 3]
    return IllegalActionIdError(ident, legal, reason, rule)


# -- opponents -------------------------------------------------------------------------


class Policy(Protocol):
    def __call__(self, observation: Any, legal: Sequence[Any], rng: random.Random) -> Any: ...


@dataclass
class Opponent:
    """An in-process player: ``policy(observation, legal_actions, rng) -> action`` on the
    engine's own types; ``new_hand`` (if any) is called at each deal."""

    name: str
    policy: Policy | None  # None: a uniformly random legal id (the fast "random")
    new_hand: Callable[[], None] | None = None
    rng: random.Random | None = None

    def act(self, observation: Any, legal: Sequence[Any]) -> Any:
        assert self.rng is not None and self.policy is not None
        return self.policy(observation, legal, self.rng)


class _SdkDecision:
    """What an SDK bot's ``decide`` reads, without the protocol (observation, legal)."""

    def __init__(self, game_id: str, observation: Any, legal: list[Any]) -> None:
        self.game_id = game_id
        self.observation = observation
        self.legal_actions = legal
        self.events: list[Any] = []


def make_opponent(
    spec: Any, game_id: str, builtin: Mapping[str, Callable[[], Opponent]]
) -> Opponent:
    """An opponent from a built-in bot name, a plugin bot name, a policy callable, or an
    SDK ``Bot`` instance; anything else is refused naming the built-in names."""
    if isinstance(spec, str):
        if spec in builtin:
            return builtin[spec]()
        bot = _plugin_bot(spec)
        if bot is None:
            raise EnvConfigError(
                f"unknown opponent {spec!r}; built-in: {', '.join(builtin)}; "
                "or a registered plugin bot, a policy callable, or an SDK Bot"
            )
        spec = bot
    if hasattr(spec, "decide"):
        bot = spec

        def by_bot(observation: Any, legal: Sequence[Any], rng: random.Random) -> Any:
            return bot.decide(_SdkDecision(game_id, observation, list(legal)))

        def new_hand() -> None:
            hook = getattr(bot, "on_hand_start", None)
            if hook is not None:
                from arena.proto import bot_pb2 as pb

                hook(pb.HandStart())

        return Opponent(getattr(bot, "name", "bot"), by_bot, new_hand)
    if callable(spec):
        return Opponent(getattr(spec, "__name__", "policy"), spec)
    raise EnvConfigError(
        f"an opponent is a bot name, a policy callable or an SDK Bot, not {spec!r}"
    )


def _plugin_bot(name: str) -> Any:
    try:
        from arena.plugins import load_plugins

        registration = load_plugins().bot(name)
    except Exception:
        return None
    factory = getattr(registration, "factory", None) or getattr(registration, "bot", None)
    try:
        return factory() if callable(factory) else None
    except Exception:
        return None
