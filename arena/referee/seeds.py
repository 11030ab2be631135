"""Where deal seeds come from: fresh from the OS, or derived one-way from a secret.

Deals are predictable from their seed, so a seed a bot could guess or compute is a
seat's whole game.  A seed nobody gave comes from the OS's randomness and is
recorded (printed, in ``--json`` and the replay) so the match can be played again.
Seeds derived from another secret (a ladder's, the base seed of an SPRT run) go
through SHA-256: the seed of a finished match is revealed to its bots, and from a
revealed seed no other seed of the same secret can be worked out.  (The cards'
``derive_seed`` is SplitMix64, which is invertible: fine inside one match, whose
seed is revealed whole at its end, but not across matches.)
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Final

from arena.referee.settings import SettingsError

__all__ = ["SEED_BITS", "derived_seed", "fresh_seed", "new_secret", "seed_or_fresh"]

# 63 bits: SQLite keeps integers signed, and every seed fits there and in JSON.
SEED_BITS: Final = 63
_DERIVATION_TAG: Final = b"rummy-arena/derived-seed/v1\x00"


def fresh_seed() -> int:
    """A seed nobody can predict: 63 bits from the OS's randomness."""
    return secrets.randbits(SEED_BITS)


def seed_or_fresh(seed: int | None, option: str = "--seed") -> int:
    """The seed the user gave (checked), or a fresh one when they gave none."""
    if seed is None:
        return fresh_seed()
    if not 0 <= seed < 2**64:
        raise SettingsError(f"{option} must be an integer in 0..2**64-1, got {seed}")
    return seed


def new_secret() -> bytes:
    """A 32-byte secret to derive seeds from (a ladder's)."""
    return secrets.token_bytes(32)


def derived_seed(secret: bytes, label: str) -> int:
    """The seed of ``label`` (a unit's key, ``pair:7``) under ``secret``: the first 63
    bits of SHA-256(tag || len(secret) || secret || label)."""
    digest = hashlib.sha256(
        _DERIVATION_TAG + len(secret).to_bytes(4, "big") + secret + label.encode()
    ).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)
