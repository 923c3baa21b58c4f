// One completion record as a NIC wrote it into its CQ ring (word 0), with
// the cycle of the write: what the NIC benches and fabrics collect, whatever
// the NIC's backend (it names no verilated model).
#pragma once

#include <cstdint>

namespace syncfab::tb::nic_top {

struct CqWrite {
  std::uint64_t cycle = 0;
  unsigned ctx = 0;
  std::uint16_t epoch = 0;
  unsigned status = 0;
  unsigned err = 0;
};

}  // namespace syncfab::tb::nic_top
