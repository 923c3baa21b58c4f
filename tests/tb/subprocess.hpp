// Runs a command through the shell and captures its exit code and output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace syncfab::tb::test {

struct Ran {
  int rc = -1;
  std::string out;  // stdout and stderr
};

inline Ran run_command(const std::string& cmd) {
  Ran r;
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen((cmd + " 2>&1").c_str(), "r"), pclose);
  if (!p) {
    throw std::runtime_error("popen failed: " + cmd);
  }
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p.get()) != nullptr) {
    r.out += buf.data();
  }
  const int status = pclose(p.release());
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace syncfab::tb::test
