# Every target installs what it needs into .venv first, so a fresh clone needs only
# Python 3.11+, make and the package registries.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
REFERENCE_STAMP := $(VENV)/.reference

.PHONY: run test bench lint install clean proto

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $@

# OpenSpiel is the reference for the differential test and the benchmark. Where it
# cannot be installed, those skip and say why; nothing else depends on it.
$(REFERENCE_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[reference]' \
	  || echo "warning: open-spiel could not be installed; the OpenSpiel comparisons will skip"
	touch $@

run: $(STAMP)
	$(BIN)/arena demo --seed 1

test: $(STAMP) $(REFERENCE_STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP) $(REFERENCE_STAMP)
	$(BIN)/python benchmarks/bench_engine.py

lint: $(STAMP)
	$(BIN)/ruff check arena tests benchmarks
	$(BIN)/mypy arena

# Regenerates arena/proto/ from protos/ (tests fail when the committed code is stale).
proto: $(STAMP)
	rm -f arena/proto/bot_pb2*.py arena/proto/bot_pb2*.pyi
	$(BIN)/python -m grpc_tools.protoc -Iprotos --python_out=. --grpc_python_out=. --pyi_out=. protos/arena/proto/bot.proto

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
