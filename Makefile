# Front end over CMake. `make` builds everything, `make test` runs the suite,
# `make backend=itt` builds only that backend (and apigen, which every backend needs).
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
backend ?=
SANITIZE ?=
WERROR ?= ON

CMAKE_FLAGS = -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DTRACER_BACKENDS="$(backend)" \
              -DTRACER_SANITIZE="$(SANITIZE)" -DTRACER_WERROR=$(WERROR)

.PHONY: all configure test bench bench-mpi models check-generated fuzz install deb clean help

all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

test: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Recording overhead and analysis speed against baselines (bench/RESULTS.md).
bench: all
	bench/run_bench.sh $(BUILD)

# Merging MPI jobs' per-node results, and the per-node reduction (bench/MPI_MERGE.md).
bench-mpi: all
	bench/mpi_merge_bench.sh $(BUILD)

# Regenerates every model from its spec and the installed headers.
models: configure
	cmake --build $(BUILD) --target apigen -j $(JOBS)
	$(BUILD)/bin/apigen --all --quiet

# Fails when generated/ differs from what apigen produces now.
check-generated: configure
	cmake --build $(BUILD) --target apigen -j $(JOBS)
	tests/generated_fresh_test.sh $(BUILD)/bin/apigen .

# Coverage-guided fuzzing of every reader of untrusted input (clang-19 and libFuzzer,
# outside the CMake build): FUZZ_SECONDS per target, from the seeds in tests/fuzz/corpus.
FUZZ_SECONDS ?= 60
fuzz:
	tests/fuzz/build_and_run.sh $(FUZZ_SECONDS)

install: all
	cmake --install $(BUILD)

# Debian packages tracer and tracer-dev (packaging/deb.cmake), in $(BUILD)/packages.
deb: all
	cd $(BUILD) && cpack -G DEB -B packages

clean:
	rm -rf $(BUILD)

help:
	@echo "make [backend=NAME[,NAME]]  build apigen and the backends (default: all)"
	@echo "make test                   build, then run the whole test suite"
	@echo "make bench                  measure overhead and analysis speed (bench/RESULTS.md)"
	@echo "make bench-mpi              merge MPI per-node results, per-node reduction (bench/MPI_MERGE.md)"
	@echo "make models                 regenerate generated/*/model.yaml from api-specs/"
	@echo "make check-generated        fail if generated/ is stale"
	@echo "make fuzz [FUZZ_SECONDS=60] fuzz every reader of untrusted input (tests/fuzz/)"
	@echo "make install PREFIX=DIR     install (default $(PREFIX)), module files included"
	@echo "make deb                    Debian packages tracer and tracer-dev in BUILD/packages"
	@echo "variables: BUILD=$(BUILD) SANITIZE=address,undefined WERROR=ON|OFF"
