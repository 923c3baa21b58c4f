// The test runner behind every harness test binary (syncfab_tb_main's main()).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace syncfab::tb {

struct TestResult {
  std::string suite;
  std::string name;
  std::uint64_t seed = 0;
  bool passed = false;
  std::string kind;     // exception type of a failure
  std::string message;  // failure text, replay command included
  double seconds = 0;
};

// Parses the command line, runs the selected tests and seeds, prints the
// results; returns the process exit code (0 all passed, 1 a test failed,
// 2 bad command line).
int run_tests(int argc, char** argv);

// JUnit XML (testsuites/testsuite/testcase/failure) of all results.
void write_junit(const std::filesystem::path& file, const std::string& binary,
                 const std::vector<TestResult>& results);

}  // namespace syncfab::tb
