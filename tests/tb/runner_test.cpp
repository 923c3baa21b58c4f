// The test runner (syncfab_tb_main) seen from outside: exit codes, failure
// report, replay, JUnit, bad command lines. Runs tb_selftest.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "subprocess.hpp"

namespace syncfab::tb::test {
namespace {

const std::string kBin = SYNCFAB_SELFTEST_BIN;

Ran selftest(const std::string& args) { return run_command(kBin + " " + args); }

std::string first_failure_line(const std::string& out) {
  std::istringstream is(out);
  for (std::string l; std::getline(is, l);) {
    if (l.rfind("FAILED ", 0) == 0) {
      return l;
    }
  }
  return {};
}

TEST(Runner, ListsTests) {
  auto r = selftest("--list");
  EXPECT_EQ(r.rc, 0) << r.out;
  for (const char* t : {"selftest.pass\n", "selftest.fail\n", "selftest.background_fail\n",
                        "selftest.deadlock\n", "selftest.timeout\n"}) {
    EXPECT_TRUE(contains(r.out, t)) << r.out;
  }
  r = selftest("--list --test 'selftest.p*'");
  EXPECT_EQ(r.out, "selftest.pass\n");
}

TEST(Runner, PassingTestExitsZero) {
  auto r = selftest("--test selftest.pass --seed 3 --param cycles=7");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "param cycles = 7 (--param)")) << r.out;
  EXPECT_TRUE(contains(r.out, "[       OK ] selftest.pass seed=3")) << r.out;
}

TEST(Runner, FailingTestExitsNonZeroWithSeedAndReplay) {
  auto r = selftest("--test selftest.fail --seed 5");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "FAILED selftest.fail seed=5: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "selftest_tests.cpp:")) << r.out;
  EXPECT_TRUE(contains(r.out, "drawn from seed 5")) << r.out;
  EXPECT_TRUE(contains(r.out, "at 5000 ps")) << r.out;
  const std::string abs = std::filesystem::canonical(kBin).string();
  EXPECT_TRUE(contains(r.out, "replay: " + abs + " --test selftest.fail --seed 5\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "waves:  make waves TEST=selftest.fail SEED=5\n")) << r.out;

  // The printed replay command reproduces the same failure.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("replay: (.*)\n")));
  auto again = run_command(m[1]);
  EXPECT_EQ(again.rc, 1);
  EXPECT_EQ(first_failure_line(again.out), first_failure_line(r.out));
  // Another seed draws another value.
  auto other = selftest("--test selftest.fail --seed 6");
  EXPECT_NE(first_failure_line(other.out), first_failure_line(r.out));
}

TEST(Runner, ParamsAppearInTheReplayCommand) {
  auto r = selftest("--test 'selftest.*' --seed 2 --param cycles=4");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.out, "--test selftest.fail --seed 2 --param cycles=4")) << r.out;
}

TEST(Runner, BackgroundDeadlockAndTimeoutFailures) {
  auto r = selftest("--test selftest.background_fail");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.out, "monitor saw something bad")) << r.out;
  EXPECT_TRUE(contains(r.out, "in task 'monitor'")) << r.out;

  r = selftest("--test selftest.deadlock");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.out, "deadlock at 0 ps")) << r.out;
  EXPECT_TRUE(contains(r.out, "'selftest.deadlock' waits on event 'never-set'")) << r.out;

  r = selftest("--test selftest.timeout");
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.out, "slow op timed out after 100000 ps")) << r.out;
}

TEST(Runner, SeedRangesAndJUnit) {
  const auto xml = std::filesystem::temp_directory_path() /
                   ("syncfab-junit-" + std::to_string(::getpid()) + "/out.xml");
  auto r = selftest("--test 'selftest.[pf]*' --seeds 1-3 --junit " + xml.string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.out, "== 6 run(s): 3 passed, 3 failed")) << r.out;
  std::ifstream is(xml);
  ASSERT_TRUE(is) << xml;
  std::stringstream ss;
  ss << is.rdbuf();
  const auto x = ss.str();
  EXPECT_TRUE(contains(x, "<testsuites name=\"tb_selftest\" tests=\"6\" failures=\"3\"")) << x;
  EXPECT_TRUE(contains(x, "<testcase classname=\"selftest\" name=\"pass seed=2\"")) << x;
  EXPECT_TRUE(contains(x, "<testcase classname=\"selftest\" name=\"fail seed=3\"")) << x;
  EXPECT_TRUE(contains(x, "<failure type=\"TestFailure\" message=\"")) << x;
  EXPECT_TRUE(contains(x, "replay: ")) << x;
  std::filesystem::remove_all(xml.parent_path());
}

TEST(Runner, BadCommandLinesAreRefused) {
  struct Case {
    const char* args;
    const char* says;
  };
  for (const auto& c : {Case{"--test nosuch.test", "no test matches --test 'nosuch.test'"},
                        Case{"--seed -1", "--seed '-1' is not a non-negative integer"},
                        Case{"--seed abc", "--seed 'abc' is not a non-negative integer"},
                        Case{"--seeds 5-2", "--seeds '5-2' is not a range"},
                        Case{"--seeds 5", "--seeds '5' is not a range"},
                        Case{"--param cycles", "--param 'cycles' is not name=integer"},
                        Case{"--seed 1 --seeds 1-2", "excludes"}, Case{"--bogus", "bogus"},
                        Case{"--test selftest.pass --param cylces=3",
                             "--param cylces=3 was not read by any test"}}) {
    auto r = selftest(c.args);
    EXPECT_NE(r.rc, 0) << c.args;
    EXPECT_NE(r.rc, 1) << c.args << ": usage errors are not test failures";
    EXPECT_TRUE(contains(r.out, c.says)) << c.args << " -> " << r.out;
  }
}

}  // namespace
}  // namespace syncfab::tb::test
