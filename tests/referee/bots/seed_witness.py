"""Test bot: plays the first legal action and writes, on stderr, one line
``WITNESS {json}`` per MatchStart and MatchEnd it receives, with its own check of the
seed commitment (the construction of docs/PROTOCOL.md section 9, written out here
rather than taken from the arena) and the SDK's."""

import hashlib
import json
import sys
from typing import Any

from arena.proto import bot_pb2 as pb
from arena.sdk import Bot, Decision, RevealCheck, serve

TAG = b"rummy-arena/seed-commitment/v1"


def witness(**fields: object) -> None:
    print("WITNESS " + json.dumps(fields), file=sys.stderr, flush=True)


class SeedWitness(Bot):
    name = "seed-witness"

    def __init__(self) -> None:
        self.commitment = b""
        self.deals_seen = 0

    def decide(self, decision: Decision[Any, Any]) -> int:
        return 0

    def on_match_start(self, message: pb.MatchStart) -> None:
        self.commitment = message.seed_commitment
        witness(kind="start", commitment=message.seed_commitment.hex(), deals_seen=self.deals_seen)

    def on_hand_start(self, message: pb.HandStart) -> None:
        self.deals_seen += 1

    def on_seed_check(self, check: RevealCheck, seed: int) -> None:
        self.sdk_check = check.value

    def on_match_end(self, message: pb.MatchEnd) -> None:
        data = TAG + b"\x00" + message.seed.to_bytes(8, "big") + message.seed_salt
        witness(
            kind="end",
            seed=message.seed,
            salt=message.seed_salt.hex(),
            own_check=hashlib.sha256(data).digest() == self.commitment,
            sdk_check=self.sdk_check,
            deals_seen=self.deals_seen,
        )


if __name__ == "__main__":
    serve(SeedWitness())
