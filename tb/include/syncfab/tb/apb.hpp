// APB4 requester (the CPU side of a CSR bus).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "syncfab/tb/event.hpp"
#include "syncfab/tb/sim.hpp"
#include "syncfab/tb/task.hpp"

namespace syncfab::tb {

struct ApbPins {
  std::function<void(bool)> psel;
  std::function<void(bool)> penable;
  std::function<void(bool)> pwrite;
  std::function<void(std::uint32_t)> paddr;
  std::function<void(std::uint32_t)> pwdata;
  std::function<void(std::uint8_t)> pstrb;
  std::function<std::uint32_t()> prdata;
  std::function<bool()> pready;
  std::function<bool()> pslverr;
};

struct ApbResult {
  std::uint32_t data = 0;  // PRDATA of a read; 0 for a write
  bool error = false;      // PSLVERR in the completing cycle
};

// One access at a time (concurrent callers queue on a Lock). Each access is
// a setup cycle then access cycles until PREADY; a completer that holds
// PREADY low for more than `max_wait_cycles` fails the test.
class ApbMaster {
 public:
  ApbMaster(Clock& clk, ApbPins pins, std::uint32_t max_wait_cycles = 1000);

  Task<ApbResult> write(std::uint32_t addr, std::uint32_t data, std::uint8_t strb = 0xF);
  Task<ApbResult> read(std::uint32_t addr);
  // Drives the idle bus (PSEL=0, PENABLE=0); call before reset is released.
  void idle();
  [[nodiscard]] std::uint64_t accesses() const noexcept { return accesses_; }

 private:
  Task<ApbResult> access(bool write, std::uint32_t addr, std::uint32_t data, std::uint8_t strb);

  Clock* clk_;
  ApbPins pins_;
  std::uint32_t max_wait_;
  Lock lock_{"apb bus"};
  std::uint64_t accesses_ = 0;
};

}  // namespace syncfab::tb
