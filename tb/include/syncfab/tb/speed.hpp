// Simulation-speed accounting for `--bench` runs: the CPU time of a test and
// the time spent inside the verilated models' eval(), per model class, so
// that the harness's own share of a run is a measured number.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace syncfab::tb {

// A cheap timestamp for timing one eval (the CPU's time-stamp counter where
// there is one; a steady clock elsewhere) and its conversion to seconds.
std::uint64_t speed_ticks() noexcept;
double ticks_to_seconds(std::uint64_t ticks);

// CPU time of this process so far (user + system), in seconds.
double process_cpu_seconds() noexcept;

struct ModelSpeed {
  unsigned instances = 0;
  std::uint64_t evals = 0;
  std::uint64_t ticks = 0;    // inside eval()
  std::uint64_t skipped = 0;  // evals skipped while the model was idle
};

// Model class name (e.g. "Vswitch_top") -> its instances' accounting.
using SpeedByModel = std::map<std::string, ModelSpeed, std::less<>>;

}  // namespace syncfab::tb
