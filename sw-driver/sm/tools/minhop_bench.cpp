// Whole-fabric min-hop computation on the FULB-MC paper's fabrics: build time,
// min-hop time, bytes held and peak RSS (getrusage). Each fabric runs in a
// child process so peak RSS is per fabric. Usage: sm_minhop_bench [spec...]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/minhop.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run_one(const std::string& spec) {
  using namespace syncfab::sm;
  const auto t0 = std::chrono::steady_clock::now();
  const Fabric f = make_fabric(spec);
  const double build_s = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  const MinHop mh(f);
  const double minhop_s = seconds_since(t1);
  unsigned max_d = 0;
  for (SwitchIdx s = 0; s < mh.switch_count(); ++s) {
    for (auto d : mh.row(s)) {
      max_d = d > max_d ? d : max_d;
    }
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("| %-22s | %6zu | %6zu | %5u | %8.3f | %8.3f | %9.1f | %9.1f |\n", spec.c_str(),
              f.hca_count(), f.switch_count(), max_d, build_s, minhop_s,
              static_cast<double>(mh.memory_bytes()) / (1 << 20),
              static_cast<double>(ru.ru_maxrss) / 1024.0);
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> specs(argv + 1, argv + argc);
  if (specs.empty()) {
    specs = {"fattree:ports=40,levels=3", "pruned:paths=8", "pruned:paths=2", "torus", "dragonfly"};
  }
  std::printf("| %-22s | %6s | %6s | %5s | %8s | %8s | %9s | %9s |\n", "fabric", "nodes", "switch",
              "diam", "build s", "minhop s", "minhop MB", "peak MB");
  std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(24, '-').c_str(),
              std::string(8, '-').c_str(), std::string(8, '-').c_str(), std::string(7, '-').c_str(),
              std::string(10, '-').c_str(), std::string(10, '-').c_str(),
              std::string(11, '-').c_str(), std::string(11, '-').c_str());
  std::fflush(stdout);
  int rc = 0;
  for (const auto& spec : specs) {
    const pid_t pid = fork();
    if (pid == 0) {
      try {
        _exit(run_one(spec));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", spec.c_str(), e.what());
        _exit(1);
      }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      rc = 1;
    }
  }
  return rc;
}
