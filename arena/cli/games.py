"""``--game FAMILY --rules NAME`` to a registered game, with errors that list the choices."""

from __future__ import annotations

from arena.games.spec import GameSpec
from arena.plugins.manager import PluginSet
from arena.referee.settings import SettingsError

__all__ = ["game_spec"]


def game_spec(plugins: PluginSet, family: str, rules: str) -> GameSpec:
    """The game ``FAMILY/RULES``; a ``SettingsError`` naming the families (or the
    family's rule sets) when there is no such game.  ``family`` may be a whole game
    id (``gin-rummy/oklahoma``): its rules then stand, unless ``rules`` names others."""
    if "/" in family:
        family, _, named = family.partition("/")
        if rules not in ("standard", named):
            raise SettingsError(
                f"--game {family}/{named} names the rules {named!r}; --rules {rules} contradicts it"
            )
        rules = named
    ids = sorted(plugins.games)
    families: dict[str, list[str]] = {}
    for game_id in ids:
        name, _, preset = game_id.partition("/")
        families.setdefault(name, []).append(preset)
    if plugins.problems and f"{family}/{rules}" not in ids:
        plugins.game(f"{family}/{rules}")  # its error names the broken plugins too
    if family not in families:
        raise SettingsError(
            f"unknown game family {family!r} for --game: the families are "
            f"{', '.join(families) or 'none'} (e.g. --game {next(iter(families), 'gin-rummy')})"
        )
    if rules not in families[family]:
        raise SettingsError(
            f"unknown rules {rules!r} for {family}: --rules takes {', '.join(families[family])}"
        )
    return plugins.game(f"{family}/{rules}")
