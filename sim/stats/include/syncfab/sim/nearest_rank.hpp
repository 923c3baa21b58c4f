// Order statistics of the simulation layer's latency samples.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace syncfab::sim {

// Nearest rank: the smallest value with at least q (0 < q <= 1) of the
// sample at or below it; 0 for an empty sample. `sorted` ascending.
inline std::uint64_t nearest_rank(const std::vector<std::uint64_t>& sorted, double q) {
  if (sorted.empty()) {
    return 0;
  }
  const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(std::max<std::size_t>(k, 1), sorted.size()) - 1];
}

}  // namespace syncfab::sim
