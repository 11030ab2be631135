"""What a game's conversion module offers: the ``Codec`` protocol.

A codec is usually a module (``arena.protocol.gin``, ``arena.protocol.rummy``, a
plugin's own); mypy checks a module against a protocol like any object.  The
referee builds a ``Table`` with ``new_table``, the SDK converts requests with the
``*_from_proto`` functions, replays parse actions with ``parse_action``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from arena.proto import bot_pb2 as pb

if TYPE_CHECKING:
    from arena.protocol.table import Table

__all__ = ["Codec"]


class Codec(Protocol):
    """The conversions between one game family's engine types and protocol messages.

    The engine's types are ``Any`` here: each codec takes its own family's (``GinGame``,
    ``GinRules``, a Gin action), and a parameter of a protocol accepts only what is at
    least as wide as the protocol says.  ``new_table`` is the one way in, from a game its
    own ``GameSpec`` made, and the ``Table`` it returns is typed."""

    def rules_map(self, rules: Any) -> dict[str, str]:
        """Every rule parameter as text (``MatchStart.rules``)."""

    def new_table(self, game_id: str, game: Any) -> Table:
        """The referee's table for a game just created from the game's ``GameSpec``."""

    def parse_action(self, text: str) -> Any:
        """An action from its text form (replays store actions as text)."""

    def action_to_proto(self, action: Any) -> pb.Action: ...

    def action_from_proto(self, message: pb.Action) -> Any: ...

    def observation_from_proto(self, message: pb.Observation) -> Any: ...

    def event_from_proto(self, message: pb.Event) -> Any: ...
