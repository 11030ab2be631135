"""Test doubles shipped with the arena: deliberately misbehaving bots, the process
table as tests of "no process left behind" read it (``processes``), and a fuzzing
harness for the referee's side of the protocol (``fuzz``: a bot server whose replies
a test scripts; needs the ``test`` extra, hypothesis).

``python -m arena.testing.broken_bots KIND`` serves a bot that misbehaves in one
way (see ``arena.testing.broken_bots.KINDS``); the referee's tests, and anyone
checking an arena setup, start it from a manifest like any other bot.

(Nothing is imported here: ``python -m`` would otherwise find the module already
imported by its package and warn.)
"""

__all__: list[str] = []
