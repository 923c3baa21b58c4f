// Simulation speed of a verilated model, bare and under the coroutine
// harness, so the harness's cost per cycle is a measured number, not a guess.
// Reported as simulated cycles per second (items_per_second).
#include <Vdamq.h>
#include <benchmark/benchmark.h>
#include <verilated.h>

#include <cstdint>
#include <random>

#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {

constexpr std::int64_t kCycles = 100'000;

// Random enqueue/dequeue traffic, one decision per cycle, same for both.
struct Traffic {
  std::mt19937 rng{1};
  void drive(Vdamq& d) {
    const std::uint32_t r = rng();
    d.enq_valid_i = r & 1U;
    d.enq_queue_i = (r >> 1) & 3U;
    d.enq_data_i = r;
    d.deq_valid_i = (r >> 3) & 1U;
    d.deq_queue_i = (r >> 4) & 3U;
  }
};

// One cycle, the way the harness orders it: inputs change between edges,
// never in the same time step as the rising edge (SVA samples the values from
// before the step, the flops the values in it).
void cycle(VerilatedContext& vc, Vdamq& d) {
  vc.timeInc(5'000);
  d.clk_i = 1;
  d.eval();
  vc.timeInc(5'000);
  d.clk_i = 0;
  d.eval();
}

void bare_verilator(benchmark::State& state) {
  for (auto _ : state) {
    VerilatedContext vc;
    Vdamq d(&vc);
    Traffic t;
    // An edge on rst_ni (the async reset needs a negedge), held over two
    // rising edges with random inputs: reset must win over traffic.
    d.clk_i = 0;
    d.rst_ni = 1;
    d.eval();
    d.rst_ni = 0;
    for (int i = 0; i < 2; ++i) {
      t.drive(d);
      d.eval();
      cycle(vc, d);
    }
    d.rst_ni = 1;
    for (std::int64_t c = 0; c < kCycles; ++c) {
      t.drive(d);
      d.eval();
      cycle(vc, d);
    }
    benchmark::DoNotOptimize(d.free_count_o);
  }
  state.SetItemsProcessed(state.iterations() * kCycles);
}

Task<> traffic_task(Vdamq& d, Clock& clk) {
  Traffic t;
  d.rst_ni = 0;
  co_await RisingEdge(clk);
  d.rst_ni = 1;
  for (std::int64_t c = 0; c < kCycles; ++c) {
    t.drive(d);
    co_await RisingEdge(clk);
  }
}

void coroutine_harness(benchmark::State& state) {
  for (auto _ : state) {
    VerilatedContext vc;
    Vdamq d(&vc);
    Sim sim;
    sim.add_eval([&d] { d.eval(); });
    auto& clk = sim.add_clock("clk", d.clk_i, 10'000);
    sim.run(traffic_task(d, clk));
    benchmark::DoNotOptimize(d.free_count_o);
  }
  state.SetItemsProcessed(state.iterations() * kCycles);
}

}  // namespace

BENCHMARK(bare_verilator)->Unit(benchmark::kMillisecond);
BENCHMARK(coroutine_harness)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
