// The verilated switch_top in a bare eval loop: the clock toggled by hand, no
// scheduler, no coroutines — the ceiling of what the model itself costs per
// simulated cycle. After reset and programming through the unchanged driver
// (on the harness, not timed), every input sends back-to-back packets of
// 1..8 flits to destinations spread uniformly over every output, at random
// priorities, every output ready ("uniform"); or nothing at all ("idle").
// One JSON line per run: scripts/bench_sim.py collects them.
#include <Vswitch_top.h>
#include <verilated.h>
#include <verilated_fst_c.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bare_loop.hpp"
#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/driver/switch.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/tb/speed.hpp"
#include "syncfab/tb/tb.hpp"

namespace tb = syncfab::tb;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace fmt = syncfab::fmt;
namespace bench = syncfab::sim::bench;

namespace {

constexpr tb::SimTime kPeriod = 10'000;
constexpr std::uint32_t kCsrWindow = 4096;
constexpr unsigned kFlitWords = fmt::kFlitBits / 32;

struct Port {
  std::vector<fmt::PktHdr::Bytes> flits;
  std::size_t pos = 0;
};

// Reset, then program a route for every LID the table holds (LID % ports) and
// enable the switch, through the driver on the harness.
unsigned bring_up(VerilatedContext& vc, Vswitch_top& d) {
  tb::Sim sim;
  sim.add_eval([&vc, &d, &sim] {
    vc.time(sim.now());
    d.eval();
  });
  tb::Clock& clk = sim.add_clock("clk", d.clk_i, kPeriod);
  tb::ApbMaster apb(clk, tb::apb_pins_of(d, kCsrWindow));
  hw::HostMemory memory(0x8000'0000, 4096);
  drv::RtlDevice dev(
      sim, clk, apb, [&d] { return d.intr_o != 0; }, memory, kCsrWindow);
  sim.run([](Vswitch_top& dut, tb::ApbMaster& a, tb::Clock& c) -> tb::Task<> {
    a.idle();
    dut.rst_ni = 0;
    dut.pprot_i = 0;
    dut.rx_valid_i = 0;
    dut.tx_ready_i = 0xFF;
    co_await tb::ClockCycles(c, 3);
    dut.rst_ni = 1;
    co_await tb::RisingEdge(c);
  }(d, apb, clk));
  drv::Switch sw(dev);
  const unsigned ports = sw.info().ports;
  std::vector<drv::LftEntry> lft;
  for (unsigned lid = 1; lid < sw.info().lft_entries && lid < fmt::kMlidBase; ++lid) {
    lft.push_back(
        drv::LftEntry{static_cast<std::uint16_t>(lid), static_cast<std::uint8_t>(lid % ports)});
  }
  sw.program_lft(lft);
  drv::SchedConfig sched;
  sched.weight = {8, 8, 8, 8, 8, 8, 8, 8};
  for (unsigned p = 0; p < ports; ++p) {
    sw.configure_scheduler(p, sched);
  }
  sw.enable(true);
  // Hand over with the clock low: inputs change only between edges.
  d.clk_i = 0;
  d.eval();
  return ports;
}

int run(int argc, char** argv) {
  CLI::App app{"bare eval loop of the verilated switch_top (" SYNCFAB_BENCH_SHAPE ")"};
  std::string load = "uniform";
  bench::BareOptions bo;
  bo.cycles = 100'000;
  std::uint64_t seed = 1;
  bool two_evals = false;
  app.add_option("--load", load, "uniform | idle")->check(CLI::IsMember({"uniform", "idle"}));
  bench::add_bare_options(app, bo);
  app.add_option("--seed", seed, "traffic seed");
  app.add_flag(
      "--two-evals", two_evals,
      "two evals per cycle (rising edge; falling edge with the new inputs) instead of three");
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
  Vswitch_top d(&vc);
  const unsigned ports = bring_up(vc, d);
  const auto fst = bench::start_timed_loop(vc, d, bo);
  std::mt19937_64 rng(seed);
  std::vector<Port> in(ports);
  const unsigned lids = std::min(4U * ports, 63U);
  std::uint32_t flow = 0;
  std::uint64_t flits_in = 0;
  std::uint64_t flits_out = 0;
  const bool busy = load == "uniform";
  const double cpu0 = tb::process_cpu_seconds();
  for (std::uint64_t c = 0; c < bo.cycles; ++c) {
    std::uint32_t valid = 0;
    std::uint32_t last = 0;
    if (busy) {
      for (unsigned p = 0; p < ports; ++p) {
        Port& pt = in[p];
        if (pt.flits.empty()) {
          const auto len = static_cast<unsigned>(1 + rng() % 8);
          fmt::PktHdr h;
          h.set_pkt_type(fmt::PktType::kData)
              .set_len_flits(static_cast<std::uint8_t>(len))
              .set_dst_lid(static_cast<std::uint16_t>(1 + rng() % lids))
              .set_prio(static_cast<std::uint8_t>(rng() % fmt::kNumPrio))
              .set_ecn(fmt::Ecn::kEct0)
              .set_flow_label(flow++ & 0xFFFFF);
          pt.flits.assign(len, fmt::PktHdr::Bytes{});
          pt.flits[0] = h.bytes();
          pt.pos = 0;
        }
        valid |= 1U << p;
        last |= pt.pos + 1 == pt.flits.size() ? 1U << p : 0U;
        const auto& f = pt.flits[pt.pos];
        for (unsigned w = 0; w < kFlitWords; ++w) {
          std::uint32_t v = 0;
          for (unsigned b = 0; b < 4; ++b) {
            v |= std::uint32_t{f[4 * w + b]} << (8 * b);
          }
          d.rx_data_i[p * kFlitWords + w] = v;
        }
      }
    }
    d.rx_valid_i = valid;
    d.rx_last_i = last;
    if (two_evals) {
      // The falling edge and the new inputs in one eval.
      d.clk_i = 0;
    }
    d.eval();
    const std::uint32_t took = valid & d.rx_ready_o;
    flits_out += static_cast<unsigned>(__builtin_popcount(d.tx_valid_o & d.tx_ready_i));
    vc.timeInc(kPeriod / 2);
    d.clk_i = 1;
    d.eval();
    if (fst) {
      fst->dump(vc.time());
    }
    vc.timeInc(kPeriod / 2);
    if (!two_evals) {
      d.clk_i = 0;
      d.eval();
    }
    if (fst) {
      fst->dump(vc.time());
    }
    for (unsigned p = 0; p < ports; ++p) {
      if ((took >> p & 1U) != 0) {
        ++flits_in;
        if (++in[p].pos == in[p].flits.size()) {
          in[p].flits.clear();
        }
      }
    }
    if (vc.gotError()) {
      std::cerr << "bare_switch: the RTL reported an error at cycle " << c << "\n";
      return 1;
    }
  }
  const double cpu = tb::process_cpu_seconds() - cpu0;
  if (fst) {
    fst->close();
  }
  if (busy && flits_out == 0) {
    std::cerr << "bare_switch: no flit left the switch under load\n";
    return 1;
  }
  std::cout << R"({"top":"switch_top","shape":")" << SYNCFAB_BENCH_SHAPE << R"(","load":")" << load
            << R"(","mode":")" << (fst ? "bare+trace" : "bare") << R"(","assert":)"
            << (bo.no_assert ? "false" : "true") << R"(,"evals_per_cycle":)" << (two_evals ? 2 : 3)
            << R"(,"cycles":)" << bo.cycles << R"(,"cpu_s":)" << cpu << R"(,"flits_in":)"
            << flits_in << R"(,"flits_out":)" << flits_out << "}\n";
  d.final();
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return bench::guarded_main("bare_switch", run, argc, argv); }
