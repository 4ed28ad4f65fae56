# The two commands of the README: `make run` and `make test`. Both install what is missing first.
JOBS ?= 2
DB ?= var/perftriage.sqlite
LISTEN ?= 127.0.0.1:8080
DEMO ?= --demo

.PHONY: deps build-dev build-release run test check bench clean format tidy

deps:
	@scripts/install-deps.sh

build-release: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

build-dev: deps
	cmake --preset dev >/dev/null
	cmake --build --preset dev -j $(JOBS)

# `make run` builds the one binary it serves (the web assets are read from web/), not the tests or benchmarks.
run: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target perftriage
	@mkdir -p $(dir $(DB))
	./build/release/perftriage serve --db $(DB) --listen $(LISTEN) $(DEMO)

# Everything, as CI runs it: the dev build, then every CTest entry (unit, end-to-end, PostgreSQL, browser, structure,
# labeler floors, each fuzz harness briefly); ends with the build and test times and the ten slowest entries.
test: deps
	@JOBS=$(JOBS) tools/test.sh

# The hourly tier: builds the unit test executables and runs the unit tests of those that changed (CHECK_ALL=1: all).
check: deps
	@JOBS=$(JOBS) tools/check.sh

# Benchmarks build in the release preset only (the dev preset used by `make test` skips them).
bench: build-release
	./build/release/bench/ingest_bench
	./build/release/bench/compare_bench

clean:
	rm -rf build

# The style (.clang-format) applied to every C++ file; CTest `format` checks it.
format: deps
	git ls-files -co --exclude-standard -- '*.cpp' '*.hpp' | grep -v '^layers/' | xargs clang-format -i

# clang-tidy (.clang-tidy) over the project's sources, with the dev build's compile commands.
tidy: build-dev
	git ls-files -- '*.cpp' | grep -E '^(common|ingest|schema|analyzers|server)/' | \
	  xargs -P $(JOBS) -n 4 clang-tidy -p build/dev --quiet

# --- fuzzing: libFuzzer harnesses in fuzz/, built by the dev preset beside the tests (build/dev/fuzz) ---
# `make test` replays every corpus and regression and fuzzes each harness for 5 s (ctest label fuzz).
# `make fuzz FUZZ_SECONDS=600 [FUZZ_TARGETS="trace archive"]`: each harness in turn, summary per target.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
.PHONY: fuzz

fuzz: deps
	cmake --preset dev >/dev/null
	cmake --build --preset dev -j $(JOBS) --target perftriage_fuzzers
	fuzz/run-all.sh build/dev $(FUZZ_SECONDS) $(FUZZ_TARGETS)
