// syncfab-vp: the unchanged driver on N virtual nodes of the SystemC/TLM-2.0
// virtual platform (docs/virtual-platform.md), every node's driver on its own
// SC_THREAD, golden-model or verilated RTL NICs (or a mix) on the golden
// network. Runs barriers, checks
// them, prints the completions, the simulated and the wall time; exits 1 if
// a barrier failed or a check broke, 2 on a bad command line.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "syncfab/vp/barrier_run.hpp"
#include "syncfab/vp/platform.hpp"

namespace {

using namespace syncfab;

struct Options {
  std::string shape = "2x2x2";
  unsigned nodes = 0;
  std::string nic = "model";
  std::vector<unsigned> ks{2};
  unsigned barriers = 10;
  std::string submit = "alternate";
  std::string wait = "poll";
  std::uint64_t seed = 1;
  double quantum_ns = 100;
  double clock_ns = 1;
  double csr_latency_ns = 2;
  double skew_ns = 50;
  double poll_ns = 8;
  double timeout_us = 100;
  unsigned hop = 10;
  unsigned nic_latency = 4;
  bool no_skip_idle = false;
  bool no_doze = false;
  bool no_event_poll = false;
  std::string timeline;
  std::string trace;
  std::string fst;
};

// "model", "rtl", or "rtl:<node>,<node>,...": the nodes whose NIC is the
// verilated RTL. Returns false on anything else.
bool parse_nic(const std::string& s, unsigned nodes, std::vector<unsigned>& rtl) {
  rtl.clear();
  if (s == "model") {
    return true;
  }
  if (s == "rtl") {
    for (unsigned n = 0; n < nodes; ++n) {
      rtl.push_back(n);
    }
    return true;
  }
  if (s.rfind("rtl:", 0) != 0) {
    return false;
  }
  std::istringstream in(s.substr(4));
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos ||
        item.size() > 6) {
      return false;
    }
    const auto n = static_cast<unsigned>(std::stoul(item));
    if (n >= nodes || std::find(rtl.begin(), rtl.end(), n) != rtl.end()) {
      return false;
    }
    rtl.push_back(n);
  }
  return !rtl.empty();
}

bool write_timeline(const std::string& path, const vp::BarrierRun& run, vp::Platform& p) {
  std::ofstream out(path);
  for (unsigned n = 0; n < p.size(); ++n) {
    out << "node " << n << " arrivals";
    for (const auto& t : run.log(n).arrivals) {
      out << ' ' << t.value();
    }
    out << "\nnode " << n << " completions";
    for (const auto& c : p.nic(n).completions()) {
      out << ' ' << unsigned{c.ctx} << ':' << c.epoch << ':' << static_cast<unsigned>(c.status)
          << '@' << c.cycle;
    }
    out << '\n';
  }
  out << "end " << sc_core::sc_time_stamp().value() << '\n';
  return static_cast<bool>(out);
}

bool parse_shape(const std::string& s, model::FabricConfig& f) {
  char x1 = 0;
  char x2 = 0;
  std::istringstream in(s);
  in >> f.x >> x1 >> f.y >> x2 >> f.z;
  return in && in.peek() == EOF && x1 == 'x' && x2 == 'x' && f.x * f.y * f.z >= 1;
}

int run(int argc, char** argv) {
  CLI::App app{
      "syncfab-vp: barriers on N virtual nodes of the SystemC/TLM-2.0 virtual platform -- every "
      "node a host running the unchanged driver on its own SC_THREAD over TLM, host memory "
      "(TLM target, DMI) and a NIC (CSR target, DMA initiator, interrupt signal): the golden "
      "model or the verilated RTL (nic_top, Verilator --sc, behind TLM-to-APB and "
      "memory-port-to-TLM bridges), chosen per node by --nic; the NICs on the golden network "
      "(3D torus, fixed per-hop latency)"};
  Options o;
  app.add_option("--shape", o.shape, "torus shape XxYxZ")->capture_default_str();
  app.add_option("--nodes", o.nodes, "N nodes on a ring (Nx1x1); overrides --shape")
      ->check(CLI::Range(1U, 4096U));
  app.add_option("--nic", o.nic,
                 "the NIC behind the sockets: model (the golden model on every node), rtl (the "
                 "verilated nic_top on every node, clocked by an sc_clock of --clock; 4 "
                 "contexts, so at most 4 fan-outs), or rtl:N,M,... (the RTL on those nodes, "
                 "the golden model on the others)")
      ->capture_default_str();
  app.add_option("--k", o.ks, "fan-outs of the dissemination barrier, one context each")
      ->delimiter(',')
      ->check(CLI::Range(1U, 16U))
      ->capture_default_str();
  app.add_option("--barriers", o.barriers, "barriers per fan-out")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--submit", o.submit, "descriptor path of the posts: hdq, sdq, or alternate")
      ->check(CLI::IsMember({"hdq", "sdq", "alternate"}))
      ->capture_default_str();
  app.add_option("--wait", o.wait, "how the driver waits: poll (the CQ) or irq (the interrupt)")
      ->check(CLI::IsMember({"poll", "irq"}))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the hosts' compute times before each arrival")
      ->capture_default_str();
  app.add_option("--quantum", o.quantum_ns, "the hosts' global quantum, ns (loosely timed)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--clock", o.clock_ns, "clock period of the network and NICs, ns")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--csr-latency", o.csr_latency_ns,
                 "simulated time per register access of a golden-model NIC, ns (an RTL NIC's "
                 "access takes its APB transfer's clock cycles)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--skew", o.skew_ns, "a host computes up to this long before each arrival, ns")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--poll", o.poll_ns, "the driver's poll interval, ns")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--timeout", o.timeout_us, "per barrier, us of simulated time")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--hop", o.hop, "cycles per torus link")->capture_default_str();
  app.add_option("--nic-latency", o.nic_latency, "cycles of NIC injection + ejection per packet")
      ->capture_default_str();
  app.add_flag("--no-skip-idle", o.no_skip_idle,
               "clock the network every cycle even while it is quiescent (with an RTL NIC it "
               "always is)");
  app.add_flag("--no-doze", o.no_doze,
               "step the network every cycle while packets are in flight and every golden-model "
               "engine waits (by default it sleeps until the next packet is due)");
  app.add_flag("--no-event-poll", o.no_event_poll,
               "wake every host at every poll interval (by default a host on a golden-model NIC "
               "sleeps until its NIC writes host memory, then polls at the interval's boundary)");
  app.add_option("--timeline", o.timeline,
                 "file of every node's arrival times (ps) and its NIC's completions (context, "
                 "epoch, status, cycle): equal files, equal runs");
  app.add_option("--trace", o.trace,
                 "VCD file (sc_trace) of the interrupt lines, every NIC's register traffic, and "
                 "the RTL NICs' bridge pins");
  app.add_option("--fst", o.fst,
                 "FST file of every RTL NIC's verilated signals (scope vp.nicN.dut.nic_top), in "
                 "the SystemC kernel's time base, the same as --trace's");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  vp::PlatformConfig pc;
  if (o.nodes != 0) {
    pc.fabric.x = o.nodes;
    pc.fabric.y = 1;
    pc.fabric.z = 1;
  } else if (!parse_shape(o.shape, pc.fabric)) {
    std::cerr << "syncfab-vp: --shape '" << o.shape << "' is not XxYxZ\n";
    return 2;
  }
  pc.fabric.hop_latency = o.hop;
  pc.fabric.nic_latency = o.nic_latency;
  pc.period = sc_core::sc_time(o.clock_ns, sc_core::SC_NS);
  pc.csr_latency = sc_core::sc_time(o.csr_latency_ns, sc_core::SC_NS);
  pc.quantum = sc_core::sc_time(o.quantum_ns, sc_core::SC_NS);
  pc.skip_idle = !o.no_skip_idle;
  pc.doze = !o.no_doze;
  pc.event_poll = !o.no_event_poll;
  if (!parse_nic(o.nic, pc.fabric.x * pc.fabric.y * pc.fabric.z, pc.rtl_nodes)) {
    std::cerr << "syncfab-vp: --nic '" << o.nic
              << "' is not model, rtl, or rtl:<node>,... with distinct nodes below "
              << pc.fabric.x * pc.fabric.y * pc.fabric.z << "\n";
    return 2;
  }
  if (!o.fst.empty() && pc.rtl_nodes.empty()) {
    std::cerr << "syncfab-vp: --fst needs an RTL NIC (--nic rtl or rtl:<nodes>)\n";
    return 2;
  }

  vp::BarrierRunConfig bc;
  bc.ks = o.ks;
  bc.barriers = o.barriers;
  bc.submit = o.submit == "hdq"   ? vp::BarrierRunConfig::Submit::kHdq
              : o.submit == "sdq" ? vp::BarrierRunConfig::Submit::kSdq
                                  : vp::BarrierRunConfig::Submit::kAlternate;
  bc.wait = o.wait == "irq" ? driver::WaitMode::kInterrupt : driver::WaitMode::kPoll;
  bc.seed = o.seed;
  bc.max_skew = sc_core::sc_time(o.skew_ns, sc_core::SC_NS);
  bc.poll_interval = std::chrono::nanoseconds(static_cast<std::int64_t>(o.poll_ns));
  bc.timeout = std::chrono::nanoseconds(static_cast<std::int64_t>(o.timeout_us * 1000));

  vp::BarrierRun run(bc, pc);
  vp::Platform platform("vp", pc, [&run](unsigned n, vp::Host& h) { run.program(n, h); });
  sc_core::sc_trace_file* tf = nullptr;
  if (!o.trace.empty()) {
    std::string base = o.trace;
    if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") {
      base.resize(base.size() - 4);
    }
    tf = sc_core::sc_create_vcd_trace_file(base.c_str());
    platform.add_traces(tf);
  }
  if (!o.fst.empty()) {
    platform.trace_fst(o.fst);
  }
  // Every barrier's timeout, with room for the hosts' compute times.
  const auto limit = (sc_core::sc_time(o.timeout_us, sc_core::SC_US) + bc.max_skew) *
                         static_cast<double>(o.ks.size() * o.barriers) +
                     sc_core::sc_time(1, sc_core::SC_MS);
  const auto t0 = std::chrono::steady_clock::now();
  const bool ended = platform.run(limit);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (tf != nullptr) {
    sc_core::sc_close_vcd_trace_file(tf);
  }

  if (!o.timeline.empty() && !write_timeline(o.timeline, run, platform)) {
    std::cerr << "syncfab-vp: cannot write " << o.timeline << "\n";
    return 2;
  }
  auto bad = run.check(platform);
  if (!ended) {
    bad.insert(bad.begin(), "the hosts did not finish within " + limit.to_string());
  }
  std::uint64_t tlm_errors = 0;
  for (unsigned n = 0; n < platform.size(); ++n) {
    tlm_errors += platform.nic(n).errors().total() + platform.memory(n).errors().total();
  }
  if (tlm_errors != 0) {
    bad.push_back(std::to_string(tlm_errors) + " TLM error responses");
  }
  const unsigned nodes = platform.size();
  const double sim_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
  const double barriers = static_cast<double>(o.ks.size()) * o.barriers;
  std::printf("syncfab-vp: %u nodes (%ux%ux%u), NIC %s (%zu RTL), submit %s, wait %s, seed %llu\n",
              nodes, pc.fabric.x, pc.fabric.y, pc.fabric.z, o.nic.c_str(), pc.rtl_nodes.size(),
              o.submit.c_str(), o.wait.c_str(), static_cast<unsigned long long>(o.seed));
  for (std::size_t i = 0; i < o.ks.size(); ++i) {
    unsigned done = 0;
    for (unsigned n = 0; n < nodes; ++n) {
      done +=
          std::min(run.log(n).completed - std::min<unsigned>(run.log(n).completed,
                                                             static_cast<unsigned>(i) * o.barriers),
                   o.barriers);
    }
    std::printf("  k=%u: %u of %u barrier completions (%u barriers x %u nodes)\n", o.ks[i], done,
                o.barriers * nodes, o.barriers, nodes);
  }
  std::printf(
      "  simulated time %.3f us, network steps %llu, skipped idle cycles %llu, wall %.3f s, "
      "%.0f barriers per wall second\n",
      sim_us, static_cast<unsigned long long>(platform.network().steps()),
      static_cast<unsigned long long>(platform.network().skipped_cycles()), wall,
      wall > 0 ? barriers / wall : 0.0);
  for (const auto& b : bad) {
    std::printf("  FAIL %s\n", b.c_str());
  }
  std::printf("%s\n", bad.empty() ? "PASS" : "FAIL");
  return bad.empty() ? 0 : 1;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "syncfab-vp: " << e.what() << "\n";
    return 2;
  }
}

// SystemC prints its banner before sc_main unless told not to.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
