#include "node.hpp"

#include <stdexcept>
#include <string>

namespace syncfab::tb::system {

void check_hw_cfg(const SwitchNode& sw, const driver::SwitchInfo& in, const std::string& backend) {
  const SwitchShape want = sw.shape();
  if (in.ports != want.ports || in.lft_entries != want.lft_entries ||
      in.mft_entries != want.mft_entries) {
    throw std::runtime_error("switch " + sw.name() + ": HW_CFG says " + std::to_string(in.ports) +
                             " ports, " + std::to_string(in.lft_entries) + " LFT and " +
                             std::to_string(in.mft_entries) + " MFT entries; " + backend + " has " +
                             std::to_string(want.ports) + ", " + std::to_string(want.lft_entries) +
                             " and " + std::to_string(want.mft_entries));
  }
}

std::uint64_t SwitchNode::counter_all_prios(unsigned port, fmt::SwCounter kind) const {
  std::uint64_t n = 0;
  for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
    n += counter(port, q, kind);
  }
  return n;
}

}  // namespace syncfab::tb::system
