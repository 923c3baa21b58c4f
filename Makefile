# syncfab front door. `make test` is what CI runs.
BUILD   ?= build
JOBS    ?= $(shell nproc)
CMAKE_FLAGS ?=
PY      := .venv/bin/python
CTEST   := ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

.PHONY: all deps configure build run test regress coverage fuzz lint waves bench bench-sim bench-route bench-barrier bench-system bench-collective bench-vp scenarios vp docs format clean help

all: build

help:
	@echo "make run        the system flow: 32 verilated NICs through verilated switches, routed, programmed, compared with the golden fabric"
	@echo "make test       build and run the test suite (what CI runs)"
	@echo "make regress    all tests, every seed, slow ones included"
	@echo "make regress SLURM=1 [SLURM_ARGS=...]   the same as Slurm job arrays (scripts/slurm/regress.py --help)"
	@echo "make coverage [COV_SEEDS=A-B] [COV_TOP8=ON]   line, toggle and functional coverage of the RTL tests over seeds A-B (default 1-5), in build-cov; see docs/coverage.md"
	@echo "make fuzz FUZZ_TIME=<s>   libFuzzer (ASan + UBSan) and atheris on every parser and decoder, <s> seconds each (default 60), in build-fuzz; see docs/fuzz.md"
	@echo "make lint       source style (verible, clang-format), verilator --lint-only -Wall on all RTL, clang-tidy on C++"
	@echo "make waves TEST=<name> SEED=<n>   re-run one test with FST tracing"
	@echo "make vp [VP_ARGS='...']   the unchanged driver on the SystemC/TLM virtual platform (syncfab-vp; VP_ARGS e.g. '--nic rtl:0,3 --wait irq'; syncfab-vp --help)"
	@echo "make bench      benchmarks (simulation speed, DAMQ traffic, barrier latency, routing)"
	@echo "make bench-sim  simulation speed of every verilated model, harness and fabric, and compile times, into docs/bench-sim.{md,csv}"
	@echo "make bench-route  the routing benchmark alone, into docs/bench-route.{md,csv,png}"
	@echo "make bench-barrier  NIC barrier latency on the verilated fabric, into docs/bench-barrier.{md,csv,png}"
	@echo "make bench-system  the system flow timed (32 and 128 NICs), latencies RTL vs model vs bound, into docs/bench-system.{md,csv}"
	@echo "make bench-collective  group barriers against the physical bound (RTL p = 8..128, event-driven golden fabric to 100,000 nodes) and under concurrency, into docs/bench-collective*.{md,csv,png}"
	@echo "make bench-vp   the virtual platform's speed: instructions per barrier and barriers per wall second against the model loop and the coroutine harness (prints the tables of docs/virtual-platform.md)"
	@echo "make scenarios  the 8-to-1 incast's congestion scenarios (PFC only, DCQCN, DCQCN + dynamic ECN; ECMP off and on on the fat tree) with barriers through them, seeds 1-3: docs/congestion-*.{csv,png} (docs/congestion-scenarios.md)"
	@echo "make format     rewrite SystemVerilog (verible) and C++ (clang-format) in the checked-in style"
	@echo "make docs       format and register references into $(BUILD)/docs"
	@echo "make deps       install the pinned toolchain (scripts/toolchain.txt)"

deps:
	@scripts/deps.sh

# A configure failure that the project diagnosed (a "syncfab:" line: missing
# tool, bad spec) prints just that; anything else prints the whole log.
# A changed .f file list also re-configures here, before Ninja runs: Ninja
# would first re-run the models' configure-time Verilator steps with their
# old command lines, which fail when a list gained a file (a pull or a
# branch switch that adds a package to a block).
$(BUILD)/build.ninja: CMakeLists.txt $(shell find rtl tests tb sim -name '*.f' 2>/dev/null)
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) >$(BUILD).configure.log 2>&1 || \
	  { grep -q 'syncfab:' $(BUILD).configure.log && sed -n '/syncfab:/,/^$$/p' $(BUILD).configure.log \
	    || cat $(BUILD).configure.log; \
	    echo "(full log: $(BUILD).configure.log)"; exit 1; }

configure: deps $(BUILD)/build.ninja

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@scripts/run.sh $(BUILD)

test: build
	@mkdir -p $(BUILD)/test-results
	@$(CTEST) -LE slow --output-junit test-results/ctest.xml

# SLURM=1: the same tests as Slurm job arrays, one per test, seed chunks as
# array tasks (scripts/slurm/regress.py; SLURM_ARGS e.g. "--partition p
# --chunk 50 --seeds 1-1000"), merged into $(BUILD)/regress-slurm/regress.xml.
regress: build
ifdef SLURM
	@$(PY) scripts/slurm/regress.py --build $(BUILD) $(SLURM_ARGS)
else
	@mkdir -p $(BUILD)/test-results
	@SYNCFAB_REGRESS=1 $(CTEST) --output-junit test-results/regress.xml
endif

# Its own build tree (SYNCFAB_COVERAGE=ON): every model verilated with line,
# toggle and user coverage, the RTL tests run over COV_SEEDS, merged and
# reported into $(COV_BUILD)/coverage (docs/coverage.md).
COV_BUILD ?= build-cov
COV_SEEDS ?= 1-5
COV_TOP8  ?= OFF
coverage:
	@$(PY) scripts/coverage/run.py --build $(COV_BUILD) --seeds $(COV_SEEDS) --jobs $(JOBS) \
	  $(if $(filter ON,$(COV_TOP8)),--top8)

# Its own build tree (clang-14, sanitizers): the normal build is not touched.
FUZZ_TIME ?= 60
fuzz: deps
	@scripts/fuzz.sh --time $(FUZZ_TIME) --build build-fuzz --jobs $(JOBS)

lint: configure
	@scripts/lint.sh $(BUILD)

waves: build
	@$(PY) scripts/waves.py --build $(BUILD) --test "$(TEST)" --seed "$(SEED)"

bench: build
	@scripts/bench.sh $(BUILD)
	@scripts/bench_route.sh $(BUILD)

BENCH_SIM_ARGS ?= --compile
bench-sim: build
	@$(PY) scripts/bench_sim.py --build $(BUILD) $(BENCH_SIM_ARGS)

bench-route: build
	@scripts/bench_route.sh $(BUILD)

bench-barrier: build
	@$(PY) scripts/bench_barrier.py --build $(BUILD)

bench-system: build
	@$(PY) scripts/bench_system.py --build $(BUILD)

# Debian's python3 (python3-matplotlib, scripts/toolchain.txt): the venv
# has no system site packages, and this script needs nothing else.
bench-collective: build
	@/usr/bin/python3 scripts/bench_collective.py --build $(BUILD)

# Builds the two incast tools alone; their runs' CSVs stay in
# $(BUILD)/scenarios, the plots need Debian's python3 (python3-matplotlib).
scenarios: configure
	@cmake --build $(BUILD) -j $(JOBS) --target syncfab-dcqcn-incast syncfab-ecmp-incast
	@$(PY) scripts/scenarios.py --build $(BUILD)

# valgrind (callgrind) counts the instructions: perf has no instruction
# counter on a virtual machine.
bench-vp: build
	@scripts/bench_vp.sh $(BUILD)

# The driver on the virtual platform: builds syncfab-vp alone (and the
# verilated NIC it links), then runs it (docs/virtual-platform.md).
VP_ARGS ?= --shape 2x2x2 --k 1,2 --wait irq
vp: configure
	@cmake --build $(BUILD) -j $(JOBS) --target syncfab-vp
	@$(BUILD)/vp/syncfab-vp $(VP_ARGS)

docs: build
	@cmake --build $(BUILD) --target docs
	@echo "docs: $(BUILD)/docs"

format: deps
	@scripts/style.sh fix

clean:
	rm -rf $(BUILD) $(BUILD).configure.log build-fuzz build-fuzz.*.log $(COV_BUILD) $(COV_BUILD).configure.log
