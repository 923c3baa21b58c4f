// APB4 requester (the CPU side of a CSR bus).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

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

// The pins of a verilated model whose APB completer port uses the project's
// names (psel_i, penable_i, pwrite_i, paddr_i, pwdata_i, pstrb_i, prdata_o,
// pready_o, pslverr_o), as every register block wrapper has. paddr_i decodes
// `window_bytes` (a power of two); a wider address is refused, not aliased.
template <class Dut>
ApbPins apb_pins_of(Dut& d, std::uint32_t window_bytes) {
  ApbPins p;
  p.psel = [&d](bool v) { d.psel_i = v; };
  p.penable = [&d](bool v) { d.penable_i = v; };
  p.pwrite = [&d](bool v) { d.pwrite_i = v; };
  p.paddr = [&d, window_bytes](std::uint32_t a) {
    if (a >= window_bytes) {
      throw std::invalid_argument("APB address " + std::to_string(a) +
                                  " is outside the completer's " + std::to_string(window_bytes) +
                                  "-byte window");
    }
    d.paddr_i = static_cast<std::remove_reference_t<decltype(d.paddr_i)>>(a);
  };
  p.pwdata = [&d](std::uint32_t v) { d.pwdata_i = v; };
  p.pstrb = [&d](std::uint8_t s) { d.pstrb_i = s; };
  p.prdata = [&d] { return static_cast<std::uint32_t>(d.prdata_o); };
  p.pready = [&d] { return d.pready_o != 0; };
  p.pslverr = [&d] { return d.pslverr_o != 0; };
  return p;
}

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
