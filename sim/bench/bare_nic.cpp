// The verilated nic_top in a bare eval loop while idle: brought up by the
// unchanged driver (identity, rings, interrupt causes, enable) on the
// harness, then clocked by hand with every input still — the cost of a NIC
// that waits for its next barrier, which is what most NICs of a large fabric
// do most of the time. Under barrier traffic the fabric's own runs measure
// it (`--bench` of test_nic_fabric: seconds inside eval per model class).
// One JSON line per run: scripts/bench_sim.py collects them.
#include <Vnic_top.h>
#include <verilated.h>
#include <verilated_fst_c.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "bare_loop.hpp"
#include "nic_top_bench.hpp"
#include "syncfab/driver/nic.hpp"
#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/tb/speed.hpp"
#include "syncfab/tb/tb.hpp"

namespace tb = syncfab::tb;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace bench = syncfab::sim::bench;

namespace {

constexpr tb::SimTime kPeriod = 10'000;
constexpr std::uint32_t kCsrWindow = 4096;

tb::Task<> reset(Vnic_top& dut, tb::ApbMaster& apb, tb::Clock& clk) {
  tb::nic_top::hold_in_reset(dut, apb);
  co_await tb::ClockCycles(clk, 3);
  dut.rst_ni = 1;
  co_await tb::RisingEdge(clk);
}

int run(int argc, char** argv) {
  CLI::App app{"bare eval loop of the verilated nic_top, idle after bring-up"};
  bench::BareOptions bo;
  bo.cycles = 1'000'000;
  bench::add_bare_options(app, bo);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input, with this tool's code
    // for it (not CLI11's 105-style codes).
    return app.exit(e) == 0 ? 0 : 1;
  }

  VerilatedContext vc;
  vc.randReset(2);
  if (!bo.trace.empty()) {
    vc.traceEverOn(true);
  }
  Vnic_top d(&vc);
  tb::Sim sim;
  sim.add_eval([&vc, &d, &sim] {
    vc.time(sim.now());
    d.eval();
  });
  tb::Clock& clk = sim.add_clock("clk", d.clk_i, kPeriod);
  tb::ApbMaster apb(clk, tb::apb_pins_of(d, kCsrWindow));
  hw::HostMemory memory(0x8000'0000, std::size_t{64} * 1024);
  drv::RtlDevice dev(
      sim, clk, apb, [&d] { return d.intr_o != 0; }, memory, kCsrWindow);
  sim.run(reset(d, apb, clk));
  drv::NicOptions opts;
  opts.clock = [&sim] { return std::chrono::nanoseconds(sim.now() / 1000); };
  drv::Nic nic(dev, memory, opts);

  const auto fst = bench::start_timed_loop(vc, d, bo);
  // The harness stopped after a rising edge: the clock is driven by hand
  // from here, one eval per edge.
  d.clk_i = 0;
  d.eval();
  const double cpu0 = tb::process_cpu_seconds();
  for (std::uint64_t c = 0; c < bo.cycles; ++c) {
    vc.timeInc(kPeriod / 2);
    d.clk_i = 1;
    d.eval();
    if (fst) {
      fst->dump(vc.time());
    }
    vc.timeInc(kPeriod / 2);
    d.clk_i = 0;
    d.eval();
    if (fst) {
      fst->dump(vc.time());
    }
  }
  const double cpu = tb::process_cpu_seconds() - cpu0;
  if (fst) {
    fst->close();
  }
  vc.assertOn(true);
  if (vc.gotError()) {
    std::cerr << "bare_nic: the RTL reported an error while idle\n";
    return 1;
  }
  std::cout << R"({"top":"nic_top","shape":"ctx4","load":"idle","mode":")"
            << (fst ? "bare+trace" : "bare") << R"(","assert":)"
            << (bo.no_assert ? "false" : "true") << R"(,"cycles":)" << bo.cycles << R"(,"cpu_s":)"
            << cpu << "}\n"
            << std::flush;
  // The model ran ahead of the harness's clock by hand, so the driver cannot
  // close the NIC through the harness any more: end here, without teardown.
  std::_Exit(0);
}

}  // namespace

int main(int argc, char** argv) { return bench::guarded_main("bare_nic", run, argc, argv); }
