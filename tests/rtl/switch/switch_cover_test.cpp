// Cover points of the switch (SF_COVER in rtl/switch/*.sv; the list is in
// docs/switch-datapath.md, "Assertions and cover points"), measured on the
// coverage build of the 4-port switch (vl_switch_top_cov, Verilator
// --coverage-user). One test runs the co-simulation's scenarios
// (switch_cosim_scenarios.hpp) and an overload on the RTL alone, one after
// the other in one VerilatedContext, writes the coverage database
// (switch_cover-seed<N>.dat beside the test binary; verilator_coverage reads
// it) and fails naming every cover point that was never hit. The RTL's
// assertions are on as in every build, so the run also checks them on this
// mix. The model comparison is switch_cosim_test.cpp's.
#include <verilated.h>
#include <verilated_cov.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "switch_cosim_bench.hpp"
#include "switch_cosim_scenarios.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_cosim;

namespace {

// One cover point of a coverage.dat: its label (the SF_COVER name) and where
// it is written.
struct Point {
  std::string name;
  std::string where;  // file:line
  std::uint64_t count = 0;
};

// coverage.dat ("# SystemC::Coverage-3"): one line per point,
//   C '<key>\x02<value>\x01<key>\x02<value>...' <count>
// with the keys f (file), l (line), page (v_user/<module> for a cover
// statement) and o (its label); Verilator has summed the instances.
std::vector<Point> read_points(const std::filesystem::path& file) {
  std::ifstream in(file);
  TB_CHECK(in.good()) << "cannot read " << file;
  std::vector<Point> points;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("C '", 0) != 0) {
      continue;
    }
    const std::size_t end = line.rfind('\'');
    TB_CHECK(end != std::string::npos && end > 3) << "malformed line in " << file << ": " << line;
    std::map<std::string, std::string> kv;
    std::size_t pos = 3;
    while (pos < end) {
      const std::size_t next = std::min(line.find('\x01', pos), end);
      const std::string item = line.substr(pos, next - pos);
      const std::size_t sep = item.find('\x02');
      if (sep != std::string::npos) {
        kv[item.substr(0, sep)] = item.substr(sep + 1);
      }
      pos = next + 1;
    }
    // The switch's own corners only: a coverage tree (docs/coverage.md)
    // binds more cover points into the model (rtl/coverage/), which
    // make coverage counts over all the tests.
    if (kv["page"].rfind("v_user", 0) != 0 || kv["f"].find("/rtl/switch/") == std::string::npos) {
      continue;
    }
    Point p;
    p.name = kv["o"];
    p.where = std::filesystem::path(kv["f"]).filename().string() + ":" + kv["l"];
    p.count = std::stoull(line.substr(end + 1));
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace

SYNCFAB_TEST(switch_cover, corners) {
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe");
  std::cout << "  replay: " << exe.string() << " --test switch_cover.corners --seed " << ctx.seed()
            << "\n";
  // Each scenario is a run of its own (reset, programming, traffic until
  // drained) on a new switch instance in this test's context; the counts
  // add up over the instances. Packets per scenario, in units of --param
  // packets: the mixes reach the corners, the volume only makes the rare
  // ones (three chains freed in one cycle) certain on every seed.
  const auto n = static_cast<unsigned>(ctx.param("packets", 600));
  // Longest first: every instance made so far is evaluated to the end.
  const std::vector<std::pair<const char*, Scenario>> scenarios = {
      {"overload", overload(ctx, 2 * n)},
      {"watchdog_and_disable", watchdog_and_disable(ctx, 5 * n / 2)},
      {"lossless_full_load", lossless_full_load(ctx, n)},
      {"release_storm", release_storm(ctx, 4 * n)},
      {"wred_after_disable", wred_after_disable(ctx, n / 2)},
      {"random_mix", random_mix(ctx, n)},
  };
  for (const auto& [name, sc] : scenarios) {
    const RunLog log = co_await run_rtl(ctx, sc.setup, sc.stim);
    std::cout << "  " << name << ": " << sc.stim.pkts.size() << " packets/frames, " << log.cycles
              << " cycles in " << log.wall_s << " s\n";
  }

  const std::filesystem::path file =
      exe.parent_path() / ("switch_cover-seed" + std::to_string(ctx.seed()) + ".dat");
  Verilated::threadContextp()->coveragep()->write(file.c_str());
  const std::vector<Point> points = read_points(file);
  TB_CHECK(!points.empty()) << file << " holds no cover point: is the model built with COVERAGE?";
  std::string missed;
  std::cout << "  cover points (" << file.string() << "):\n";
  for (const Point& p : points) {
    std::cout << "    " << std::left << std::setw(34) << p.name << std::right << std::setw(10)
              << p.count << "  " << p.where << (p.count == 0 ? "   NEVER HIT" : "") << "\n";
    if (p.count == 0) {
      missed += (missed.empty() ? "" : ", ") + p.name + " (" + p.where + ")";
    }
  }
  TB_CHECK(missed.empty()) << "cover points never hit: " << missed;
}
