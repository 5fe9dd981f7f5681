# Thin wrapper: every target installs missing Debian packages, configures and builds incrementally.
#   make run    build, then run the default simulation
#   make test   build, then run the whole test suite (ctest)
#   make test-cluster  build, then run a sweep as a Slurm job array on a one-node cluster started
#               on localhost (installs slurm-wlm and munge when missing: needs root then)
#   make bench  build, then run the benchmarks and write their output into docs/generated/
#   make fuzz   build the libFuzzer harnesses with clang in FUZZ_BUILD, run each FUZZ_SECONDS
# Variables: BUILD (build directory, default build), SANITIZE=1 (ASan+UBSan), WERROR=1, JOBS,
# UNITY=1 (CMake unity build: eight sources per compiler run; default on with SANITIZE=1),
# RUN_ARGS (what `make run` passes to treesim after `info`), FUZZ_SECONDS (default 60),
# FUZZ_BUILD (default build-fuzz).
BUILD    ?= build
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
SANITIZE ?= 0
WERROR   ?= 0
BUILD_TYPE ?= $(if $(filter 1,$(SANITIZE)),Debug,Release)
# The sanitizer build compiles as a unity build: 7 min instead of 15 on 2 cores, since each source
# parses ~240,000 lines of headers (Boost.Graph, SystemC, the standard library) and instruments the
# same inline functions again. The plain build compiles each source alone, so a missing #include
# still fails there.
UNITY ?= $(SANITIZE)
FUZZ_SECONDS ?= 60
FUZZ_BUILD ?= build-fuzz
comma := ,

.PHONY: all deps configure build run test test-cluster bench fuzz format clean
all: build

deps:
	@tools/install-deps.sh

# Configure every time (a second or two): the options given now are the ones that count.
configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DTREESIM_SANITIZE=$(SANITIZE) -DTREESIM_WERROR=$(WERROR) \
	  -DCMAKE_UNITY_BUILD=$(if $(filter 1,$(UNITY)),ON,OFF) > $(BUILD).configure.log || \
	  { cat $(BUILD).configure.log; exit 1; }

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The default simulation: a 1024³ quantized GEMM on the MN-Core board, checked bit-exactly.
RUN_ARGS ?= run qgemm --machine configs/mncore-board.yaml --m 1024 --n 1024 --k 1024 --per-channel --verify

run: build
	$(BUILD)/tools/treesim info --machine configs/mncore-board.yaml
	$(BUILD)/tools/treesim $(RUN_ARGS)

# The sanitizer build skips the worked examples of the docs and the plot images: they compare text
# and pictures, and every command they run is also run by a test_tools case. It also skips the
# exhaustive planner properties on the MN-Core machines and mini's larger shapes (every plan of a
# GEMM, and the search under thousands of grown machines): they run the code mini's 37×50×129
# cases run, under the sanitizers 15-30 times slower (a die's 256³ LowerBounds 130 s, mini's 60-90
# s, GrowingAMemory… 260 s), which put `.ci/run` past its 90 minutes; the plain build runs them all.
SANITIZE_SKIP := '^(DocExamples|Plot)\.|^QgemmPlan/(LowerBounds|ExhaustiveSearch)\..*/(mncore_|mini_[12])|^GemmSearch\.(GrowingAMemory|MoreLm)'
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 300 $(if $(filter 1,$(SANITIZE)),-E $(SANITIZE_SKIP))

test-cluster: build
	tests/cluster/slurm_sweep_test.sh $(BUILD)/tools/treesim

# Every benchmark, each printed and written into docs/generated/ with the machine and the date
# (bench/run_benchmarks.py); BENCH=name,... runs only those.
bench: configure
	cmake --build $(BUILD) -j $(JOBS) --target benchmarks treesim
	/usr/bin/python3 bench/run_benchmarks.py $(BUILD) $(if $(BENCH),--only $(subst ${comma}, ,$(BENCH)))

# Sanitizers plus libFuzzer need clang; the harnesses and the sim libraries they link only, as a
# unity build like the sanitizer build's (81 s instead of 112 s on 2 cores).
fuzz: deps
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTREESIM_FUZZ=ON \
	  -DCMAKE_UNITY_BUILD=ON > $(FUZZ_BUILD).configure.log || { cat $(FUZZ_BUILD).configure.log; exit 1; }
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	tools/run-fuzzers.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(JOBS)

format:
	@command -v clang-format >/dev/null || { echo "make format: clang-format is not installed (apt-get install clang-format)"; exit 1; }
	clang-format -i $$(git ls-files '*.h' '*.cpp')

clean:
	rm -rf $(BUILD) $(BUILD).configure.log
