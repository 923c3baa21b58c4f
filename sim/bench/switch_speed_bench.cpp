// Simulation speed of the verilated 4-port switch (throughput of the
// verilated switch in simulated cycles per second, in make bench). Full random traffic on every
// port: back-to-back unicast packets of 1..8 flits to random LIDs (all outputs), random priorities,
// every output ready. Reported as simulated cycles per second
// (items_per_second):
//   bare_switch      the model's eval loop alone (clock toggled by hand),
//                    after reset and programming through the driver;
//   harness_switch   the co-simulation's RTL run (switch_cosim_bench.cpp:
//                    coroutine harness, driver::Switch on RtlDevice over
//                    APB, closed-loop sources, per-cycle logging and the
//                    engine probe);
//   model_replay     the golden model replaying that run (its trace on);
//   cosim_rtl_model  both runs back to back. The scoreboard's own cost is
//                    in the test's speed line (test_switch_cosim), which
//                    scripts/bench.sh runs too.
#include <Vswitch_top.h>
#include <benchmark/benchmark.h>
#include <verilated.h>

#include <array>
#include <cstdint>
#include <random>

#include "switch_cosim_bench.hpp"
#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/host_memory.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_cosim;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace fmt = syncfab::fmt;

namespace {

constexpr std::int64_t kBareCycles = 50'000;
constexpr unsigned kPackets = 6'000;  // over the 4 inputs, for the harness runs

Setup bench_setup() {
  Setup s;
  for (std::uint16_t lid = 1; lid <= 12; ++lid) {
    s.lft.push_back(drv::LftEntry{lid, static_cast<std::uint8_t>(lid % kPorts)});
  }
  for (unsigned p = 0; p < kPorts; ++p) {
    s.sched[p].weight = {8, 8, 8, 8, 8, 8, 8, 8};
  }
  return s;
}

Flit header(std::mt19937_64& rng, unsigned len, std::uint32_t flow) {
  fmt::PktHdr h;
  h.set_pkt_type(fmt::PktType::kData)
      .set_len_flits(static_cast<std::uint8_t>(len))
      .set_dst_lid(static_cast<std::uint16_t>(1 + rng() % 12))
      .set_prio(static_cast<std::uint8_t>(rng() % fmt::kNumPrio))
      .set_flow_label(flow);
  return h.bytes();
}

Stimulus bench_stimulus() {
  std::mt19937_64 rng(1);
  Stimulus st;
  for (unsigned k = 0; k < kPackets; ++k) {
    StimPacket sp;
    sp.in = k % kPorts;
    const auto len = static_cast<unsigned>(1 + rng() % 8);
    sp.flits.push_back(header(rng, len, k));
    for (unsigned f = 1; f < len; ++f) {
      Flit x{};
      x[0] = static_cast<std::uint8_t>(f);
      sp.flits.push_back(x);
    }
    sp.prio = fmt::PktHdr(sp.flits[0]).prio();
    st.pkts.push_back(std::move(sp));
  }
  return st;
}

// One input's back-to-back packets for the bare loop.
struct Port {
  std::vector<Flit> pkt;
  std::size_t pos = 0;
};

void bare_switch(benchmark::State& state) {
  const Setup setup = bench_setup();
  for (auto _ : state) {
    state.PauseTiming();
    VerilatedContext vc;
    Vswitch_top d(&vc);
    Sim sim;
    sim.add_eval([&d] { d.eval(); });
    Clock& clk = sim.add_clock("clk", d.clk_i, kPeriod);
    ApbMaster apb(clk, apb_pins_of(d, kCsrWindow));
    hw::HostMemory memory(0x8000'0000, 4096);
    drv::RtlDevice dev(
        sim, clk, apb, [&d] { return d.intr_o != 0; }, memory, kCsrWindow);
    sim.run([](Vswitch_top& dut, ApbMaster& a, Clock& c) -> Task<> {
      a.idle();
      dut.rst_ni = 0;
      dut.pprot_i = 0;
      dut.rx_valid_i = 0;
      dut.tx_ready_i = (1U << kPorts) - 1;
      co_await ClockCycles(c, 3);
      dut.rst_ni = 1;
      co_await RisingEdge(c);
    }(d, apb, clk));
    drv::Switch sw(dev);
    program(sw, setup);
    std::mt19937_64 rng(1);
    std::array<Port, kPorts> ports{};
    std::uint32_t flow = 0;
    auto* rx = reinterpret_cast<std::uint32_t*>(&d.rx_data_i);
    // From here the clock is driven by hand: low first (the harness may have
    // stopped right after a rising edge), inputs change only between edges.
    d.clk_i = 0;
    d.eval();
    state.ResumeTiming();
    for (std::int64_t c = 0; c < kBareCycles; ++c) {
      std::uint32_t valid = 0;
      std::uint32_t last = 0;
      for (unsigned p = 0; p < kPorts; ++p) {
        Port& pt = ports[p];
        if (pt.pkt.empty()) {
          const auto len = static_cast<unsigned>(1 + rng() % 8);
          pt.pkt.assign(len, Flit{});
          pt.pkt[0] = header(rng, len, flow++);
          pt.pos = 0;
        }
        valid |= 1U << p;
        last |= pt.pos + 1 == pt.pkt.size() ? 1U << p : 0U;
        words_of_flit(pt.pkt[pt.pos], rx + std::size_t{4} * p);
      }
      d.rx_valid_i = valid;
      d.rx_last_i = last;
      d.eval();
      const std::uint32_t took = valid & d.rx_ready_o;
      vc.timeInc(kPeriod / 2);
      d.clk_i = 1;
      d.eval();
      vc.timeInc(kPeriod / 2);
      d.clk_i = 0;
      d.eval();
      for (unsigned p = 0; p < kPorts; ++p) {
        if ((took >> p & 1U) != 0 && ++ports[p].pos == ports[p].pkt.size()) {
          ports[p].pkt.clear();
        }
      }
    }
    benchmark::DoNotOptimize(d.tx_valid_o);
    state.counters["packets_in"] = benchmark::Counter(static_cast<double>(flow));
  }
  state.SetItemsProcessed(state.iterations() * kBareCycles);
}

// A TestContext for the co-simulation's run functions outside the runner.
struct Ctx {
  TestInfo info{"switch_speed", "bench", __FILE__, __LINE__, nullptr};
  RunOptions opts;
  TestContext ctx{info, 1, opts};
};

RunLog rtl_run(Ctx& c, const Setup& setup, const Stimulus& st) {
  RunLog log = c.ctx.sim().run(run_rtl(c.ctx, setup, st));
  c.ctx.finish();
  return log;
}

void harness_switch(benchmark::State& state) {
  const Setup setup = bench_setup();
  const Stimulus st = bench_stimulus();
  std::int64_t cycles = 0;
  for (auto _ : state) {
    Ctx c;
    cycles += static_cast<std::int64_t>(rtl_run(c, setup, st).cycles);
  }
  state.SetItemsProcessed(cycles);
}

void model_replay(benchmark::State& state) {
  const Setup setup = bench_setup();
  const Stimulus st = bench_stimulus();
  Ctx c;
  const RunLog rtl = rtl_run(c, setup, st);
  std::int64_t cycles = 0;
  for (auto _ : state) {
    const RunLog m = run_model(setup, st, rtl);
    benchmark::DoNotOptimize(m.cycles);
    cycles += static_cast<std::int64_t>(rtl.cycles);
  }
  state.SetItemsProcessed(cycles);
}

void cosim_rtl_model(benchmark::State& state) {
  const Setup setup = bench_setup();
  const Stimulus st = bench_stimulus();
  std::int64_t cycles = 0;
  for (auto _ : state) {
    Ctx c;
    const RunLog rtl = rtl_run(c, setup, st);
    const RunLog m = run_model(setup, st, rtl);
    benchmark::DoNotOptimize(m.cycles);
    cycles += static_cast<std::int64_t>(rtl.cycles);
  }
  state.SetItemsProcessed(cycles);
}

}  // namespace

BENCHMARK(bare_switch)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(harness_switch)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(model_replay)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(cosim_rtl_model)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_MAIN();
