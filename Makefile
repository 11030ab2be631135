# Every target installs what it needs into .venv first, so a fresh clone needs only
# Python 3.11+, make and the package registries.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
REFERENCE_STAMP := $(VENV)/.reference
LEARN_STAMP := $(VENV)/.learn
JS_STAMP := sample_bots/js/node_modules/.package-lock.json

COMPILED := build/compiled/MODULES
# The compiled copy holds the cards, the Gin engine and the protocol codecs
# (tools/compiled.py): its pass runs the tests of those layers, and of the referee that
# drives them in-process. Everything else runs the same Python code in both passes (bots
# run in processes of their own, on the pure package), so the first pass covers it.
COMPILED_LAYERS := tests/cards tests/gin_rummy tests/rummy tests/protocol tests/policies \
  tests/test_openspiel_differential.py tests/referee/test_match_loop.py \
  tests/referee/test_information_hiding.py tests/referee/test_end_to_end.py tests/envs

.PHONY: run test test-fast check bench lint install clean proto compiled go-bot cpp-bot mutate

install: $(STAMP)

# The sample bots are a separate plugin package (sample_bots/python), installed
# the way any third-party plugin would be.
# setuptools tells of every editable install that a folder named like the package in
# the current directory could shadow it: this project's is that folder, so the note
# is filtered out (by its text) rather than shown on every install.
QUIET_EDITABLE := PYTHONWARNINGS='ignore:Editable installation'
$(STAMP): pyproject.toml sample_bots/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -e '.[test,dev,dask]' -e sample_bots/python
	touch $@

# The JavaScript starter bot's gRPC packages; without node/npm its tests skip.
$(JS_STAMP): sample_bots/js/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  cd sample_bots/js && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error; \
	else echo "warning: npm not found; the JavaScript bot will not run"; fi

# The Go starter bot, built offline from Debian's Go packages (sample_bots/go/README.md);
# without them its tests skip. The kit's own Makefile knows when to rebuild.
GO_KIT_PACKAGES := golang golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc protobuf-compiler
go-bot:
	@if command -v go >/dev/null 2>&1 && command -v protoc-gen-go-grpc >/dev/null 2>&1 \
	  && [ -d /usr/share/gocode/src/google.golang.org/grpc/health ]; then \
	  $(MAKE) --no-print-directory -C sample_bots/go; \
	else echo "warning: Go or its gRPC packages not found ($(GO_KIT_PACKAGES)); the Go bot will not run"; fi

# The C++ starter bot, built offline from Debian's grpc++ packages; without them its
# tests skip.
CPP_KIT_PACKAGES := g++ make pkg-config libgrpc++-dev protobuf-compiler-grpc
cpp-bot:
	@if command -v grpc_cpp_plugin >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 \
	  && pkg-config --exists grpc++ protobuf 2>/dev/null; then \
	  $(MAKE) --no-print-directory -C sample_bots/cpp -j2; \
	else echo "warning: g++ or gRPC's C++ packages not found ($(CPP_KIT_PACKAGES)); the C++ bot will not run"; fi

# The learning environments' extra (arena.envs: numpy, Gymnasium, PettingZoo): the fast
# loop runs their tests and mypy reads their types.
$(LEARN_STAMP): $(STAMP)
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -e '.[learn]' \
	  || echo "warning: the learn extra could not be installed; tests/envs will skip"
	touch $@

# OpenSpiel is the reference for the differential test and the benchmark. Where it
# cannot be installed, those skip and say why; nothing else depends on it.  RLCard, the
# reference of the environments' RLCard encoding, comes here too.
$(REFERENCE_STAMP): $(LEARN_STAMP)
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -e '.[reference]' \
	  || echo "warning: open-spiel could not be installed; the OpenSpiel comparisons will skip"
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -e '.[learn-reference]' \
	  || echo "warning: rlcard could not be installed; the RLCard comparisons will skip"
	touch $@

# The main job: a small ladder of the sample bots, ending with the leaderboard and the
# command that shows it in a browser.
run: $(STAMP) $(JS_STAMP)
	rm -rf runs/samples && mkdir -p runs/samples
	$(BIN)/arena ladder create ladders/samples.toml --db runs/samples/samples.sqlite
	$(BIN)/arena ladder run runs/samples/samples.sqlite
	@echo
	@echo "To look at it in a browser (leaderboard, plots, every match's replay):"
	@echo "  $(BIN)/arena serve runs/samples/samples.sqlite    # then open http://127.0.0.1:8000/"

# The whole suite, spread over the cores (pytest-xdist; the sandbox's uid leases are
# machine-wide locks, so parallel tests take distinct uids); then, where a C compiler is
# at hand, the tests of the compiled layers again against the compiled copy (mypyc
# checks declared types at run time, so it can fail where Python did not).
TEST_WORKERS ?= 2
test: $(STAMP) $(REFERENCE_STAMP) $(JS_STAMP) go-bot cpp-bot
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --durations=15
	@if $(BIN)/python tools/compiled.py --check; then \
	  $(MAKE) --no-print-directory compiled && \
	  echo "the tests of the compiled layers again, against build/compiled:" && \
	  PYTHONPATH=build/compiled ARENA_EXPECT_COMPILED=$(COMPILED) \
	    $(BIN)/pytest -q -p no:cacheprovider $(COMPILED_LAYERS); \
	else echo "skipped: the tests against the compiled copy"; fi

# The fast loop: every test that starts no process, server or browser (those are marked
# slow), spread over the cores; it installs nothing beyond the venv (no OpenSpiel, npm,
# Go or C++).  A test it runs that starts a process fails (tests/conftest.py).
test-fast: $(LEARN_STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "not slow" -p no:cacheprovider

# Before a commit: the linters and the fast loop.
check: lint test-fast

# build/compiled: arena/ with the referee's hot modules compiled by mypyc
# (run anything with PYTHONPATH=build/compiled to use it). It is rebuilt when any file
# under arena/ changes: the web view's templates and assets are copied too.
compiled: $(COMPILED)

$(COMPILED): $(STAMP) tools/compiled.py pyproject.toml $(shell find arena -type f -not -path '*/__pycache__/*')
	$(BIN)/python tools/compiled.py

# Every benchmark, each printing a table (about 25 minutes on 2 cores in all, and
# about 40 more for bench_reference_bots at 400 Gin games a row; the issue's
# 2,000-game measure is --games 2000).
# The engine and the referee are measured again on the compiled copy, where it builds.
bench: $(STAMP) $(REFERENCE_STAMP)
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_protocol.py
	@if $(BIN)/python tools/compiled.py --check; then \
	  $(MAKE) --no-print-directory compiled && \
	  PYTHONPATH=build/compiled $(BIN)/python benchmarks/bench_engine.py && \
	  PYTHONPATH=build/compiled $(BIN)/python benchmarks/bench_protocol.py; fi
	$(BIN)/python benchmarks/bench_envs.py
	@if [ -f $(COMPILED) ]; then PYTHONPATH=build/compiled $(BIN)/python benchmarks/bench_envs.py; fi
	$(BIN)/python benchmarks/bench_rummy.py
	$(BIN)/python benchmarks/bench_startup.py
	$(BIN)/python benchmarks/bench_jail.py
	$(BIN)/python benchmarks/bench_throughput.py
	$(BIN)/python benchmarks/bench_cold_ladder.py
	$(BIN)/python benchmarks/bench_ladder.py
	$(BIN)/python benchmarks/bench_service.py
	$(BIN)/python benchmarks/bench_dask.py
	$(BIN)/python benchmarks/bench_strong.py
	$(BIN)/python benchmarks/bench_reference_bots.py --games 400 --hands 2000 --rummy-games 480
	$(BIN)/python benchmarks/bench_race.py
	$(BIN)/python benchmarks/bench_fuzz.py
	$(BIN)/python benchmarks/bench_web.py
	$(BIN)/python benchmarks/bench_upload_memory.py
	$(BIN)/python benchmarks/bench_ratings.py

LINTED := arena tests benchmarks tools examples

lint: $(LEARN_STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy arena
	$(BIN)/mypy --config-file tests/mypy.ini tests benchmarks

# Mutation testing (tools/mutate.py, docs/MUTATION.md): each target of
# tools/mutate_targets.toml against its tests, one pytest per mutant; fails when a target
# kills under 90% of its non-equivalent mutants.  MUTATE_ARGS="--target arena/x.py
# --sample 50 --seed 1 --jobs 2" narrows or widens a run.
# The sandbox's tests must run, not skip, for its mutants to mean anything: on a host
# without bwrap or Landlock the unmutated run fails and says why.
mutate: $(STAMP)
	ARENA_REQUIRE_SANDBOX=bwrap,landlock $(BIN)/python tools/mutate.py $(MUTATE_ARGS)

# Regenerates arena/proto/ from protos/ (tests fail when the committed code is stale).
proto: $(STAMP)
	rm -f arena/proto/bot_pb2*.py arena/proto/bot_pb2*.pyi
	$(BIN)/python -m grpc_tools.protoc -Iprotos --python_out=. --grpc_python_out=. --pyi_out=. protos/arena/proto/bot.proto
	cp protos/arena/proto/bot.proto sample_bots/js/protos/arena/proto/bot.proto  # the kit travels whole

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache .hypothesis runs sample_bots/js/node_modules sample_bots/go/.gopath sample_bots/go/bot
	$(MAKE) --no-print-directory -C sample_bots/cpp clean
