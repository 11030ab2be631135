# The C kernel (_bitplanes.c), built into the compiled copy only (tools/compiled.py).
import numpy as np
import numpy.typing as npt

def encode(
    planes: tuple[int, ...], legal: int, actions: int, tail: list[float] | None, /
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]: ...
def encode_into(
    observations: npt.NDArray[np.float32],
    masks: npt.NDArray[np.int8],
    row: int,
    planes: tuple[int, ...],
    legal: int,
    tail: list[float] | None,
    /,
) -> None: ...
