// The fan-in schedules syncfab-ecn-sweep compares the dynamic ECN law on
// (docs/switch-ecn-dynamic.md §10): how many senders are active over a run.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "incast.hpp"

namespace syncfab::sim::dcqcn {

// The schedule of pattern `name` over `cycles` cycles: step, burst, ramp,
// alternate. std::invalid_argument for another name.
std::vector<IncastConfig::FaninStep> fanin_pattern(std::string_view name, std::uint64_t cycles);

}  // namespace syncfab::sim::dcqcn
