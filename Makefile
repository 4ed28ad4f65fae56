# The two commands of the README: `make run` and `make test`. Both install what is missing first.
JOBS ?= 2
DB ?= var/perftriage.sqlite
LISTEN ?= 127.0.0.1:8080
DEMO ?= --demo

.PHONY: deps build-dev build-release run test bench clean format tidy

deps:
	@scripts/install-deps.sh

build-release: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

build-dev: deps
	cmake --preset dev >/dev/null
	cmake --build --preset dev -j $(JOBS)

run: build-release
	@mkdir -p $(dir $(DB))
	./build/release/perftriage serve --db $(DB) --listen $(LISTEN) $(DEMO)

test: build-dev
	ctest --preset dev
	$(MAKE) --no-print-directory test-fuzz

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

# --- fuzzing: libFuzzer harnesses in fuzz/, clang, preset `fuzz` (build/fuzz) ---
# `make test` runs test-fuzz: every harness for 30 s through fuzz/run.sh (ctest label fuzz).
# `make fuzz FUZZ_SECONDS=600 [FUZZ_TARGETS="trace archive"]`: each harness in turn, summary per target.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
.PHONY: build-fuzz test-fuzz fuzz

build-fuzz: deps
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS)

test-fuzz: build-fuzz
	ctest --preset fuzz

fuzz: build-fuzz
	fuzz/run-all.sh build/fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)
