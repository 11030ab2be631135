"""Where a ladder's deals come from: a secret made at ``ladder create``, kept in the
ladder's owner-only database and nowhere else, from which each unit's seed is
derived one-way (SHA-256, ``referee.seeds.derived_seed``) from the unit's key.

A bot learns its match's seed when the match ends (the reveal of the seed
commitment); from it no other unit's seed can be worked out, nor the secret.  A
config that fixes ``seed`` makes the secret that seed: reproducible for research,
and predictable by anyone who reads the config, which the ladder's output says.
"""

from __future__ import annotations

import hashlib

from arena.cards import derive_seed
from arena.ladder.config import LadderConfig
from arena.referee.seeds import derived_seed, new_secret
from arena.storage.ladder_store import DealSecret, LadderStore

__all__ = ["new_deal_secret", "predictable_deals_note", "unit_seed"]


def new_deal_secret(config: LadderConfig) -> DealSecret:
    """A random secret, or the config's fixed seed."""
    if config.seed is None:
        return DealSecret(new_secret(), "random")
    return DealSecret(config.seed.to_bytes(8, "big"), "config")


def unit_seed(secret: DealSecret | None, config: LadderConfig, key: str) -> int:
    """The deal seed of the unit named ``key``."""
    if secret is None:  # a ladder from before deal secrets deals as it always has
        digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
        return derive_seed(config.seed or 0, 3, digest) >> 1  # SQLite: signed 64-bit
    return derived_seed(secret.secret, key)


def predictable_deals_note(store: LadderStore) -> str | None:
    """A warning when anyone who reads the ladder's config can predict its deals."""
    secret = store.deal_secret()
    if secret is not None and secret.source == "random":
        return None
    why = (
        "its config fixes the seed"
        if secret is not None
        else "it was made before ladders had a secret, from its config's seed"
    )
    return (
        f"note: this ladder's deals are predictable from its config ({why}); "
        "for a competition, create it from a config without `seed`"
    )
