"""Commit-reveal of a match's deal seed (docs/PROTOCOL.md, "Verifying the deals").

MatchStart carries ``seed_commitment``: SHA-256 over the bytes

    b"rummy-arena/seed-commitment/v1" || 0x00 || seed as 8 bytes big-endian || salt

where ``salt`` is 32 random bytes drawn by the referee for this match.  MatchEnd
reveals ``seed`` and ``seed_salt``; anyone holding both messages recomputes the hash.
The salt keeps the commitment from being searched: without it a 64-bit seed could
be found by trying seeds until one hashes to the commitment.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from enum import Enum
from typing import Final

from arena.proto import bot_pb2 as pb

__all__ = [
    "COMMITMENT_TAG",
    "SALT_BYTES",
    "RevealCheck",
    "check_match_reveal",
    "check_reveal",
    "new_salt",
    "seed_commitment",
]

COMMITMENT_TAG: Final = b"rummy-arena/seed-commitment/v1"
SALT_BYTES: Final = 32
_MAX_SEED = 2**64 - 1


class RevealCheck(Enum):
    """What a seed reveal says about its commitment."""

    VERIFIED = "verified"  # the revealed seed and salt hash to the commitment
    MISMATCH = "mismatch"  # they do not: the deals were not the ones committed to
    ABSENT = "absent"  # no commitment, or no reveal (withheld, or an older referee)


def new_salt() -> bytes:
    return secrets.token_bytes(SALT_BYTES)


def seed_commitment(seed: int, salt: bytes) -> bytes:
    """The 32-byte SHA-256 commitment to ``seed`` under ``salt``."""
    if not 0 <= seed <= _MAX_SEED:
        raise ValueError(f"a committed seed is an integer in 0..2**64-1, got {seed}")
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a commitment's salt is {SALT_BYTES} bytes, got {len(salt)}")
    return hashlib.sha256(COMMITMENT_TAG + b"\x00" + seed.to_bytes(8, "big") + salt).digest()


def check_reveal(commitment: bytes, seed: int, salt: bytes) -> RevealCheck:
    """Does the reveal (``seed``, ``salt``) open ``commitment``?  Empty commitment or
    salt: ABSENT; a salt of the wrong length or an out-of-range seed: MISMATCH."""
    if not commitment or not salt:
        return RevealCheck.ABSENT
    try:
        expected = seed_commitment(seed, salt)
    except ValueError:
        return RevealCheck.MISMATCH
    return (
        RevealCheck.VERIFIED if hmac.compare_digest(expected, commitment) else RevealCheck.MISMATCH
    )


def check_match_reveal(start: pb.MatchStart, end: pb.MatchEnd) -> RevealCheck:
    """Check a match's MatchEnd reveal against its MatchStart commitment."""
    return check_reveal(start.seed_commitment, end.seed, end.seed_salt)
