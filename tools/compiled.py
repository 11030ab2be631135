"""Build ``build/compiled/``: a copy of ``arena/`` with the referee's hot modules
compiled by mypyc, for runs that want the speed (``PYTHONPATH=build/compiled``).

    python tools/compiled.py           build it (make compiled)
    python tools/compiled.py --check   can it be built here? (exit 1 says why not)

The source tree stays pure Python: compiled modules there would shadow the ``.py``
files being edited.  The copy is whole, so it never mixes old and new code; make
rebuilds it when a source file changes.  Compiling needs a C compiler, Python's
headers and mypy (the dev extra); where one is missing, nothing else depends on it.
mypyc checks the declared types at run time, so ``make test`` runs the whole suite
once more against the copy.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "compiled"

# What a decision costs: cards and melds, the Gin engine's hand, and the requests.
# (card.py builds its interned cards with object.__new__, which compiled classes
# refuse; games/base.py is subclassed by classes left interpreted.)
HOT = (
    "arena/cards/deck.py",
    "arena/cards/masks.py",
    "arena/cards/melds.py",
    "arena/games/turns.py",
    "arena/games/gin_rummy/actions.py",
    "arena/games/gin_rummy/observation.py",
    "arena/games/gin_rummy/results.py",
    "arena/games/gin_rummy/hand.py",
    "arena/games/gin_rummy/encoding.py",  # the learning environments' masks (arena.envs)
    "arena/protocol/common.py",
    "arena/protocol/wire.py",
    "arena/protocol/table.py",
    "arena/protocol/gin.py",
    "arena/protocol/rummy.py",
)
# The learning environments (arena.envs), where the learn extra is installed (mypy
# needs numpy's types to compile them): the Gin game by ids, a step's glue around the
# encoder (1.2x the single env's steps per CPU-second), and the learner's seat with the
# vector env's loops over its games (1.05x the vector env's).
LEARN_HOT = ("arena/envs/_gin.py", "arena/envs/_solo.py")
# And a C kernel of theirs, against numpy's headers: an observation's planes, tail and
# legal ids written into new arrays in one call (0.5 us; numpy's calls take 3.9).
LEARN_C = ("arena/envs/_bitplanes.c",)


def _learn() -> bool:
    return importlib.util.find_spec("numpy") is not None


def modules() -> tuple[str, ...]:
    """The files compiled by mypyc."""
    return HOT + (LEARN_HOT if _learn() else ())


def extensions() -> tuple[str, ...]:
    """The C files compiled (as extension modules of the same name)."""
    return LEARN_C if _learn() else ()


_SETUP = """
import sys
from setuptools import Extension, setup
from mypyc.build import mypycify
config, modules, sources = sys.argv.pop(1), sys.argv.pop(1).split(","), sys.argv.pop(1)
kernels = []
if sources:
    import numpy
    kernels = [
        Extension(source[:-2].replace("/", "."), [source], include_dirs=[numpy.get_include()],
                  extra_compile_args=["-O3"])
        for source in sources.split(",")
    ]
extensions = mypycify(["--config-file", config, *modules], opt_level="3") + kernels
setup(name="arena-compiled", packages=[], ext_modules=extensions)
"""


def missing() -> str:
    """Why the copy cannot be built here, or "" if it can."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler}; Debian: apt-get install gcc)"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Debian: apt-get install python3-dev)"
    try:
        import mypyc  # noqa: F401
        import setuptools  # noqa: F401
    except ImportError as error:
        return f"{error.name} is not installed (pip install -e '.[dev]')"
    return ""


def build() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    shutil.copytree(
        ROOT / "arena", OUT / "arena", ignore=shutil.ignore_patterns("__pycache__", "*.so")
    )
    config = str(ROOT / "pyproject.toml")
    files = modules()
    sources = extensions()
    built = subprocess.run(
        [
            sys.executable,
            "-c",
            _SETUP,
            config,
            ",".join(files),
            ",".join(sources),
            "build_ext",
            "--inplace",
        ],
        cwd=OUT,
        stdout=subprocess.DEVNULL,  # a line per file; errors go to stderr
    )
    if built.returncode != 0:
        shutil.rmtree(OUT)  # no half-built copy to run by mistake
        sys.exit(
            f"mypyc could not compile the copy (exit {built.returncode}; its errors are above)"
        )
    # What make test's second pass checks it is testing (tests/conftest.py).
    names = [path.rsplit(".", 1)[0].replace("/", ".") for path in (*files, *sources)]
    (OUT / "MODULES").write_text("".join(f"{name}\n" for name in names))
    print(f"build/compiled: {len(files)} modules compiled with mypyc, {len(sources)} C kernel(s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it can be built")
    args = parser.parse_args()
    reason = missing()
    if reason:
        print(f"the compiled copy cannot be built here: {reason}", file=sys.stderr)
        sys.exit(1)
    if not args.check:
        build()


if __name__ == "__main__":
    main()
