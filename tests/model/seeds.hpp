// Seeds for the random tests: SYNCFAB_SEED=n runs one seed, SYNCFAB_SEEDS=a-b
// a range, otherwise the test's own short list. replay_command() is what a
// failure prints.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace syncfab::model::test {

inline std::vector<std::uint64_t> seeds(std::vector<std::uint64_t> fallback) {
  if (const char* s = std::getenv("SYNCFAB_SEED")) {
    return {std::stoull(s)};
  }
  if (const char* s = std::getenv("SYNCFAB_SEEDS")) {
    const std::string r(s);
    const auto dash = r.find('-');
    const std::uint64_t a = std::stoull(r.substr(0, dash));
    const std::uint64_t b = dash == std::string::npos ? a : std::stoull(r.substr(dash + 1));
    std::vector<std::uint64_t> out;
    for (auto i = a; i <= b; ++i) {
      out.push_back(i);
    }
    return out;
  }
  return fallback;
}

inline std::string replay_command(std::uint64_t seed) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return "SYNCFAB_SEED=" + std::to_string(seed) + " SYNCFAB_TRACE=1 " +
         ::testing::internal::GetArgvs()[0] + " --gtest_filter=" + info->test_suite_name() + "." +
         info->name();
}

}  // namespace syncfab::model::test
