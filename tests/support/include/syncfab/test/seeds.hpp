// Seeds for GoogleTest random tests (the harness tests in tb/ have their own
// --seed/--seeds): SYNCFAB_SEED=n runs one seed, SYNCFAB_SEEDS=a-b a range
// (what the slow regressions set), otherwise the test's own short list.
// replay_command() is the line a failure prints.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace syncfab::test {

namespace detail {
inline std::uint64_t parse_seed(std::string_view var, const std::string& text) {
  std::size_t used = 0;
  std::uint64_t v = 0;
  try {
    v = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text.front() == '-') {
    throw std::invalid_argument(std::string(var) + ": '" + text +
                                "' is not a non-negative integer seed");
  }
  return v;
}
}  // namespace detail

inline std::vector<std::uint64_t> seeds(std::vector<std::uint64_t> fallback) {
  if (const char* s = std::getenv("SYNCFAB_SEED")) {
    return {detail::parse_seed("SYNCFAB_SEED", s)};
  }
  if (const char* s = std::getenv("SYNCFAB_SEEDS")) {
    const std::string r(s);
    const auto dash = r.find('-');
    const std::uint64_t a = detail::parse_seed("SYNCFAB_SEEDS", r.substr(0, dash));
    const std::uint64_t b =
        dash == std::string::npos ? a : detail::parse_seed("SYNCFAB_SEEDS", r.substr(dash + 1));
    if (b < a) {
      throw std::invalid_argument("SYNCFAB_SEEDS: '" + r +
                                  "' is an empty range (A-B needs A <= B)");
    }
    std::vector<std::uint64_t> out;
    for (auto i = a; i <= b; ++i) {
      out.push_back(i);
    }
    return out;
  }
  return fallback;
}

// "SYNCFAB_SEED=<n> [extra_env ]<binary> --gtest_filter=<Suite.Name>".
inline std::string replay_command(std::uint64_t seed, std::string_view extra_env = {}) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string cmd = "SYNCFAB_SEED=" + std::to_string(seed) + " ";
  if (!extra_env.empty()) {
    cmd.append(extra_env).append(" ");
  }
  return cmd + ::testing::internal::GetArgvs()[0] + " --gtest_filter=" + info->test_suite_name() +
         "." + info->name();
}

}  // namespace syncfab::test
