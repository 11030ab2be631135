"""Ladder configuration: one TOML file, checked field by field.

Every problem is a ``LadderConfigError`` naming the file, the line and the field.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.hosting.lookup import is_address
from arena.ratings import SYSTEM_NAMES, RatingSystemName
from arena.referee.settings import FaultPolicy, MatchSettings, SettingsError, TimeControl
from arena.tomlfile import TomlDocument, read_toml

__all__ = ["BotEntry", "LadderConfig", "LadderConfigError", "ScheduleKind", "load_ladder_config"]

_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
EXECUTORS = ("local", "dask")


class LadderConfigError(ArenaError, ValueError):
    """A bad ladder config: names file, line and field."""


#: ``[web] live_cards``: a match in play shows the seats' hands as card backs until the
#: hand ends (hidden, the default) or face up (shown).
LIVE_CARDS = ("hidden", "shown")


class ScheduleKind(Enum):
    ROUND_ROBIN = "round-robin"  # every pair (or line-up) ``repeat`` times
    GAUNTLET = "gauntlet"  # the champion against each other bot ``repeat`` times
    CONTINUOUS = "continuous"  # pairings picked by TrueSkill quality and uncertainty


@dataclass(frozen=True)
class BotEntry:
    """A ladder participant: a registered Python bot, a manifest, or an address."""

    name: str
    reference: str  # what `arena match` would accept

    @property
    def kind(self) -> str:
        if is_address(self.reference):
            return "address"
        return "manifest" if self.reference.endswith(".toml") else "plugin"


@dataclass(frozen=True)
class LadderConfig:
    name: str
    game: str
    bots: tuple[BotEntry, ...]
    seed: int | None = None  # fixed deals (research); None: a random secret (arena.ladder.deals)
    seats: int = 2
    schedule: ScheduleKind = ScheduleKind.ROUND_ROBIN
    repeat: int = 1
    champion: str | None = None
    duplicate: bool = True
    games: int = 2
    hands_only: bool = False
    time_control: TimeControl = field(default_factory=TimeControl)
    concurrency: int = 0  # 0: one per CPU
    sandbox: str = "auto"
    faults: str = "forfeit"
    suspend_after: int = 3
    replays: str | None = None  # folder for replays and bot logs
    untrusted: bool = False  # bots by strangers: refuse to run below bwrap
    reuse_bots: bool = False  # a worker keeps its bot processes between matches (warm)
    # The operator lets strangers' bots stay warm too (reuse_bots): each keeps its memory
    # of the bots it met, as a Battlesnake server does; off, such a ladder is refused.
    persistent_strangers: bool = False
    log_budget_mb: int = 1024  # all bot logs of the ladder together
    plugins: tuple[str, ...] = ()
    autoload_plugins: bool = True
    executor: str = "local"  # local: a process pool here; dask: Dask distributed workers
    scheduler: str = ""  # dask: tcp://HOST:PORT ("": a LocalCluster of `concurrency` workers)
    # [ratings] system: how results move ratings (arena.ratings); `arena ladder rerate` changes it
    rating_system: RatingSystemName = RatingSystemName.TRUESKILL
    # [web] live_cards: what spectators of a match in play see of the seats' hands
    live_cards: str = "hidden"

    @property
    def workers(self) -> int:
        return self.concurrency or os.cpu_count() or 1

    @property
    def fault_policy(self) -> FaultPolicy:
        return FaultPolicy.parse(self.faults)

    @property
    def match_settings(self) -> MatchSettings:
        """How each of the ladder's matches is played."""
        return MatchSettings(self.games, self.hands_only, self.time_control, self.fault_policy)

    def to_json(self) -> str:
        data = asdict(self)
        data["schedule"] = self.schedule.value
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> LadderConfig:
        data = json.loads(text)  # configs stored before a field existed take its default
        data["bots"] = tuple(BotEntry(**bot) for bot in data["bots"])
        data["schedule"] = ScheduleKind(data["schedule"])
        data["time_control"] = TimeControl(**data["time_control"])
        data["plugins"] = tuple(data["plugins"])
        data["rating_system"] = RatingSystemName(data.get("rating_system", "trueskill"))
        return cls(**data)


_SECTIONS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "": {
        "name": str,
        "game": str,
        "seed": int,
        "seats": int,
        "plugins": list,
        "autoload_plugins": bool,
    },
    "schedule": {"kind": str, "repeat": int, "champion": str, "duplicate": bool},
    "match": {"games": int, "hands_only": bool},
    "time_control": {"startup_ms": int, "decision_ms": int, "bank_ms": int},
    "run": {
        "concurrency": int,
        "sandbox": str,
        "faults": str,
        "suspend_after": int,
        "replays": str,
        "untrusted": bool,
        "reuse_bots": bool,
        "persistent_strangers": bool,
        "log_budget_mb": int,
        "executor": str,
        "scheduler": str,
    },
    "ratings": {"system": str},
    "web": {"live_cards": str},
}
_BOT_KEYS = {"name": str, "manifest": str, "address": str, "plugin": str}


class _Checker:
    def __init__(self, document: TomlDocument) -> None:
        self.document = document

    def fail(self, dotted: str, problem: str) -> LadderConfigError:
        return LadderConfigError(f"{self.document.where(dotted)}: field {dotted!r} {problem}")

    def section(self, name: str) -> dict[str, Any]:
        data = self.document.data if not name else self.document.data.get(name, {})
        if not isinstance(data, dict):
            raise self.fail(name, "must be a table")
        allowed = _SECTIONS[name]
        for key, value in data.items():
            dotted = f"{name}.{key}" if name else key
            if not name and (key in _SECTIONS or key == "bots"):
                continue
            if key not in allowed:
                known = [*allowed, *([*filter(None, _SECTIONS), "bots"] if not name else [])]
                raise self.fail(
                    dotted,
                    f"is not a ladder setting (expected one of {', '.join(sorted(known))})",
                )
            expected = allowed[key]
            if type(value) is not expected:  # bool is not an int here
                kind = expected.__name__ if isinstance(expected, type) else expected
                raise self.fail(dotted, f"must be {kind}, got {value!r}")
        return data

    def positive(
        self, data: dict[str, Any], key: str, dotted: str, default: int, minimum: int = 1
    ) -> int:
        value = data.get(key, default)
        if value < minimum:
            raise self.fail(dotted, f"must be at least {minimum}, got {value}")
        return int(value)


def load_ladder_config(path: Path) -> LadderConfig:
    """Read and check a ladder config; relative manifest and replay paths are resolved
    against the config's folder."""
    document = read_toml(path, LadderConfigError, "ladder config")
    check = _Checker(document)
    top = check.section("")
    schedule = check.section("schedule")
    match = check.section("match")
    timing = check.section("time_control")
    run = check.section("run")
    ratings = check.section("ratings")
    live_cards = check.section("web").get("live_cards", LIVE_CARDS[0])
    if live_cards not in LIVE_CARDS:
        raise check.fail("web.live_cards", f"must be hidden or shown, got {live_cards!r}")
    for key in ("name", "game"):
        if key not in top:
            raise check.fail(key, "is required")
    if not _NAME.fullmatch(top["name"]):
        raise check.fail(
            "name", f"must be 1-64 letters, digits, '.', '_' or '-', got {top['name']!r}"
        )
    if not 0 <= top.get("seed", 0) < 2**63:
        raise check.fail("seed", f"must be in 0..2**63-1, got {top['seed']}")
    plugins = top.get("plugins", [])
    if not all(isinstance(item, str) for item in plugins):
        raise check.fail("plugins", "must be a list of module names")
    bots = _bots(check, path.parent)
    kind_text = schedule.get("kind", ScheduleKind.ROUND_ROBIN.value)
    try:
        kind = ScheduleKind(kind_text)
    except ValueError:
        names = ", ".join(k.value for k in ScheduleKind)
        raise check.fail("schedule.kind", f"must be one of {names}, got {kind_text!r}") from None
    champion = schedule.get("champion")
    if kind is ScheduleKind.GAUNTLET and champion is None:
        raise check.fail("schedule.champion", "is required for a gauntlet")
    if champion is not None and champion not in {bot.name for bot in bots}:
        raise check.fail(
            "schedule.champion", f"must name one of the ladder's bots, got {champion!r}"
        )
    try:
        time_control = TimeControl(**{**asdict(TimeControl()), **timing})
    except SettingsError as error:
        named = [key for key in timing if key in str(error)]
        raise check.fail(
            f"time_control.{named[0]}" if named else "time_control", str(error)
        ) from None
    try:
        FaultPolicy.parse(run.get("faults", "forfeit"))
    except SettingsError as error:
        raise check.fail("run.faults", str(error)) from None
    sandbox = run.get("sandbox", "auto")
    if sandbox not in ("auto", "none", "limits", "bwrap"):
        raise check.fail("run.sandbox", f"must be auto, none, limits or bwrap, got {sandbox!r}")
    replays = run.get("replays")
    executor = run.get("executor", "local")
    if executor not in EXECUTORS:
        raise check.fail("run.executor", f"must be local or dask, got {executor!r}")
    scheduler = run.get("scheduler", "")
    if scheduler and executor != "dask":
        raise check.fail("run.scheduler", 'needs executor = "dask"')
    if scheduler and not scheduler.startswith(("tcp://", "tls://")):
        raise check.fail(
            "run.scheduler", f"must be tcp://HOST:PORT or tls://HOST:PORT, got {scheduler!r}"
        )
    system = ratings.get("system", RatingSystemName.TRUESKILL.value)
    if system not in SYSTEM_NAMES:
        raise check.fail(
            "ratings.system", f"must be one of {', '.join(SYSTEM_NAMES)}, got {system!r}"
        )
    seats = check.positive(top, "seats", "seats", 2, minimum=2)
    return LadderConfig(
        name=top["name"],
        game=top["game"],
        bots=tuple(bots),
        seed=top.get("seed"),
        seats=seats,
        schedule=kind,
        repeat=check.positive(schedule, "repeat", "schedule.repeat", 1),
        champion=champion,
        duplicate=schedule.get("duplicate", True),
        games=check.positive(match, "games", "match.games", 2),
        hands_only=match.get("hands_only", False),
        time_control=time_control,
        concurrency=check.positive(run, "concurrency", "run.concurrency", 0, minimum=0),
        sandbox=sandbox,
        faults=run.get("faults", "forfeit"),
        suspend_after=check.positive(run, "suspend_after", "run.suspend_after", 3),
        replays=str((path.parent / replays).resolve()) if replays else None,
        untrusted=run.get("untrusted", False),
        reuse_bots=run.get("reuse_bots", False),
        persistent_strangers=run.get("persistent_strangers", False),
        log_budget_mb=check.positive(run, "log_budget_mb", "run.log_budget_mb", 1024, minimum=0),
        plugins=tuple(plugins),
        autoload_plugins=top.get("autoload_plugins", True),
        executor=executor,
        scheduler=scheduler,
        rating_system=RatingSystemName(system),
        live_cards=live_cards,
    )


def _bots(check: _Checker, folder: Path) -> list[BotEntry]:
    # No bots, or fewer than a match seats, is a ladder that waits for bots to be added
    # or submitted (``arena ladder run --forever`` plays as soon as there are enough).
    raw = check.document.data.get("bots", [])
    if not isinstance(raw, list):
        raise check.fail("bots", "must be [[bots]] tables, one for each bot")
    bots: list[BotEntry] = []
    for index, item in enumerate(raw):
        where = f"bots[{index}]"
        if not isinstance(item, dict):
            raise check.fail(where, "must be a table")
        for key, value in item.items():
            if key not in _BOT_KEYS:
                raise check.fail(
                    f"{where}.{key}",
                    f"is not a bot setting (expected one of {', '.join(sorted(_BOT_KEYS))})",
                )
            if not isinstance(value, str):
                raise check.fail(f"{where}.{key}", f"must be a string, got {value!r}")
        name = item.get("name")
        if name is None:
            raise check.fail(f"{where}.name", "is required")
        if not _NAME.fullmatch(name):
            raise check.fail(
                f"{where}.name", f"must be 1-64 letters, digits, '.', '_' or '-', got {name!r}"
            )
        sources = [key for key in ("manifest", "address", "plugin") if key in item]
        if len(sources) > 1:
            raise check.fail(
                f"{where}.{sources[1]}",
                f"conflicts with {sources[0]}: give one of manifest, address, plugin",
            )
        if "manifest" in item:
            manifest = (folder / item["manifest"]).resolve()
            if not manifest.is_file():
                raise check.fail(f"{where}.manifest", f"names no file: {manifest}")
            reference = str(manifest)
        elif "address" in item:
            reference = item["address"]
            if not is_address(reference):
                raise check.fail(
                    f"{where}.address", f"must start with grpc:// or unix:, got {reference!r}"
                )
        else:
            reference = str(item.get("plugin", name))
        if any(bot.name == name for bot in bots):
            raise check.fail(f"{where}.name", f"repeats the bot name {name!r}")
        bots.append(BotEntry(name, reference))
    return bots
