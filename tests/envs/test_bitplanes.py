"""The C kernel that writes an observation and its mask (``arena/envs/_bitplanes.c``):
the compiled copy's, or, in the pure pass, built here from the same source."""

from __future__ import annotations

import contextlib
import importlib.util
import random
import subprocess
import sys
import sysconfig
import tracemalloc
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import numpy as np
import pytest

from arena.envs import gin_rummy_v0
from arena.envs._core import ENCODE
from arena.envs._gin import GinCore

SOURCE = Path(__file__).resolve().parents[2] / "arena" / "envs" / "_bitplanes.c"
ACTIONS = 109


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    try:
        from arena.envs import _bitplanes

        return _bitplanes
    except ImportError:
        pass
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        pytest.skip("[dev] no Python headers to build the kernel (apt-get install python3-dev)")
    out = tmp_path_factory.mktemp("kernel")
    setup = (
        "import numpy, sys\n"
        "from setuptools import Extension, setup\n"
        f"setup(name='k', ext_modules=[Extension('_bitplanes', [{str(SOURCE)!r}],"
        " include_dirs=[numpy.get_include()])], script_args=['build_ext', '--inplace'])\n"
    )
    built = subprocess.run([sys.executable, "-c", setup], cwd=out, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    spec = importlib.util.spec_from_file_location("_bitplanes", next(out.glob("_bitplanes*.so")))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference(
    planes: tuple[int, ...], legal: int, tail: list[float] | None, actions: int = ACTIONS
) -> Any:
    cells = np.array([[p >> i & 1 for i in range(52)] for p in planes], dtype=np.float32)
    mask = np.array([legal >> i & 1 for i in range(actions)], dtype=np.int8)
    if tail is None:
        return cells, mask
    return np.concatenate([cells.ravel(), np.array(tail, dtype=np.float32)]), mask


def random_case(rng: random.Random, with_tail: bool) -> tuple[Any, ...]:
    planes = tuple(rng.getrandbits(52) for _ in range(rng.choice([5, 10])))
    legal = rng.getrandbits(ACTIONS) & rng.choice([(1 << ACTIONS) - 1, 0b111, 1 << 108])
    tail = [rng.random() for _ in range(67)] if with_tail else None
    return planes, legal, tail


@pytest.mark.slow
def test_encode_writes_the_bits_and_the_tail(kernel: ModuleType) -> None:
    rng = random.Random(1)
    for number in range(300):
        planes, legal, tail = random_case(rng, with_tail=number % 2 == 0)
        observation, mask = kernel.encode(planes, legal, ACTIONS, tail)
        expected, expected_mask = reference(planes, legal, tail)
        assert observation.dtype == np.float32 and mask.dtype == np.int8
        np.testing.assert_array_equal(observation, expected)
        np.testing.assert_array_equal(mask, expected_mask)
        assert observation.flags.writeable and observation.flags.owndata


@pytest.mark.slow
def test_encode_into_writes_one_row_and_nothing_else(kernel: ModuleType) -> None:
    rng = random.Random(2)
    observations = np.full((4, 587), 7.0, dtype=np.float32)
    masks = np.full((4, ACTIONS), 7, dtype=np.int8)
    planes, legal, tail = random_case(rng, with_tail=True)
    planes = planes[:10] if len(planes) == 10 else (*planes, *planes)
    kernel.encode_into(observations, masks, 2, planes, legal, tail)
    expected, expected_mask = kernel.encode(planes, legal, ACTIONS, tail)
    np.testing.assert_array_equal(observations[2], expected)
    np.testing.assert_array_equal(masks[2], expected_mask)
    for row in (0, 1, 3):
        assert (observations[row] == 7.0).all() and (masks[row] == 7).all()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        (((1, 2), -1, ACTIONS, None), ValueError, "legal ids must be an int in 0 .. 2**109 - 1"),
        (((1, 2), 1 << ACTIONS, ACTIONS, None), ValueError, "2**109 - 1"),
        (((1, 2), 1 << 200, ACTIONS, None), ValueError, "2**109 - 1"),
        (((1, 2), 1 << 64, 60, None), ValueError, "2**60 - 1"),
        (((1 << 52,), 0, ACTIONS, None), ValueError, "bits past card 51"),
        (((-1,), 0, ACTIONS, None), OverflowError, "negative"),
        (([1, 2], 0, ACTIONS, None), TypeError, "planes must be a tuple"),
        ((("1",), 0, ACTIONS, None), TypeError, "a plane must be an int"),
        (((1,), 1.0, ACTIONS, None), TypeError, "legal ids must be an int"),
        (((1,), 0, 0, None), ValueError, "actions must be in 1 .. 128"),
        (((1,), 0, ACTIONS, (1.0,)), TypeError, "tail must be a list"),
        (((1,), 0, ACTIONS, ["x"]), TypeError, "real number"),
    ],
)
def test_encode_refuses_bad_arguments(
    kernel: ModuleType, arguments: tuple[Any, ...], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message.replace("*", r"\*").replace(".", r"\.")):
        kernel.encode(*arguments)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("observations", "masks", "row", "message"),
    [
        (np.zeros((2, 587), np.float64), np.zeros((2, ACTIONS), np.int8), 0, "float32"),
        (np.zeros((2, 587), np.float32), np.zeros((2, ACTIONS), np.uint8), 0, "int8"),
        (np.zeros((2, 587), np.float32), np.zeros((2, ACTIONS), np.int8), 2, "no row 2"),
        (np.zeros((2, 587), np.float32), np.zeros((2, ACTIONS), np.int8), -1, "no row -1"),
        (np.zeros((2, 586), np.float32), np.zeros((2, ACTIONS), np.int8), 0, "of 587 cells"),
        (np.zeros((587, 2), np.float32).T, np.zeros((2, ACTIONS), np.int8), 0, "C-contiguous"),
        (np.zeros(587, np.float32), np.zeros((2, ACTIONS), np.int8), 0, "2-D"),
        ([[0.0] * 587], np.zeros((1, ACTIONS), np.int8), 0, "numpy array"),
    ],
)
def test_encode_into_refuses_arrays_it_cannot_write(
    kernel: ModuleType, observations: Any, masks: Any, row: int, message: str
) -> None:
    planes = tuple(range(10))
    with pytest.raises((TypeError, ValueError), match=message):
        kernel.encode_into(observations, masks, row, planes, 0, [0.0] * 67)


@pytest.mark.slow
def test_encode_into_refuses_a_read_only_batch(kernel: ModuleType) -> None:
    observations = np.zeros((2, 587), np.float32)
    observations.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        kernel.encode_into(
            observations, np.zeros((2, ACTIONS), np.int8), 0, (0,) * 10, 0, [0.0] * 67
        )


@pytest.mark.slow
def test_encode_keeps_no_memory(kernel: ModuleType) -> None:
    planes, legal, tail = random_case(random.Random(3), with_tail=True)
    for _ in range(1000):  # warm: numpy's caches
        kernel.encode(planes, legal, ACTIONS, tail)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(20_000):
        kernel.encode(planes, legal, ACTIONS, tail)
        with contextlib.suppress(ValueError):  # the error path frees what it made
            kernel.encode(planes, -1, ACTIONS, tail)
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 100_000, f"{grown} bytes kept over 20,000 calls"


@pytest.mark.parametrize("encoding", ["arena", "rlcard"])
def test_observations_are_the_planes_tail_and_legal_ids_of_the_position(encoding: str) -> None:
    """Whichever way the arrays are made here (the kernel in the compiled copy, numpy
    calls in the pure one), they hold the core's planes, tail and legal ids."""
    env = gin_rummy_v0.raw_env(encoding=encoding)
    env.reset(seed=5)
    core = cast(GinCore, env.core)
    rng = random.Random(5)
    for _ in range(400):
        if all(env.terminations.values()):
            env.reset()
        for agent in env.agents:
            seat = int(agent.split("_")[1])
            observed = env.observe(agent)
            legal = core.legal_mask() if core.to_act() == seat else 0
            tail = None if encoding == "rlcard" else core.tail(seat)
            observation, mask = reference(core.planes(seat), legal, tail, core.num_actions)
            np.testing.assert_array_equal(observed["observation"], observation)
            np.testing.assert_array_equal(observed["action_mask"], mask)
        mask = env.observe(env.agent_selection)["action_mask"]
        ids = mask.nonzero()[0]
        env.step(int(ids[rng.randrange(len(ids))]))


def test_the_kernel_makes_the_arrays_wherever_it_is_built() -> None:
    """In the compiled copy (make test's second pass requires its module) the
    environments use it; a loader that quietly fell back to numpy would fail here."""
    if importlib.util.find_spec("arena.envs._bitplanes") is None:
        assert ENCODE is None
    else:
        from arena.envs import _bitplanes

        assert ENCODE is _bitplanes.encode
