"""The committed generated code must be what `make proto` would write now."""

from __future__ import annotations

from pathlib import Path

import pytest

protoc = pytest.importorskip(
    "grpc_tools.protoc", reason="[dev] grpcio-tools (a dev dependency) is not installed"
)

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ["bot_pb2.py", "bot_pb2.pyi", "bot_pb2_grpc.py"]


def test_generated_code_is_current(tmp_path: Path) -> None:
    status = protoc.main(
        [
            "grpc_tools.protoc",
            f"-I{ROOT / 'protos'}",
            f"--python_out={tmp_path}",
            f"--grpc_python_out={tmp_path}",
            f"--pyi_out={tmp_path}",
            str(ROOT / "protos/arena/proto/bot.proto"),
        ]
    )
    assert status == 0, "protoc failed on protos/arena/proto/bot.proto"
    for name in GENERATED:
        fresh = (tmp_path / "arena/proto" / name).read_text()
        committed = (ROOT / "arena/proto" / name).read_text()
        assert committed == fresh, (
            f"arena/proto/{name} is stale: run `make proto` and commit the result"
        )


def test_generated_package_holds_nothing_hand_written() -> None:
    files = sorted(
        path.name for path in (ROOT / "arena/proto").iterdir() if path.suffix in (".py", ".pyi")
    )
    assert files == sorted(["__init__.py", *GENERATED])
