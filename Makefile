# Every target installs what it needs into .venv first, so a fresh clone needs only
# Python 3.11+, make and the package registries.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
REFERENCE_STAMP := $(VENV)/.reference
JS_STAMP := sample_bots/js/node_modules/.package-lock.json

COMPILED := build/compiled/MODULES

.PHONY: run test bench lint install clean proto compiled

install: $(STAMP)

# The sample bots are a separate plugin package (sample_bots/python), installed
# the way any third-party plugin would be.
$(STAMP): pyproject.toml sample_bots/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dev]' -e sample_bots/python
	touch $@

# The JavaScript starter bot's gRPC packages; without node/npm its tests skip.
$(JS_STAMP): sample_bots/js/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  cd sample_bots/js && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error; \
	else echo "warning: npm not found; the JavaScript bot will not run"; fi

# OpenSpiel is the reference for the differential test and the benchmark. Where it
# cannot be installed, those skip and say why; nothing else depends on it.
$(REFERENCE_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[reference]' \
	  || echo "warning: open-spiel could not be installed; the OpenSpiel comparisons will skip"
	touch $@

# The main job: a small ladder of the sample bots, ending with the leaderboard.
run: $(STAMP) $(JS_STAMP)
	rm -rf runs/samples && mkdir -p runs/samples
	$(BIN)/arena ladder create ladders/samples.toml --db runs/samples/samples.sqlite
	$(BIN)/arena ladder run runs/samples/samples.sqlite

# The whole suite; then, where a C compiler is at hand, the whole suite again against
# the compiled copy (mypyc checks declared types at run time, so it can fail where
# Python did not).
test: $(STAMP) $(REFERENCE_STAMP) $(JS_STAMP)
	$(BIN)/python -m pytest -q
	@if $(BIN)/python tools/compiled.py --check; then \
	  $(MAKE) --no-print-directory compiled && \
	  echo "the same tests against build/compiled:" && \
	  PYTHONPATH=build/compiled ARENA_EXPECT_COMPILED=$(COMPILED) \
	    $(BIN)/pytest -q -p no:cacheprovider; \
	else echo "skipped: the tests against the compiled copy"; fi

# build/compiled: arena/ with the referee's hot modules compiled by mypyc
# (run anything with PYTHONPATH=build/compiled to use it).
compiled: $(COMPILED)

$(COMPILED): $(STAMP) tools/compiled.py pyproject.toml $(shell find arena -name '*.py')
	$(BIN)/python tools/compiled.py

# Every benchmark, each printing a table (about 20 minutes on 2 cores in all).
# The engine and the referee are measured again on the compiled copy, where it builds.
bench: $(STAMP) $(REFERENCE_STAMP)
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_protocol.py
	@if $(BIN)/python tools/compiled.py --check; then \
	  $(MAKE) --no-print-directory compiled && \
	  PYTHONPATH=build/compiled $(BIN)/python benchmarks/bench_engine.py && \
	  PYTHONPATH=build/compiled $(BIN)/python benchmarks/bench_protocol.py; fi
	$(BIN)/python benchmarks/bench_rummy.py
	$(BIN)/python benchmarks/bench_ladder.py
	$(BIN)/python benchmarks/bench_strong.py

lint: $(STAMP)
	$(BIN)/ruff check arena tests benchmarks tools
	$(BIN)/mypy arena

# Regenerates arena/proto/ from protos/ (tests fail when the committed code is stale).
proto: $(STAMP)
	rm -f arena/proto/bot_pb2*.py arena/proto/bot_pb2*.pyi
	$(BIN)/python -m grpc_tools.protoc -Iprotos --python_out=. --grpc_python_out=. --pyi_out=. protos/arena/proto/bot.proto
	cp protos/arena/proto/bot.proto sample_bots/js/protos/arena/proto/bot.proto  # the kit travels whole

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache .hypothesis runs sample_bots/js/node_modules
