// A GoogleTest main for SystemC tests: SystemC elaborates once per process,
// so each test must have a process of its own. ctest already runs one test
// per process (gtest_discover_tests); run directly with more than one test
// selected, this main runs itself once per test and sums the failures.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

namespace {

constexpr const char* kChildVar = "SYNCFAB_VP_ONE_TEST";

std::string quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) {
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return q + "'";
}

// The full names of the tests the filter selects, from --gtest_list_tests.
std::vector<std::string> selected(const std::string& self) {
  const std::string filter = ::testing::GTEST_FLAG(filter);
  const std::string cmd =
      quote(self) + " --gtest_list_tests --gtest_filter=" + quote(filter) + " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  std::vector<std::string> names;
  if (!p) {
    return names;
  }
  std::string suite;
  char buf[1024];
  while (std::fgets(buf, sizeof buf, p.get()) != nullptr) {
    std::string line(buf);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
      line.pop_back();
    }
    if (line.empty()) {
      continue;
    }
    const auto end = line.find_first_of(" #", 2);
    if (line[0] != ' ') {
      suite = line.substr(0, line.find(' '));
    } else {
      names.push_back(suite + line.substr(2, end == std::string::npos ? end : end - 2));
    }
  }
  return names;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  if (std::getenv(kChildVar) != nullptr || ::testing::GTEST_FLAG(list_tests)) {
    return RUN_ALL_TESTS();
  }
  const auto names = selected(argv[0]);
  if (names.size() <= 1) {
    return RUN_ALL_TESTS();
  }
  unsigned failed = 0;
  for (const auto& n : names) {
    const std::string cmd =
        std::string(kChildVar) + "=1 " + quote(argv[0]) + " --gtest_filter=" + quote(n);
    if (std::system(cmd.c_str()) != 0) {
      ++failed;
      std::cerr << "FAILED (own process): " << n << "\n";
    }
  }
  std::cout << names.size() - failed << " of " << names.size()
            << " tests passed, one process each\n";
  return failed == 0 ? 0 : 1;
}

// SystemC prints its banner before sc_main unless told not to.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
