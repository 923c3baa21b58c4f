// The harness with a real verilated model: an RTL $error or a failed SVA
// assertion fails the test (with seed and replay), +trace / WAVES=1 write an
// FST, and models are torn down cleanly. Runs tb_vlt_selftest.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "subprocess.hpp"

namespace syncfab::tb::test {
namespace {

const std::string kBin = SYNCFAB_VLT_SELFTEST_BIN;

std::filesystem::path scratch(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() /
           ("syncfab-vlt-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d;
}

TEST(VltRunner, CountingPassesWithoutWaves) {
  const auto dir = scratch("nowaves");
  auto r = run_command("env -u WAVES " + kBin + " --test vlt.count --waves-dir " + dir.string());
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir)) << "tracing must be off by default";
}

TEST(VltRunner, RtlErrorFailsTheTest) {
  auto r = run_command(kBin + " --test vlt.rtl_error --seed 4");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "tb_counter: error_i set at count")) << r.out;
  EXPECT_TRUE(contains(r.out, "FAILED vlt.rtl_error seed=4: the RTL reported an error")) << r.out;
  EXPECT_TRUE(contains(r.out, "--test vlt.rtl_error --seed 4")) << r.out;
}

TEST(VltRunner, AssertionFailureFailsTheTest) {
  auto r = run_command(kBin + " --test vlt.assertion --seed 9");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "SVA a_tb_counter_assert_i failed")) << r.out;
  EXPECT_TRUE(contains(r.out, "FAILED vlt.assertion seed=9: the RTL reported an error")) << r.out;
  // The failure is at the edge that sampled assert_i, not later.
  EXPECT_TRUE(contains(r.out, "at 65000 ps")) << r.out;
}

TEST(VltRunner, BenchPrintsOneSpeedLinePerRun) {
  auto r = run_command("env -u WAVES " + kBin + " --test vlt.two_duts --seeds 1-2 --bench");
  EXPECT_EQ(r.rc, 0) << r.out;
  std::smatch m;
  const std::regex line(
      R"re(bench: \{"cpu_s":([0-9.e-]+),"cycles":([0-9]+),"eval_s":([0-9.e-]+),)re"
      R"re("models":\{"Vtb_counter":\{"eval_s":[0-9.e-]+,"evals":([0-9]+),"instances":2,"skipped":0\}\},)re"
      R"re("seed":([12]),"test":"vlt.two_duts","trace":false,"wall_s":[0-9.e-]+\})re");
  std::string rest = r.out;
  unsigned lines = 0;
  while (std::regex_search(rest, m, line)) {
    ++lines;
    EXPECT_GT(std::stod(m[1]), 0.0);
    // Both counters' clocks run from time 0; the longer one had 2 + 2 + 4 rises.
    EXPECT_EQ(m[2], "8");
    EXPECT_LE(std::stod(m[3]), std::stod(m[1])) << "eval time is part of the CPU time";
    EXPECT_GT(std::stoull(m[4]), 16U) << "two models, evaluated at least at every edge";
    rest = m.suffix();
  }
  EXPECT_EQ(lines, 2U) << r.out;
  // Without --bench, no speed line.
  r = run_command("env -u WAVES " + kBin + " --test vlt.two_duts");
  EXPECT_FALSE(contains(r.out, "bench: ")) << r.out;
}

TEST(VltRunner, TraceWritesAnFst) {
  for (const std::string how : {"+trace", "WAVES=1"}) {
    const auto dir = scratch("waves");
    const std::string cmd =
        how == "+trace"
            ? kBin + " --test vlt.count --seed 2 +trace --waves-dir " + dir.string()
            : "WAVES=1 " + kBin + " --test vlt.count --seed 2 --waves-dir " + dir.string();
    auto r = run_command(cmd);
    EXPECT_EQ(r.rc, 0) << r.out;
    const auto fst = dir / "vlt.count-seed2.fst";
    EXPECT_TRUE(contains(r.out, "waves: " + fst.string())) << r.out;
    ASSERT_TRUE(std::filesystem::exists(fst)) << how;
    EXPECT_GT(std::filesystem::file_size(fst), 200U);
    // FST files start with a header block (type 0).
    std::ifstream is(fst, std::ios::binary);
    EXPECT_EQ(is.get(), 0);
    std::filesystem::remove_all(dir);
  }
}

TEST(VltRunner, TwoModelsShareOneTraceFile) {
  const auto dir = scratch("two");
  auto r = run_command(kBin + " --test vlt.two_duts +trace --waves-dir " + dir.string());
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "vlt.two_duts-seed1.fst")) << r.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace syncfab::tb::test
