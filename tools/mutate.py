"""Mutation testing: do the tests notice when the code is wrong?

Each target (``tools/mutate_targets.toml``) names a module and the tests that should
catch a mistake in it.  The module is parsed with :mod:`ast`, and every place one of
the operators below applies makes one mutant: the module's source with that one change.
A sample of them, chosen by a seeded random generator (the same seed, the same
mutants), is run against the tests, one pytest each, with a timeout.  A mutant the
tests fail on (or time out on) is *killed*; one they pass is a *survivor*: a mistake
nobody would notice.  Survivors that can never be noticed, because they behave as the
original does, are listed in the config as *equivalent*, each with its reason.

The module file is never written: each pytest runs with a ``sitecustomize`` on its
``PYTHONPATH`` that loads the mutant's source in place of the module (in every Python
process the tests start, servers included), so a shared checkout never holds a
mutant, and an interrupted run leaves nothing to restore.

Operators: ``compare`` (``<`` to ``>=``, ``==`` to ``!=``, ``in`` to ``not in``...),
``negate`` (an ``if``/``while``/conditional-expression test wrapped in ``not``),
``number`` (a number +1 and -1), ``string`` (a non-empty string emptied), ``bool``
(``True``/``False`` swapped), ``drop`` (one element of a list, tuple or set literal
left out), ``delete`` (a statement replaced by ``pass``), ``boolop`` (``and``/``or``
swapped), ``not`` (a ``not`` removed), ``return`` (a returned value replaced by
``None``).  Docstrings, annotations, f-strings and ``__all__`` are left alone.

A mutant's id is ``MODULE:LINE:OPERATOR:N:HASH``: N counts the operator's mutants on
that line, HASH is a short hash of the line's text and of the change, so an id in the
config still matches after lines above it moved (ids are matched with any LINE).

    python tools/mutate.py                      # every target; exit 1 if one is below its bar
    python tools/mutate.py --target arena/archives.py --sample 0   # all mutants
    python tools/mutate.py --list --target arena/archives.py       # ids, no runs
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import hashlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from arena.submissions.cleanup import remove_tree  # noqa: E402  (any depth: see there)

CONFIG = ROOT / "tools" / "mutate_targets.toml"
PYTEST = ["-x", "-q", "-p", "no:cacheprovider", "--no-header", "-o", "addopts="]

_FLIP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_DELETABLE = (
    ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Assert, ast.If,
    ast.For, ast.While, ast.With, ast.Delete, ast.Continue, ast.Break, ast.Try,
)  # fmt: skip

# The sitecustomize each pytest of a mutant starts with: the target module's source is
# the mutant's, wherever it is imported (its __file__ stays the original's).
_HOOK = """
import importlib.abc, importlib.util, os, sys

_NAME = os.environ.get("ARENA_MUTANT_MODULE")
_SOURCE = os.environ.get("ARENA_MUTANT_SOURCE")
_FILE = os.environ.get("ARENA_MUTANT_FILE")


class _Mutant(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != _NAME:
            return None
        return importlib.util.spec_from_file_location(fullname, _FILE, loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        code = compile(self.get_source(_NAME), _FILE, "exec", dont_inherit=True)
        exec(code, module.__dict__)

    def get_source(self, fullname):
        # A module that hands its own source to another process (the bot launcher,
        # arena.hosting.confine) asks its loader for it: the mutant's.
        with open(_SOURCE, encoding="utf-8") as file:
            return file.read()


if _NAME and _SOURCE and _FILE:
    sys.meta_path.insert(0, _Mutant())
"""


@dataclass(frozen=True)
class Mutant:
    module: str  # its path, relative to the repository
    line: int
    operator: str
    index: int  # among this operator's mutants on this line
    digest: str
    before: str  # the source line
    after: str  # the line as the mutant has it (its first line, for a longer change)
    source: str  # the whole mutated module

    @property
    def id(self) -> str:
        return f"{self.module}:{self.line}:{self.operator}:{self.index}:{self.digest}"


@dataclass(frozen=True)
class _Site:
    operator: str
    node: ast.AST
    replacement: str  # source text for the node's span


@dataclass
class Target:
    module: str
    tests: list[str]
    sample: int = 0  # 0: every mutant
    timeout: float = 120.0  # seconds per mutant's pytest
    threshold: float = 0.90  # of non-equivalent mutants killed
    pytest_args: list[str] = field(default_factory=list)
    only: list[str] = field(default_factory=list)  # functions/classes mutated (none: all)

    @property
    def name(self) -> str:
        return f"{self.module} ({', '.join(self.only)})" if self.only else self.module


@dataclass(frozen=True)
class Result:
    mutant: Mutant
    status: str  # "killed", "timeout", "survived", "equivalent"
    seconds: float
    reason: str = ""  # an equivalent mutant's


# -- finding mutants ---------------------------------------------------------------


def _skipped_nodes(tree: ast.Module) -> set[int]:
    """Nodes not to mutate: docstrings, annotations, f-strings, __all__ (ids of nodes)."""
    skipped: set[int] = set()

    def skip(node: ast.AST | None) -> None:
        if node is not None:
            skipped.update(id(inner) for inner in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):  # a docstring
                skip(first)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            skip(node.returns)
            arguments = [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs]
            arguments += [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
            for argument in arguments:
                skip(argument.annotation)
        if isinstance(node, ast.AnnAssign):
            skip(node.annotation)
        if isinstance(node, ast.JoinedStr):
            skip(node)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            skip(node)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            skip(node)
    return skipped


def _within(tree: ast.Module, only: list[str]) -> set[int]:
    """The nodes inside the functions or classes named in ``only`` (``name`` at the top
    level, ``Class.name`` for a method)."""
    inside: set[int] = set()

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if name in only:
                    inside.update(id(inner) for inner in ast.walk(child))
                visit(child, f"{name}.")

    visit(tree, "")
    return inside


def _sites(tree: ast.Module, only: list[str]) -> Iterator[_Site]:
    skipped = _skipped_nodes(tree)
    inside = _within(tree, only) if only else None
    for node in ast.walk(tree):
        if id(node) in skipped or not hasattr(node, "lineno"):
            continue
        if inside is not None and id(node) not in inside:
            continue
        yield from _node_sites(node)


def _text(node: ast.AST) -> str:
    return f"({ast.unparse(node)})" if isinstance(node, ast.expr) else ast.unparse(node)


def _node_sites(node: ast.AST) -> Iterator[_Site]:
    if isinstance(node, ast.Compare):
        for k, op in enumerate(node.ops):
            compare = copy.deepcopy(node)
            compare.ops[k] = _FLIP[type(op)]()
            yield _Site("compare", node, _text(compare))
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        yield _Site("negate", node.test, f"(not ({ast.unparse(node.test)}))")
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            yield _Site("bool", node, repr(not value))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield _Site("number", node, f"({value + 1!r})")
            yield _Site("number", node, f"({value - 1!r})")
        elif isinstance(value, str) and value:
            yield _Site("string", node, "''")
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not isinstance(
        getattr(node, "ctx", None), (ast.Store, ast.Del)
    ):
        for k in range(len(node.elts)):
            fewer = copy.deepcopy(node)
            del fewer.elts[k]
            if isinstance(fewer, ast.Set) and not fewer.elts:
                yield _Site("drop", node, "set()")
            else:
                yield _Site("drop", node, _text(fewer))
    if isinstance(node, _DELETABLE):
        yield _Site("delete", node, "pass")
    if isinstance(node, ast.BoolOp):
        swapped = copy.deepcopy(node)
        swapped.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield _Site("boolop", node, _text(swapped))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield _Site("not", node, _text(node.operand))
    returned = node.value if isinstance(node, ast.Return) else None
    if returned is not None and not (isinstance(returned, ast.Constant) and returned.value is None):
        yield _Site("return", returned, "None")


def _splice(lines: list[bytes], node: ast.AST, text: str) -> tuple[str, str]:
    """The module with ``node``'s span replaced by ``text``; and its changed first line."""
    first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
    start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
    head, tail = lines[first][:start], lines[last][end:]
    changed = head + text.encode() + tail
    source = b"".join([*lines[:first], changed, *lines[last + 1 :]])
    return source.decode(), changed.decode().rstrip("\n")


def mutants(module: str, only: list[str] | None = None) -> list[Mutant]:
    """Every mutant of ``module`` (a path relative to the repository), in a fixed order;
    with ``only``, of those functions and classes alone."""
    text = (ROOT / module).read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.encode().splitlines(keepends=True)
    found: list[tuple[int, int, str, str, str]] = []
    for site in _sites(tree, only or []):
        source, after = _splice(lines, site.node, site.replacement)
        if source == text:
            continue
        try:
            compile(source, module, "exec", dont_inherit=True)
        except SyntaxError:
            continue
        found.append((site.node.lineno, site.node.col_offset, site.operator, after, source))  # type: ignore[attr-defined]
    found.sort(key=lambda item: (item[0], item[2], item[1], item[3]))
    result: list[Mutant] = []
    counts: dict[tuple[int, str], int] = {}
    for line, _, operator, after, source in found:
        index = counts.get((line, operator), 0)
        counts[(line, operator)] = index + 1
        before = lines[line - 1].decode().rstrip("\n")
        digest = hashlib.sha256(f"{before.strip()}\0{after.strip()}".encode()).hexdigest()[:8]
        result.append(Mutant(module, line, operator, index, digest, before, after, source))
    return result


def _without_line(mutant_id: str) -> str:
    parts = mutant_id.split(":")
    return ":".join([parts[0], *parts[2:]])


# -- running them --------------------------------------------------------------------


class Runner:
    def __init__(self, python: str, jobs: int) -> None:
        self.python = python
        self.jobs = jobs
        self.hook_dir = Path(tempfile.mkdtemp(prefix="arena-mutate-"))
        (self.hook_dir / "sitecustomize.py").write_text(_HOOK)
        self._running: set[subprocess.Popen[bytes]] = set()

    def close(self) -> None:
        for process in list(self._running):
            _kill(process)
        remove_tree(self.hook_dir)

    def pytest(self, target: Target, mutant: Mutant | None) -> tuple[str, float]:
        """("passed" | "failed" | "timeout", seconds) of the target's tests on ``mutant``
        (None: on the module as it is)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(self.hook_dir), str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
        )
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        with tempfile.NamedTemporaryFile("w", suffix=".py", dir=self.hook_dir, delete=False) as f:
            if mutant is not None:
                f.write(mutant.source)
                env["ARENA_MUTANT_MODULE"] = _dotted(target.module)
                env["ARENA_MUTANT_SOURCE"] = f.name
                env["ARENA_MUTANT_FILE"] = str(ROOT / target.module)
        # Its own temporary folder, removed after it: a mutant of a remover may leave a
        # tree deeper than pytest's own clean-up (shutil.rmtree) can remove.
        basetemp = Path(tempfile.mkdtemp(prefix="pytest-", dir=self.hook_dir))
        argv = [self.python, "-m", "pytest", *PYTEST, f"--basetemp={basetemp}",
                *target.pytest_args, *target.tests]  # fmt: skip
        started = time.monotonic()
        try:
            process = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip
            self._running.add(process)
            try:
                code = process.wait(timeout=target.timeout)
            except subprocess.TimeoutExpired:
                _kill(process)
                return "timeout", time.monotonic() - started
            finally:
                self._running.discard(process)
                _kill(process)  # whatever it started in its session
        finally:
            os.unlink(f.name)
            remove_tree(basetemp)
        return ("passed" if code == 0 else "failed"), time.monotonic() - started


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _dotted(module: str) -> str:
    return module.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


# -- config and report ---------------------------------------------------------------


def load_config(path: Path) -> tuple[list[Target], dict[str, str], int]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    targets = [
        Target(
            module=entry["module"],
            tests=list(entry["tests"]),
            sample=int(entry.get("sample", 0)),
            timeout=float(entry.get("timeout", 120)),
            threshold=float(entry.get("threshold", 0.90)),
            pytest_args=list(entry.get("pytest_args", [])),
            only=list(entry.get("only", [])),
        )
        for entry in data.get("target", [])
    ]
    equivalent = {entry["id"]: entry["reason"] for entry in data.get("equivalent", [])}
    return targets, equivalent, int(data.get("seed", 0))


def _equivalent_reason(
    mutant: Mutant, equivalent: dict[str, str], ambiguous: set[str] | frozenset[str] = frozenset()
) -> str | None:
    """The config's reason for ``mutant``: by its id, or by its id with any line unless
    another mutant of the module has that too (the same change to a line written twice)."""
    if mutant.id in equivalent:
        return equivalent[mutant.id]
    loose = _without_line(mutant.id)
    if loose in ambiguous:
        return None
    for known, reason in equivalent.items():
        if _without_line(known) == loose:
            return reason
    return None


def _ambiguous(all_mutants: list[Mutant]) -> set[str]:
    seen: set[str] = set()
    twice: set[str] = set()
    for mutant in all_mutants:
        loose = _without_line(mutant.id)
        (twice if loose in seen else seen).add(loose)
    return twice


def choose(all_mutants: list[Mutant], sample: int, seed: int) -> list[Mutant]:
    if sample <= 0 or sample >= len(all_mutants):
        return list(all_mutants)
    chosen = random.Random(f"{seed}:{all_mutants[0].module}").sample(all_mutants, sample)
    return sorted(chosen, key=all_mutants.index)


def run_target(
    runner: Runner,
    target: Target,
    equivalent: dict[str, str],
    sample: int,
    seed: int,
    ids: list[str] | None = None,
) -> list[Result]:
    every = mutants(target.module, target.only)
    ambiguous = _ambiguous(every)
    chosen = choose(every, sample, seed)
    if ids:
        chosen = [m for m in every if m.id in ids or _without_line(m.id) in map(_without_line, ids)]
    outcome, seconds = runner.pytest(target, None)
    if outcome != "passed":
        raise SystemExit(
            f"{target.module}: its tests do not pass on the module as it is ({outcome}): "
            f"{' '.join(target.tests)}"
        )
    print(
        f"{target.name}: {len(chosen)} mutants, tests take {seconds:.1f} s unmutated",
        file=sys.stderr,
    )

    def one(mutant: Mutant) -> Result:
        reason = _equivalent_reason(mutant, equivalent, ambiguous)
        if reason is not None:
            return Result(mutant, "equivalent", 0.0, reason)
        outcome, took = runner.pytest(target, mutant)
        status = {"passed": "survived", "failed": "killed", "timeout": "timeout"}[outcome]
        print(f"  {status:9} {took:6.1f}s  {mutant.id}", file=sys.stderr)
        return Result(mutant, status, took)

    with ThreadPoolExecutor(max_workers=runner.jobs) as pool:
        return list(pool.map(one, chosen))


def report(target: Target, results: list[Result]) -> bool:
    """Print the target's table and survivors; whether it reaches its threshold."""
    killed = sum(r.status in ("killed", "timeout") for r in results)
    survived = [r for r in results if r.status == "survived"]
    equivalent = sum(r.status == "equivalent" for r in results)
    counted = len(results) - equivalent
    rate = killed / counted if counted else 1.0
    ok = rate >= target.threshold
    print(f"\n{target.name}")
    print(f"  {'mutants':>8} {'killed':>7} {'survived':>9} {'equivalent':>11} {'kill rate':>10}")
    print(
        f"  {len(results):>8} {killed:>7} {len(survived):>9} {equivalent:>11} {rate:>9.1%}"
        f"  {'ok' if ok else f'BELOW {target.threshold:.0%}'}"
    )
    by_operator: dict[str, list[int]] = {}
    for r in results:
        counts = by_operator.setdefault(r.mutant.operator, [0, 0])
        counts[0] += r.status in ("killed", "timeout")
        counts[1] += r.status != "equivalent"
    print(
        "  by operator: " + ", ".join(f"{op} {k}/{n}" for op, (k, n) in sorted(by_operator.items()))
    )
    for r in survived:
        print(f"  survived {r.mutant.id}")
        print(f"    - {r.mutant.before.strip()}")
        print(f"    + {r.mutant.after.strip()}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--target", action="append", help="a module path (repeatable)")
    parser.add_argument("--seed", type=int, help="the sample's seed (default: the config's)")
    parser.add_argument("--sample", type=int, help="mutants per target (0: all)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument("--list", action="store_true", help="print the mutants' ids and changes")
    parser.add_argument(
        "--mutant", action="append", metavar="ID", help="run only this mutant (repeatable)"
    )
    args = parser.parse_args(argv)
    targets, equivalent, seed = load_config(args.config)
    if args.target:
        known = {t.module for t in targets}
        unknown = [t for t in args.target if t not in known]
        if unknown:
            parser.error(f"not a target in {args.config.name}: {', '.join(unknown)}")
        targets = [t for t in targets if t.module in args.target]
    seed = seed if args.seed is None else args.seed
    if args.list:
        for target in targets:
            sample = target.sample if args.sample is None else args.sample
            every = mutants(target.module, target.only)
            ambiguous = _ambiguous(every)
            for mutant in choose(every, sample, seed):
                mark = " (equivalent)" if _equivalent_reason(mutant, equivalent, ambiguous) else ""
                print(
                    f"{mutant.id}{mark}\n    - {mutant.before.strip()}\n    + {mutant.after.strip()}"
                )
        return 0
    runner = Runner(sys.executable, max(1, args.jobs))
    # SIGTERM too ends through the finally below: its pytests killed, its folder removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ok = True
    try:
        for target in targets:
            sample = target.sample if args.sample is None else args.sample
            results = run_target(runner, target, equivalent, sample, seed, args.mutant)
            ok = report(target, results) and ok
    except KeyboardInterrupt:
        print("\ninterrupted: no module was changed (mutants are never written over it)")
        return 130
    finally:
        runner.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
