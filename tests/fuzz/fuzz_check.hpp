#pragma once
// What the harnesses share: a broken property is a finding, reported like a
// sanitizer's (message, then abort, which libFuzzer saves as a crash input).
#include <cstdio>
#include <cstdlib>
#include <string>

namespace syncfab::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
  std::abort();
}

inline void check(bool ok, const std::string& what) {
  if (!ok) {
    finding(what);
  }
}

}  // namespace syncfab::fuzz
