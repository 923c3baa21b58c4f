#include "syncfab/tb/speed.hpp"

#include <chrono>
#include <ctime>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define SYNCFAB_TB_HAVE_TSC 1
#endif

namespace syncfab::tb {

namespace {

std::uint64_t steady_ns() noexcept {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// Ticks per second, measured once against the steady clock (the
// time-stamp counter runs at a constant rate on every CPU this targets).
double tick_rate() {
#ifdef SYNCFAB_TB_HAVE_TSC
  static const double rate = [] {
    const std::uint64_t ns0 = steady_ns();
    const std::uint64_t t0 = __rdtsc();
    std::uint64_t ns1 = ns0;
    while (ns1 - ns0 < 20'000'000) {
      ns1 = steady_ns();
    }
    const std::uint64_t t1 = __rdtsc();
    return static_cast<double>(t1 - t0) * 1e9 / static_cast<double>(ns1 - ns0);
  }();
  return rate;
#else
  return 1e9;
#endif
}

}  // namespace

std::uint64_t speed_ticks() noexcept {
#ifdef SYNCFAB_TB_HAVE_TSC
  return __rdtsc();
#else
  return steady_ns();
#endif
}

double ticks_to_seconds(std::uint64_t ticks) { return static_cast<double>(ticks) / tick_rate(); }

double process_cpu_seconds() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace syncfab::tb
