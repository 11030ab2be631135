"""Hosting bots named by plugin name, manifest or address (for matches and ladders).

A reference is resolved (``resolve_bot``) in this order: an address; a registered
bot; a manifest file or a folder with a ``bot.toml``; the name of a manifest in the
folders of :mod:`arena.hosting.lookup`.  A bot that cannot take a seat in the game
(``seat_problem``: it does not play it, or its handshake gives another name than
its manifest) is refused by the commands a user runs, with one line naming both
sides; a ladder records it as the seat's fault instead.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Sequence
from pathlib import Path

from arena.hosting.errors import HostingError
from arena.hosting.launcher import HostedBot, LaunchSettings, start_bots
from arena.hosting.lookup import BOT_MANIFEST, ManifestCatalog, is_address, looks_like_path
from arena.plugins.manager import PluginSet, UnknownBotError
from arena.plugins.serve_bot import command_for
from arena.protocol.codecs import plays_game

__all__ = [
    "BotRefusedError",
    "host_bots",
    "host_for_game",
    "refuse_registered",
    "resolve_bot",
    "seat_problem",
]


class BotRefusedError(HostingError, ValueError):
    """A bot that cannot take a seat in the game asked for (names the bot and why)."""


def _is_python_bot(reference: str) -> bool:
    return (
        not is_address(reference)
        and not reference.endswith(".toml")
        and not Path(reference).is_file()
    )


def resolve_bot(reference: str, plugins: PluginSet, manifests: ManifestCatalog) -> str:
    """The reference ``start_bot`` starts for what the user typed: an address or a
    registered bot as it is, a bot's folder as its ``bot.toml``, a manifest's name as
    its file.  Unknown names raise ``UnknownBotError`` with the closest known names;
    a path that is not there says so."""
    if is_address(reference):
        return reference
    if reference in plugins.bots:
        return reference
    path = Path(reference)
    if path.is_file():
        return reference
    if path.is_dir() and (path / BOT_MANIFEST).is_file():
        return str(path / BOT_MANIFEST)
    if looks_like_path(reference):
        if path.is_dir():
            raise UnknownBotError(f"{reference}: a folder without a {BOT_MANIFEST}")
        raise UnknownBotError(f"no such file: {reference}")
    found = manifests.path(reference)
    if found is not None:
        return str(found)
    with contextlib.suppress(UnknownBotError):
        plugins.bot(reference)  # a bot its broken plugin spoiled: that plugin's error
    known = sorted({*plugins.bots, *manifests.entries})
    close = difflib.get_close_matches(reference, known, n=3)
    guess = f" (did you mean {' or '.join(repr(name) for name in close)}?)" if close else ""
    raise UnknownBotError(
        f"unknown bot {reference!r}{guess}: not an address (grpc://HOST:PORT, unix:PATH), "
        f"a manifest file or a known bot (known: {', '.join(known) or 'none'}; "
        "manifests are found by name in --manifests DIR and ARENA_MANIFESTS)"
    )


def _game_list(patterns: Sequence[str], plugins: PluginSet) -> str:
    """The registered games ``patterns`` cover, for messages: ids, or the patterns."""
    covered = [game_id for game_id in sorted(plugins.games) if plays_game(patterns, game_id)]
    if covered:
        return ", ".join(covered)
    if patterns:
        return f"{', '.join(patterns)} (none of them here)"
    return "nothing (it lists no game)"


def refuse_registered(references: Sequence[str], plugins: PluginSet, game_id: str) -> None:
    """A registered bot says what it plays without being started: refuse it now."""
    for reference in references:
        registration = plugins.bots.get(reference)
        if registration is not None and not plays_game(registration.games, game_id):
            raise BotRefusedError(
                f"bot {reference!r} does not play {game_id}; it plays "
                f"{_game_list(registration.games, plugins)}"
            )


def seat_problem(bot: HostedBot, game_id: str, plugins: PluginSet) -> str | None:
    """Why a bot that started cannot take a seat in ``game_id``, from its handshake:
    it gives another name than its manifest, or it does not play the game."""
    if bot.connection is None or bot.start_fault is not None:
        return None
    info = bot.connection.info
    if bot.manifest_name is not None and info.name != bot.manifest_name:
        return (
            f"{bot.reference}: the manifest's name {bot.manifest_name!r} differs from the "
            f"name the bot gives in its handshake, {info.name!r}"
        )
    if not plays_game(info.games, game_id):
        return (
            f"bot {bot.name!r} ({bot.reference}) does not play {game_id}; its handshake "
            f"lists {_game_list(list(info.games), plugins)}"
        )
    return None


def host_bots(
    references: Sequence[str],
    settings: LaunchSettings,
    plugins: PluginSet,
    modules: Sequence[str],
    autoload: bool,
) -> list[HostedBot]:
    """Host each bot, all at once; the caller closes them.  Plugin problems for a needed
    bot raise first."""
    for reference in references:
        if _is_python_bot(reference):
            plugins.bot(
                reference
            )  # raises PluginError naming the plugin problem, or UnknownBotError
    factories = {name: registration.factory for name, registration in plugins.bots.items()}
    return start_bots(
        references, settings, factories, lambda name: command_for(name, modules, autoload)
    )


def host_for_game(
    references: Sequence[str],
    settings: LaunchSettings,
    plugins: PluginSet,
    modules: Sequence[str],
    autoload: bool,
    game_id: str,
) -> list[HostedBot]:
    """``host_bots`` for a command the user runs: a registered bot that does not play
    ``game_id`` is refused before anything starts, any other after the handshakes
    (``seat_problem``), with every bot closed.  ``BotRefusedError`` names the bot."""
    refuse_registered(references, plugins, game_id)
    hosted = host_bots(references, settings, plugins, modules, autoload)
    for bot in hosted:
        problem = seat_problem(bot, game_id, plugins)
        if problem is not None:
            for each in hosted:
                each.close()
            raise BotRefusedError(problem)
    return hosted
