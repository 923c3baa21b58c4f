#include "fanin_patterns.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace syncfab::sim::dcqcn {

std::vector<IncastConfig::FaninStep> fanin_pattern(std::string_view name, std::uint64_t cycles) {
  if (name == "step") {  // 2 -> 15 -> 4
    return {{0, 2}, {cycles / 3, 15}, {2 * cycles / 3, 4}};
  }
  if (name == "burst") {  // 2 in the background, bursts of 15 a fifth of every period
    std::vector<IncastConfig::FaninStep> s;
    const std::uint64_t period = cycles / 5;
    for (std::uint64_t a = 0; a < cycles; a += period) {
      s.push_back({a, 2});
      s.push_back({a + period * 4 / 5, 15});
    }
    return s;
  }
  if (name == "ramp") {  // 4 -> 8 -> 15 -> 8 -> 4 -> 2
    std::vector<IncastConfig::FaninStep> s;
    constexpr std::array<unsigned, 6> k{4, 8, 15, 8, 4, 2};
    for (std::uint64_t i = 0; i < k.size(); ++i) {
      s.push_back({cycles * i / k.size(), k[i]});
    }
    return s;
  }
  if (name == "alternate") {  // 2 <-> 15 in eighths: low, high, low, ... (four of each)
    std::vector<IncastConfig::FaninStep> s;
    for (std::uint64_t i = 0; i < 8; ++i) {
      s.push_back({cycles * i / 8, i % 2 == 0 ? 2U : 15U});
    }
    return s;
  }
  throw std::invalid_argument("ecn-sweep: pattern '" + std::string(name) +
                              "' is not step, burst, ramp or alternate");
}

}  // namespace syncfab::sim::dcqcn
